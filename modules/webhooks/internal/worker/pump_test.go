package worker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPumpNeverStrandsAQueue: a throttled webhook's deliveries are queued
// by their attempt jobs while publishers keep adding events from several
// goroutines, so the pump's queue empties and refills many times (the
// pump ends and is claimed again). Every event arrives exactly once, none
// is left queued, and no pump is left behind.
func TestPumpNeverStrandsAQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, rcv, team := newEnv(t, 50, false)
	hooks, err := e.Svc.Webhooks(ctx, team, 10, 0)
	require.NoError(t, err)
	hook := hooks[0].ID
	rate := 100
	_, err = e.Svc.SetThrottle(ctx, team, hook, "", &rate)
	require.NoError(t, err)

	// Rounds: each round's events arrive before the next round is
	// published, so the pump finds its queue empty and ends (or is ending)
	// as the next round's deliveries are queued.
	const writers, each, rounds = 6, 20, 10
	var wg sync.WaitGroup
	for r := range rounds {
		for g := range writers {
			wg.Go(func() {
				for i := range each / rounds {
					require.NoError(t, publish(ctx, e, team, (g*rounds+r)*each/rounds+i))
				}
			})
		}
		wg.Wait()
		want := (r + 1) * writers * each / rounds
		require.Eventually(t, func() bool { return rcv.count() == want }, 30*time.Second, 5*time.Millisecond, "round %d", r)
	}
	require.EqualValues(t, writers*each, rcv.total.Load(), "each event once")
	require.Zero(t, rcv.bad.Load())
	require.Eventually(t, func() bool {
		var queued int
		var pump bool
		require.NoError(t, e.DB.Bun.NewRaw(`SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND queued`, hook).Scan(ctx, &queued))
		require.NoError(t, e.DB.Bun.NewRaw(`SELECT pump FROM webhook_queues WHERE webhook_id = ?`, hook).Scan(ctx, &pump))
		var live int
		require.NoError(t, e.DB.Bun.NewRaw(`SELECT count(*) FROM river_job WHERE kind = 'webhooks.pump' AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(ctx, &live))
		return queued == 0 && !pump && live == 0
	}, 10*time.Second, 50*time.Millisecond, "the queue is empty and its pump ended")
	var pumps int
	require.NoError(t, e.DB.Bun.NewRaw(`SELECT count(*) FROM river_job WHERE kind = 'webhooks.pump'`).Scan(ctx, &pumps))
	t.Logf("%d pump jobs over the run (each ended with an empty queue)", pumps)
	require.Greater(t, pumps, 1, "the pump ended and was claimed again")
	var sent, attempts int
	require.NoError(t, e.DB.Bun.NewRaw(`SELECT count(*) FILTER (WHERE state = 'succeeded'), coalesce(sum(attempts), 0) FROM webhook_deliveries WHERE webhook_id = ?`, hook).Scan(ctx, &sent, &attempts))
	require.Equal(t, writers*each, sent)
	require.Equal(t, writers*each, attempts, "one attempt each: waiting is not an attempt")
}
