package twilio_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
)

// sentOffsets returns when each accepted text reached the fake, relative
// to the fake clock's start.
func sentOffsets(b *testBundle, start time.Time) []time.Duration {
	var out []time.Duration
	for _, m := range b.fake.Messages() {
		out = append(out, m.At.Sub(start))
	}
	return out
}

// nearly tolerates the nanosecond rounding of x/time/rate's float math.
func nearly(t *testing.T, want, got time.Duration) {
	t.Helper()
	require.InDelta(t, float64(want), float64(got), float64(time.Microsecond), "want %s, got %s", want, got)
}

func TestPacingSingleSegmentTexts(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(cfg *twilio.Config) { cfg.Rate = 5 })
	start := b.clock.Now()
	for i := range 10 {
		_, err := c.Send(context.Background(), text(fmt.Sprintf("dlv_%d", i)))
		require.NoError(t, err)
	}
	at := sentOffsets(b, start)
	require.Len(t, at, 10)
	// One segment every 1/5 s: the first at once, the tenth after 9 × 200 ms.
	for i, d := range at {
		nearly(t, time.Duration(i)*200*time.Millisecond, d)
	}
	require.GreaterOrEqual(t, at[9], 1800*time.Millisecond-time.Microsecond)
}

func TestPacingCountsSegments(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(cfg *twilio.Config) { cfg.Rate = 5 })
	start := b.clock.Now()
	long := text("dlv_long")
	long.Body, long.Segments = strings.Repeat("a", 153*2+10), 3
	_, err := c.Send(context.Background(), long)
	require.NoError(t, err)
	_, err = c.Send(context.Background(), text("dlv_next"))
	require.NoError(t, err)
	at := sentOffsets(b, start)
	// The 3-segment text takes tokens at 0, 200 and 400 ms and goes out with
	// the last; the next text's token is due at 600 ms.
	nearly(t, 400*time.Millisecond, at[0])
	nearly(t, 600*time.Millisecond, at[1])
}

func TestPacingIsPerNumber(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(cfg *twilio.Config) { cfg.Rate = 1 })
	start := b.clock.Now()
	for i, from := range []string{"+12025550100", "+12025550199", "+12025550100"} {
		m := text(fmt.Sprintf("dlv_%d", i))
		m.From = from
		_, err := c.Send(context.Background(), m)
		require.NoError(t, err)
	}
	at := sentOffsets(b, start)
	nearly(t, 0, at[0])
	nearly(t, 0, at[1]) // another team's number has its own bucket
	nearly(t, time.Second, at[2])
}

func TestPacingChargesTwiliosSegmentCount(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(cfg *twilio.Config) { cfg.Rate = 1 })
	start := b.clock.Now()
	under := text("dlv_under")
	under.Body = strings.Repeat("é", 10) + "€" + strings.Repeat("x", 150) // 2 GSM-7 segments at Twilio
	under.Segments = 1                                                    // but counted as 1 by the caller
	_, err := c.Send(context.Background(), under)
	require.NoError(t, err)
	require.Equal(t, 2, b.fake.Messages()[0].Segments)
	_, err = c.Send(context.Background(), text("dlv_next"))
	require.NoError(t, err)
	at := sentOffsets(b, start)
	nearly(t, 0, at[0])
	nearly(t, 2*time.Second, at[1])
}

func TestPacingGivesUpBeforeTheDeadline(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(cfg *twilio.Config) { cfg.Rate = 0.01 }) // one segment per 100 s
	_, err := c.Send(context.Background(), text("dlv_first"))
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = c.Send(ctx, text("dlv_second"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, permanent := carrier.IsPermanent(err)
	require.False(t, permanent)
	require.Len(t, b.fake.Messages(), 1)
	require.Empty(t, b.clock.Sleeps(), "no wait that cannot finish in time")

	// The refused wait took no token: the next text waits for the same slot.
	_, err = c.Send(context.Background(), text("dlv_third"))
	require.NoError(t, err)
	require.Equal(t, []time.Duration{100 * time.Second}, b.clock.Sleeps())
}
