package inbound

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/loops"
)

// FilerLoops is how many filing loops each node runs: two lanes filed at
// once per node (a 2-CPU node is busy with two); more nodes add theirs, up
// to Lanes in all.
const FilerLoops = 2

// FilerPoll is the longest a loop waits before looking for staged texts
// without a notification: it bounds how late a text is filed when a
// notification was missed (the listening connection was down).
const FilerPoll = time.Second

// filerRetry is how long a loop waits after a failed batch (Postgres away).
const filerRetry = time.Second

// Filer runs a node's filing loops. Each loop files batches (FileNext)
// while there are staged texts in lanes no other filer holds, then waits
// for a notification (sent after a callback's commit, on any node: LISTEN
// on a connection of its own, outside the pool) or FilerPoll. The loops of all
// nodes share the lanes through Postgres (one advisory lock per lane), so
// a node that dies leaves nothing behind: its batch rolls back and stays
// staged for the others.
type Filer struct {
	FilerDeps

	loops loops.Group
	wake  []chan struct{} // one per loop: poke's
}

// FilerDeps are a filer's collaborators.
type FilerDeps struct {
	Service *Service // files the staged texts
	// Connect opens the listening connection, and Channel is what it
	// listens on: the notification sent after a staged text commits.
	Connect func(ctx context.Context) (*pgx.Conn, error)
	Channel string
	Clock   clock.Clock
	Lag     prometheus.Observer // seconds from a text's callback to its filing; may be nil
	Log     *slog.Logger
}

// NewFiler returns the filer of d.Service's staged texts.
func NewFiler(d FilerDeps) *Filer {
	f := &Filer{FilerDeps: d, wake: make([]chan struct{}, FilerLoops)}
	for i := range f.wake {
		f.wake[i] = make(chan struct{}, 1)
	}
	return f
}

// Start starts the listener and the loops; they run until Stop.
func (f *Filer) Start() {
	fns := []func(context.Context){f.listen}
	for i := range FilerLoops {
		fns = append(fns, func(ctx context.Context) { f.run(ctx, i) })
	}
	f.loops.Start(fns...)
}

// Stop stops the loops (a batch in progress commits first) and the
// listener, or gives up when ctx ends.
func (f *Filer) Stop(ctx context.Context) error { return f.loops.Stop(ctx) }

// poke wakes every loop (a loop already awake looks again before waiting).
func (f *Filer) poke() {
	for _, w := range f.wake {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

// run is loop i: batches while there is work, then a wait.
func (f *Filer) run(ctx context.Context, i int) {
	first := i * Lanes / FilerLoops
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-f.wake[i]:
		}
		for ctx.Err() == nil {
			// A batch runs to its commit even when the node is stopping.
			received, err := f.Service.FileNext(context.WithoutCancel(ctx), first)
			if err != nil {
				f.Log.Warn("inbound filing failed; retrying", "loop", i, "err", err, "retry_in", filerRetry)
				select {
				case <-ctx.Done():
					return
				case <-time.After(filerRetry):
				}
				continue
			}
			if len(received) == 0 {
				break
			}
			if f.Lag != nil {
				now := f.Clock.Now()
				for _, at := range received {
					f.Lag.Observe(max(now.Sub(at), 0).Seconds())
				}
			}
			first = (first + 1) % Lanes
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(FilerPoll)
	}
}

// listen keeps a connection listening on Channel and pokes
// the loops at each notification (and once after each connect, for texts
// staged while it was down).
func (f *Filer) listen(ctx context.Context) {
	for ctx.Err() == nil {
		err := f.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		f.Log.Warn("inbound notifications lost; reconnecting", "err", err, "retry_in", filerRetry)
		select {
		case <-ctx.Done():
			return
		case <-time.After(filerRetry):
		}
	}
}

func (f *Filer) listenOnce(ctx context.Context) error {
	conn, err := f.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+f.Channel); err != nil {
		return err
	}
	f.poke()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		f.poke()
	}
}
