package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDeliveryStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		state               string
		attempts, roundFrom int
		want                string
	}{
		{StatePending, 0, 0, StatusPending},
		{StatePending, 1, 0, StatusFailed},
		{StatePending, 6, 6, StatusPending}, // a new round, not tried yet
		{StatePending, 8, 6, StatusFailed},
		{StateSucceeded, 1, 0, StatusDelivered},
		{StateAbandoned, 6, 0, StatusAbandoned},
		{StateCancelled, 3, 0, StatusCancelled},
	} {
		d := Delivery{State: c.state, Attempts: c.attempts, RoundFrom: c.roundFrom}
		require.Equal(t, c.want, d.Status(), "%+v", c)
		require.Equal(t, c.state != StatePending, d.Ended())
	}
}

// TestDeliveryFailedFollowsTheRound: each failure plans the next attempt
// after the round's gap; the round's sixth failure abandons it; a failure
// that turned the webhook off cancels it, unless it was the last one.
func TestDeliveryFailedFollowsTheRound(t *testing.T) {
	t.Parallel()
	d := NewDelivery("dlv_1", "team_a", "evt_1", "wh_1", t0)
	require.True(t, d.Due(1))
	require.False(t, d.Due(2), "attempt 2 is not due before attempt 1 is recorded")
	at := t0
	for n := 1; n < MaxAttempts; n++ {
		gap, _ := RetryGap(n)
		next := d.Failed(n, at, false)
		require.NotNil(t, next, "attempt %d", n)
		require.Equal(t, at.Add(gap), *next)
		require.Equal(t, StatePending, d.State)
		require.Equal(t, n, d.Attempts)
		require.Equal(t, at, d.UpdatedAt)
		require.Equal(t, StatusFailed, d.Status())
		at = *next
	}
	require.Nil(t, d.Failed(MaxAttempts, at, false))
	require.Equal(t, StateAbandoned, d.State)
	require.Nil(t, d.NextAttemptAt)

	// A retry starts a new round: the schedule again, attempts counting on.
	d.Restart(at)
	require.Equal(t, StatusPending, d.Status())
	require.Equal(t, MaxAttempts, d.RoundFrom)
	require.Equal(t, at, *d.NextAttemptAt)
	require.True(t, d.Due(MaxAttempts+1))
	next := d.Failed(MaxAttempts+1, at, false)
	require.Equal(t, at.Add(time.Minute), *next, "the round's first gap")

	// The failure that turns the webhook off ends the delivery cancelled.
	q := Delivery{State: StatePending, Attempts: 2, Queued: true}
	require.Nil(t, q.Failed(3, t0, true))
	require.Equal(t, StateCancelled, q.State)
	require.False(t, q.Queued)
	// ... unless it was the round's last: then it is abandoned.
	last := Delivery{State: StatePending, Attempts: MaxAttempts - 1}
	last.Failed(MaxAttempts, t0, true)
	require.Equal(t, StateAbandoned, last.State)
}

func TestDeliverySucceededCancelRecover(t *testing.T) {
	t.Parallel()
	d := NewDelivery("dlv_1", "team_a", "evt_1", "wh_1", t0)
	d.Queued = true
	d.Succeeded(1, t0.Add(time.Second))
	require.Equal(t, StateSucceeded, d.State)
	require.Equal(t, 1, d.Attempts)
	require.Nil(t, d.NextAttemptAt)
	require.False(t, d.Queued)
	require.False(t, d.Cancel(t0), "only a pending delivery is cancelled")

	p := NewDelivery("dlv_2", "team_a", "evt_2", "wh_1", t0)
	require.True(t, p.Cancel(t0.Add(time.Minute)))
	require.Equal(t, StateCancelled, p.State)
	require.Nil(t, p.NextAttemptAt)

	require.True(t, p.Recoverable(t0), "an event at since is recovered")
	require.False(t, p.Recoverable(t0.Add(time.Nanosecond)), "an event before since is not")
	require.False(t, d.Recoverable(t0), "a delivered one is not")
	p.Recover(t0.Add(time.Hour))
	require.Equal(t, StatePending, p.State)
	require.True(t, p.Queued, "recovered deliveries wait in the queue")
	require.Nil(t, p.NextAttemptAt)
	require.Equal(t, p.Attempts, p.RoundFrom)
	require.Equal(t, StatusPending, p.Status())
}

// TestDeliveryEnqueue: only a due delivery not queued yet is queued (no
// next attempt: it waits its turn); any other is left as it was.
func TestDeliveryEnqueue(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	at := t0.Add(time.Minute)
	due := Delivery{State: StatePending, Attempts: 2, NextAttemptAt: &at, UpdatedAt: t0}
	d := due
	require.True(t, d.Enqueue(3, t0.Add(time.Hour)))
	require.True(t, d.Queued)
	require.Nil(t, d.NextAttemptAt)
	require.Equal(t, t0.Add(time.Hour), d.UpdatedAt)
	require.Equal(t, StatePending, d.State)
	require.Equal(t, 2, d.Attempts, "waiting is not an attempt")
	for name, c := range map[string]struct {
		d       Delivery
		attempt int
	}{
		"queued already": {d, 3},
		"stale attempt":  {due, 2},
		"early attempt":  {due, 4},
		"ended":          {Delivery{State: StateSucceeded, Attempts: 2, UpdatedAt: t0}, 3},
		"cancelled":      {Delivery{State: StateCancelled, Attempts: 2, UpdatedAt: t0}, 3},
	} {
		before := c.d
		require.False(t, c.d.Enqueue(c.attempt, t0.Add(2*time.Hour)), name)
		require.Equal(t, before, c.d, name)
	}
}
