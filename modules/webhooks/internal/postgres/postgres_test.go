package postgres_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

// TestSuccessBatchJudgesDuplicatesInTurn: a batch naming a delivery twice
// records each call against the state the other left, as calls one at a
// time would: a stale attempt number is refused, a duplicate of a recorded
// attempt is refused, and the right attempt of the same delivery is still
// recorded. A recorded success clears the webhook's failure count.
func TestSuccessBatchJudgesDuplicatesInTurn(t *testing.T) {
	ctx := context.Background()
	e, team, c := hooked(t)
	publish(t, e, team)
	publish(t, e, team)
	ds := e.Deliveries(t, team)
	require.Len(t, ds, 2)
	_, err := e.DB.Bun.NewUpdate().Table("webhooks").Set("consecutive_failures = 3").Where("id = ?", c.Webhook.ID).Exec(ctx)
	require.NoError(t, err)

	now := e.Clock.Now()
	code := 200
	attempt := func(d domain.Delivery, n int) *domain.Attempt {
		return &domain.Attempt{TeamID: team, WebhookID: d.WebhookID, DeliveryID: d.ID, EventID: d.EventID,
			Attempt: n, AttemptedAt: now, DurationUS: 1000, StatusCode: &code, Success: true}
	}
	got, err := e.Repo.RecordSuccesses(ctx, []*domain.Attempt{
		attempt(ds[0], 1),
		attempt(ds[0], 1), // the same job twice
		attempt(ds[1], 2), // a stale attempt number
		attempt(ds[1], 1),
	}, []time.Time{now, now, now, now})
	require.NoError(t, err)
	require.Equal(t, []bool{true, false, false, true}, got)

	for _, d := range e.Deliveries(t, team) {
		require.Equal(t, domain.StateSucceeded, d.State)
		require.Equal(t, 1, d.Attempts)
	}
	as, err := e.Repo.Attempts(ctx, team, c.Webhook.ID, 50, 0)
	require.NoError(t, err)
	require.Len(t, as, 2)
	w, err := e.Repo.Webhook(ctx, team, c.Webhook.ID)
	require.NoError(t, err)
	require.Zero(t, w.ConsecutiveFailures)

	// Reads in a batch: a delivery of another team is not found.
	other, _ := e.Team("team_b", billingapi.PlanBusiness)
	_, err = e.Path.Work(ctx, other, ds[0].ID)
	require.ErrorIs(t, err, domain.ErrNotFound)
	wk, err := e.Path.Work(ctx, team, ds[0].ID)
	require.NoError(t, err)
	require.Equal(t, c.Secret, wk.Secret)
	require.True(t, wk.WebhookExists)
}
