package outbound

import (
	"context"
	"log/slog"
	"time"

	"github.com/teamtext/teamtext/platform/loops"
)

// Loops is how many hand-over loops each node runs. Two, so that one long
// pass (a stalled number catching up, a slow carrier call) does not hold
// the numbers that come due meanwhile: the other loop takes them.
const Loops = 2

// MaxWait is the longest a loop waits before looking again, even with
// nothing planned. It bounds how late a slot planned by another node (or
// after a test-clock move) is first seen; a send due now is not late by
// it, since it kicks a pass at once (KickArgs).
const MaxWait = 200 * time.Millisecond

// Lead is the engine's Lead on the real clock: a pass takes the numbers
// due within it, so its reads are done by their turn.
const Lead = 50 * time.Millisecond

// failWait is how long a loop waits after a pass failed (Postgres away).
const failWait = time.Second

// Dispatcher runs a node's hand-over loops. Each loop runs a pass (Pump),
// then waits on a timer until the earliest instant a number is due, and
// runs the next. Every node runs its own loops; they share the numbers
// through Postgres (a pass locks the numbers it works with SKIP LOCKED),
// so any number of nodes hand a number over exactly at its pace, and a
// node that dies leaves nothing behind: its pass's transaction rolls back
// and the other nodes' loops take its numbers at their next wake.
//
// The loops are the engine's clock, not River jobs: a River job that
// snoozes until the next slot wakes up to a poll interval late (and its
// snooze is recorded late under load), and every hand-over of a number
// waits for the previous one, so that lateness would add up, text after
// text, into a slower pace. A timer wakes within a millisecond.
type Dispatcher struct {
	svc   *Service
	log   *slog.Logger
	loops loops.Group
}

// NewDispatcher returns the dispatcher of svc's hand-overs.
func NewDispatcher(svc *Service, log *slog.Logger) *Dispatcher {
	return &Dispatcher{svc: svc, log: log}
}

// Start starts the loops; they run until Stop.
func (d *Dispatcher) Start() {
	fns := make([]func(context.Context), Loops, Loops+1)
	for i := range fns {
		fns[i] = func(ctx context.Context) { d.run(ctx, i) }
	}
	if d.svc.Failovers.Store != nil {
		fns = append(fns, d.failover)
	}
	d.loops.Start(fns...)
}

// Stop stops the loops and waits for their passes to end (a pass in the
// middle of its carrier calls finishes them and commits), or for ctx.
func (d *Dispatcher) Stop(ctx context.Context) error { return d.loops.Stop(ctx) }

// run is loop i: a pass, then a wait until the next is due.
func (d *Dispatcher) run(ctx context.Context, i int) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		// The pass runs to its end even when the node is stopping: a pass
		// cut off between the carrier's answer and the commit would send
		// its texts again from the next pass.
		next, err := d.svc.Pump(context.WithoutCancel(ctx), i)
		wait := d.svc.wait(next)
		if err != nil {
			d.log.Warn("hand-over pass failed; retrying", "loop", i, "err", err, "retry_in", failWait)
			wait = failWait
		}
		timer.Reset(wait)
	}
}

// failover runs a failover pass every FailoverEvery.
func (d *Dispatcher) failover(ctx context.Context) {
	tick := time.NewTicker(FailoverEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if _, err := d.svc.Failover(context.WithoutCancel(ctx)); err != nil {
			d.log.Warn("failover pass failed; retrying", "err", err, "retry_in", FailoverEvery)
		}
	}
}

// wait is how long a loop waits for next (a service-clock instant): until
// then, but at most MaxWait, so a test clock moved forward, or a slot
// another node planned, is seen soon.
func (s *Service) wait(next time.Time) time.Duration {
	return min(max(next.Sub(s.Clock.Now()), 0), MaxWait)
}
