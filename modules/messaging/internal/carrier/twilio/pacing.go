package twilio

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/phone"
)

// pacer keeps one token bucket per sending number, filled at the configured
// rate in segments per second; a text of N segments takes N tokens. The
// bucket holds one token, so a number never sends faster than the rate over
// any window (Twilio queues whatever exceeds a number's throughput, and a
// queue that overflows fails texts with 30001). A text longer than the
// bucket takes its tokens one at a time, on credit, and waits for the last.
//
// The buckets live in this process: see Carrier for running several nodes.
// The map grows with the number of distinct sending numbers, one per team.
type pacer struct {
	limit rate.Limit
	clock clock.Clock
	sleep func(ctx context.Context, d time.Duration) error

	mu       sync.Mutex
	byNumber map[string]*rate.Limiter
}

func newPacer(perSecond float64, clk clock.Clock, sleep func(context.Context, time.Duration) error) *pacer {
	return &pacer{limit: rate.Limit(perSecond), clock: clk, sleep: sleep, byNumber: map[string]*rate.Limiter{}}
}

// wait takes segments tokens from from's bucket and sleeps until they are
// due. A wait that would outlast ctx's deadline takes nothing and fails at
// once, so the fan-out job gives the rest of its batch back to River.
func (p *pacer) wait(ctx context.Context, from string, segments int) error {
	p.mu.Lock()
	lim := p.limiter(from)
	now := p.clock.Now()
	rs := make([]*rate.Reservation, segments)
	var delay time.Duration
	for i := range rs {
		rs[i] = lim.ReserveN(now, 1)
		delay = rs[i].DelayFrom(now) // the last reservation is the latest
	}
	p.mu.Unlock()
	giveBack := func() {
		at := p.clock.Now()
		for i := len(rs) - 1; i >= 0; i-- {
			rs[i].CancelAt(at)
		}
	}
	if delay <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < delay {
		giveBack()
		return fmt.Errorf("pace %s: waiting %s would pass the deadline: %w", phone.Mask(from), delay, context.DeadlineExceeded)
	}
	if err := p.sleep(ctx, delay); err != nil {
		giveBack()
		return fmt.Errorf("pace %s: %w", phone.Mask(from), err)
	}
	return nil
}

// charge takes extra tokens without waiting: the next text on the number
// waits for them instead.
func (p *pacer) charge(from string, segments int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	lim := p.limiter(from)
	now := p.clock.Now()
	for range segments {
		lim.ReserveN(now, 1)
	}
}

// limiter returns from's bucket, created full; p.mu must be held.
func (p *pacer) limiter(from string) *rate.Limiter {
	lim, ok := p.byNumber[from]
	if !ok {
		lim = rate.NewLimiter(p.limit, 1)
		p.byNumber[from] = lim
	}
	return lim
}

// tokens reports from's tokens at the pacer's now (negative: on credit).
func (p *pacer) tokens(from string) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.limiter(from).TokensAt(p.clock.Now())
}
