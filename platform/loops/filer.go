package loops

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/teamtext/teamtext/platform/clock"
)

// FilerLoops is how many filing loops each node runs: two lanes filed at
// once per node (a 2-CPU node is busy with two); more nodes add theirs, up
// to the lanes in all.
const FilerLoops = 2

// FilerPoll is the longest a loop waits before looking for staged work
// without a notification: it bounds how late an item is filed when a
// notification was missed (the listening connection was down).
const FilerPoll = time.Second

// filerRetry is how long a loop waits after a failed batch (Postgres away).
const filerRetry = time.Second

// Filer runs a node's filing loops over work that carrier callbacks stage
// in a table (inbound texts, delivery statuses) spread over lanes. Each
// loop files batches (File) while there is staged work in lanes no other
// filer holds, then waits for a notification (sent after a callback's
// commit, on any node: LISTEN on a connection of its own, outside the
// pool) or FilerPoll. The loops of all nodes share the lanes through
// Postgres (one advisory lock per lane, taken by File), so a node that
// dies leaves nothing behind: its batch rolls back and stays staged for
// the others.
type Filer struct {
	FilerDeps

	loops Group
	wake  []chan struct{} // one per loop: poke's
}

// FilerDeps are a filer's collaborators.
type FilerDeps struct {
	// Name is what the filer files, for its log lines ("inbound", "status").
	Name string
	// File files one batch of a lane's staged work in one transaction,
	// trying the lanes from first on, and returns when each item it took
	// was staged (none: no lane had work that another filer did not hold).
	File  func(ctx context.Context, first int) ([]time.Time, error)
	Lanes int
	// Gather is how long a loop waits once woken before it looks, so that
	// a burst's items are filed in fewer, larger batches; 0 files at once.
	Gather time.Duration
	// Connect opens the listening connection, and Channel is what it
	// listens on: the notification sent after staged work commits.
	Connect func(ctx context.Context) (*pgx.Conn, error)
	Channel string
	Clock   clock.Clock
	Lag     prometheus.Observer // seconds from an item's callback to its filing; may be nil
	Log     *slog.Logger
}

// NewFiler returns the filer of d.File's staged work.
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
	first := i * f.Lanes / FilerLoops
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-f.wake[i]:
		}
		if f.Gather > 0 && !Wait(ctx, f.Gather) {
			return
		}
		for ctx.Err() == nil {
			// A batch runs to its commit even when the node is stopping.
			received, err := f.File(context.WithoutCancel(ctx), first)
			if err != nil {
				f.Log.Warn(f.Name+" filing failed; retrying", "loop", i, "err", err, "retry_in", filerRetry)
				if !Wait(ctx, filerRetry) {
					return
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
			first = (first + 1) % f.Lanes
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
// the loops at each notification (and once after each connect, for work
// staged while it was down).
func (f *Filer) listen(ctx context.Context) {
	for ctx.Err() == nil {
		err := f.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		f.Log.Warn(f.Name+" notifications lost; reconnecting", "err", err, "retry_in", filerRetry)
		if !Wait(ctx, filerRetry) {
			return
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

// Batch files up to limit items staged in a lane in one transaction,
// trying the lanes from first on; it returns the items it took even when
// filing failed (and the transaction rolled back), and, when it succeeded,
// when each was staged.
type Batch[T any] func(ctx context.Context, first, limit int) (staged []time.Time, taken []T, err error)

// FileNext files one batch of up to size items with batch. A batch that
// fails is filed again item by item, each in its own transaction, so that
// an item that cannot be filed does not hold its lane: each failure of an
// item on its own goes to failed (which logs it and counts it on its
// staged row, so that after a few attempts it is set aside and no longer
// taken), and the lane moves on. It returns when each item filed was
// staged.
func FileNext[T any](ctx context.Context, first, size int, batch Batch[T], failed func(context.Context, T, error) error, log *slog.Logger) ([]time.Time, error) {
	staged, _, err := batch(ctx, first, size)
	if err == nil || ctx.Err() != nil {
		return staged, err
	}
	log.Warn("batch not filed; filing its items one by one", "err", err)
	staged = nil
	for range size {
		one, taken, err := batch(ctx, first, 1)
		if err == nil {
			if len(one) == 0 {
				break
			}
			staged = append(staged, one...)
			continue
		}
		if len(taken) == 0 || ctx.Err() != nil {
			return staged, err // not an item's fault (none taken): Postgres away
		}
		if nerr := failed(ctx, taken[0], err); nerr != nil {
			return staged, errors.Join(err, nerr)
		}
	}
	return staged, nil
}
