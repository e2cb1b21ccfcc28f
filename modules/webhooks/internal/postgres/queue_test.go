package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/postgres"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	"github.com/teamtext/teamtext/modules/webhooks/internal/webhooktest"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/events"
)

// TestQueuedReadsItsPageOnlyOnStaleStatistics: a queue of 5,000 filled
// faster than autovacuum analyzes (the tables analyzed while empty, as a
// recovery or an import leaves them) is read a page at a time, in order,
// and the page touches its own events only, not the team's others: the
// plan may not start from the team's events, which the statistics say
// are few.
func TestQueuedReadsItsPageOnlyOnStaleStatistics(t *testing.T) {
	ctx := context.Background()
	e := webhooktest.New(t, srv, webhooktest.Options{})
	team, coach := e.Team("team_q", billingapi.PlanBusiness)
	c, err := e.Svc.Create(ctx, service.NewWebhook{TeamID: team, URL: "https://hooks.example/q",
		Events: []string{events.MemberJoined}, Source: domain.SourceAPI, CreatedBy: coach})
	require.NoError(t, err)
	_, err = e.DB.Pool.Exec(ctx, `ANALYZE webhook_events, webhook_deliveries, webhooks`)
	require.NoError(t, err)
	const queued, others, limit = 5000, 5000, 100
	// The team's other events first (no delivery), then the queue's own,
	// 1 ms apart, each with a queued pending delivery.
	_, err = e.DB.Pool.Exec(ctx, `
INSERT INTO webhook_events (id, team_id, type, created_at, body, skipped)
SELECT 'evt_other_' || g, $1::text, 'member.left', now() - interval '1 hour' + g * interval '1 ms', '{}', true
FROM generate_series(1, $2::integer) g`, team, others)
	require.NoError(t, err)
	_, err = e.DB.Pool.Exec(ctx, `
WITH ev AS (
    INSERT INTO webhook_events (id, team_id, type, created_at, body, skipped)
    SELECT 'evt_q_' || lpad(g::text, 5, '0'), $1::text, 'member.joined', now() + g * interval '1 ms', json_build_object('n', g), false
    FROM generate_series(1, $3::integer) g
    RETURNING id, created_at
)
INSERT INTO webhook_deliveries (id, team_id, event_id, webhook_id, state, attempts, next_attempt_at, created_at, updated_at, queued)
SELECT 'dlv' || substr(id, 4), $1::text, id, $2::text, 'pending', 0, NULL, created_at, created_at, true FROM ev`, team, c.Webhook.ID, queued)
	require.NoError(t, err)

	page, err := e.Repo.Queued(ctx, team, c.Webhook.ID, limit)
	require.NoError(t, err)
	require.Len(t, page, limit)
	for i, w := range page {
		require.Equal(t, fmt.Sprintf("evt_q_%05d", i+1), w.EventID, "the queue's order")
		require.True(t, w.WebhookExists)
		require.Equal(t, "https://hooks.example/q", w.URL)
	}

	// The same statement's work, as a pooled connection runs it.
	read := dbtest.RowsRead(t, e.DB.Pool, postgres.QueuedSQL, team, c.Webhook.ID, limit)
	require.LessOrEqual(t, read["webhook_events"], float64(limit), "the page's events only, not the team's %d", queued+others)
}
