package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/platform/events"
)

// TestRecoverPumpsInOrder: recovery puts the abandoned deliveries back in
// the webhook's queue with one pump job; the pump sends them one at a
// time in the order their events happened, each as the first attempt of a
// new round (attempt 7), and ends when the queue is empty.
func TestRecoverPumpsInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, team, coach := setup(t)
	w := create(t, e, team, coach, events.MemberJoined)
	since := e.Clock.Now()
	for range 5 {
		publish(t, e, team, events.MemberJoined)
		e.Clock.Advance(time.Second)
	}
	ds := deliveries(t, e, team)
	require.Len(t, ds, 5)
	_, err := e.DB.Bun.NewRaw(`UPDATE webhook_deliveries SET state = 'abandoned', attempts = 6, next_attempt_at = NULL WHERE team_id = ?`, team).Exec(ctx)
	require.NoError(t, err)

	_, err = e.Svc.Recover(ctx, "team_other", w.Webhook.ID, "", since)
	require.Error(t, err, "another team's webhook")
	n, err := e.Svc.Recover(ctx, team, w.Webhook.ID, coach, since.Add(2*time.Second))
	require.NoError(t, err)
	require.Equal(t, 3, n, "only events at or after since")
	n, err = e.Svc.Recover(ctx, team, w.Webhook.ID, coach, since)
	require.NoError(t, err)
	require.Equal(t, 2, n, "the rest; the three queued already are not abandoned any more")
	var pumps int
	require.NoError(t, e.DB.Bun.NewRaw(`SELECT count(*) FROM river_job WHERE kind = 'webhooks.pump'`).Scan(ctx, &pumps))
	require.Equal(t, 1, pumps, "one pump for the queue")

	next, done, err := e.Svc.Pump(ctx, domain.PumpArgs{TeamID: team, WebhookID: w.Webhook.ID})
	require.NoError(t, err)
	require.True(t, done, "the queue is empty: the pump ends")
	require.True(t, next.IsZero())
	calls := e.Sender.Calls()
	require.Len(t, calls, 5)
	for i, c := range calls {
		require.Equal(t, ds[i].ID, c.DeliveryID, "in the order the events happened")
	}
	for _, d := range deliveries(t, e, team) {
		require.Equal(t, domain.StateSucceeded, d.State)
		require.Equal(t, 7, d.Attempts)
		require.Equal(t, 6, d.RoundFrom)
		require.False(t, d.Queued)
	}
	var pump bool
	require.NoError(t, e.DB.Bun.NewRaw(`SELECT pump FROM webhook_queues WHERE webhook_id = ?`, w.Webhook.ID).Scan(ctx, &pump))
	require.False(t, pump, "ended")
}

// TestThrottledDeliveriesWaitTheirTurn: under max_per_second the delivery
// job queues its delivery instead of sending it; the pump sends at each
// slot and, when the next slot is ahead, hands back its time (the job
// snoozes until then). Waiting records no attempt.
func TestThrottledDeliveriesWaitTheirTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, team, coach := setup(t)
	w := create(t, e, team, coach, events.MemberJoined)
	two := 2
	_, err := e.Svc.SetThrottle(ctx, team, w.Webhook.ID, coach, &two)
	require.NoError(t, err)
	zero := 0
	_, err = e.Svc.SetThrottle(ctx, team, w.Webhook.ID, coach, &zero)
	require.Error(t, err)
	for range 3 {
		publish(t, e, team, events.MemberJoined)
	}
	for _, d := range deliveries(t, e, team) {
		require.NoError(t, e.Svc.Deliver(ctx, domain.DeliverArgs{TeamID: team, DeliveryID: d.ID, Attempt: 1}))
	}
	require.Empty(t, e.Sender.Calls(), "queued, not sent")
	for _, d := range deliveries(t, e, team) {
		require.True(t, d.Queued)
		require.Zero(t, d.Attempts, "waiting is not an attempt")
	}
	args := domain.PumpArgs{TeamID: team, WebhookID: w.Webhook.ID}
	start := e.Clock.Now()
	next, done, err := e.Svc.Pump(ctx, args)
	require.NoError(t, err)
	require.False(t, done)
	require.Len(t, e.Sender.Calls(), 1, "the first goes at once")
	require.Equal(t, start.Add(500*time.Millisecond).UnixMicro(), next.UnixMicro(), "the next slot: 1/2 s later")
	_, _, err = e.Svc.Pump(ctx, args)
	require.NoError(t, err)
	require.Len(t, e.Sender.Calls(), 1, "not before its slot")
	e.Clock.Advance(500 * time.Millisecond)
	_, done, err = e.Svc.Pump(ctx, args)
	require.NoError(t, err)
	require.False(t, done)
	require.Len(t, e.Sender.Calls(), 2)
	e.Clock.Advance(500 * time.Millisecond)
	_, done, err = e.Svc.Pump(ctx, args)
	require.NoError(t, err)
	require.True(t, done)
	require.Len(t, e.Sender.Calls(), 3)
	w2, err := e.Svc.Webhook(ctx, team, w.Webhook.ID)
	require.NoError(t, err)
	require.Zero(t, w2.ConsecutiveFailures)
}
