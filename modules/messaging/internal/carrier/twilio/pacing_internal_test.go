package twilio

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// stepClock is moved only by its sleep.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) NowOrNil() *time.Time { t := c.Now(); return &t }

func (c *stepClock) sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return nil
}

func TestPacerThreeSegmentTextTakesThreeTokens(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	p := newPacer(5, clk, clk.sleep)
	const from = "+12025550100"
	start := clk.Now()
	require.InDelta(t, 1, p.tokens(from), 1e-9, "a new number's bucket starts full")

	require.NoError(t, p.wait(context.Background(), from, 3))
	// Three tokens out of a bucket holding one: two were taken on credit
	// and paid off by waiting 2 × 200 ms.
	require.InDelta(t, float64(400*time.Millisecond), float64(clk.Now().Sub(start)), float64(time.Microsecond))
	require.InDelta(t, 0, p.tokens(from), 1e-6)

	p.charge(from, 2)
	require.InDelta(t, -2, p.tokens(from), 1e-6, "charged segments are owed by the next text")
}

func TestPacerCancelledWaitGivesTokensBack(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	p := newPacer(1, clk, func(context.Context, time.Duration) error { return context.Canceled })
	const from = "+12025550100"
	require.NoError(t, p.wait(context.Background(), from, 1)) // the full bucket: no sleep
	require.ErrorIs(t, p.wait(context.Background(), from, 3), context.Canceled)
	require.InDelta(t, 0, p.tokens(from), 1e-6, "the cancelled text's tokens are returned")
}
