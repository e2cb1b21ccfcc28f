package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestValidMaxPerSecond(t *testing.T) {
	t.Parallel()
	n := func(v int) *int { return &v }
	for _, ok := range []*int{nil, n(1), n(50), n(MaxPerSecondLimit)} {
		require.NoError(t, ValidMaxPerSecond(ok))
	}
	for _, bad := range []*int{n(0), n(-1), n(MaxPerSecondLimit + 1), n(1 << 40)} {
		require.Error(t, ValidMaxPerSecond(bad), *bad)
	}
}

// TestNextSlot: a queue keeps its schedule while it is less than CatchUp
// behind (the slots it was late for go at once), waits for a slot ahead,
// and starts afresh at now when it was idle longer.
func TestNextSlot(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	for _, c := range []struct {
		name   string
		stored *time.Time
		want   time.Time
	}{
		{"never used", nil, now},
		{"ahead", at(300 * time.Millisecond), now.Add(300 * time.Millisecond)},
		{"due now", at(0), now},
		{"a little behind", at(-300 * time.Millisecond), now.Add(-300 * time.Millisecond)},
		{"just within catch-up", at(-CatchUp), now.Add(-CatchUp)},
		{"idle", at(-CatchUp - time.Millisecond), now},
		{"long idle", at(-time.Hour), now},
	} {
		require.Equal(t, c.want, NextSlot(c.stored, now), c.name)
	}
	require.Equal(t, 100*time.Millisecond, SlotGap(10))
	require.Equal(t, time.Second, SlotGap(1))
}

// TestRetryGapPerRound: a new round (retry or recovery) counts its attempts
// from its start, so it gets the whole schedule again.
func TestRetryGapPerRound(t *testing.T) {
	t.Parallel()
	roundFrom := 6 // an abandoned delivery recovered
	gap, ok := RetryGap(7 - roundFrom)
	require.True(t, ok)
	require.Equal(t, time.Minute, gap)
	_, ok = RetryGap(12 - roundFrom)
	require.False(t, ok, "abandoned again after the round's sixth attempt")
}
