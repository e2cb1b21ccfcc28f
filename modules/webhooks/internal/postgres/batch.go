package postgres

import (
	"context"
	"sync"
	"time"
)

// batcher runs concurrent calls of one kind of statement together: calls
// made while up to maxRunning batches are in flight wait in a queue, and
// the next batch takes everything queued (up to maxBatch) into one
// statement. No call waits for a timer: on an idle database a call runs at
// once, alone; under load batches grow by themselves, and round trips,
// statements and commits per call shrink. The delivery worker's read and
// record go through one each (River runs up to WEBHOOK_WORKERS attempts at once).
//
// A batch runs on a context of its own (calls share it), so a call whose
// context ends stops waiting but its statement may still run: callers use
// it only for statements that are safe to run again (the attempt's read, and
// its record, which is conditional on the delivery's state).
type batcher[In, Out any] struct {
	run        func(ctx context.Context, in []In) ([]Out, error) // one Out per In, in order
	maxBatch   int
	maxRunning int
	timeout    time.Duration // of one batch

	mu      sync.Mutex
	queue   []*call[In, Out]
	running int
}

type call[In, Out any] struct {
	in   In
	out  Out
	err  error
	done chan struct{}
}

// Defaults of the delivery path's batchers.
const (
	batchMax     = 64               // batchRunning batches of it hold WEBHOOK_WORKERS' default, 200
	batchRunning = 4                // statements in flight per batcher, of the pool's connections
	batchTimeout = 30 * time.Second // as the delivery job's
)

func newBatcher[In, Out any](run func(ctx context.Context, in []In) ([]Out, error)) *batcher[In, Out] {
	return &batcher[In, Out]{run: run, maxBatch: batchMax, maxRunning: batchRunning, timeout: batchTimeout}
}

// do queues in, makes sure a batch will take it, and waits for its result.
func (b *batcher[In, Out]) do(ctx context.Context, in In) (Out, error) {
	c := &call[In, Out]{in: in, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, c)
	start := b.running < b.maxRunning
	if start {
		b.running++
	}
	b.mu.Unlock()
	if start {
		go b.loop()
	}
	select {
	case <-c.done:
		return c.out, c.err
	case <-ctx.Done():
		var zero Out
		return zero, ctx.Err()
	}
}

// loop runs batches until the queue is empty.
func (b *batcher[In, Out]) loop() {
	for {
		b.mu.Lock()
		n := min(len(b.queue), b.maxBatch)
		if n == 0 {
			b.running--
			b.mu.Unlock()
			return
		}
		batch := b.queue[:n:n]
		b.queue = append([]*call[In, Out](nil), b.queue[n:]...)
		b.mu.Unlock()
		b.runBatch(batch)
	}
}

func (b *batcher[In, Out]) runBatch(batch []*call[In, Out]) {
	ins := make([]In, len(batch))
	for i, c := range batch {
		ins[i] = c.in
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	outs, err := b.run(ctx, ins)
	cancel()
	for i, c := range batch {
		if err != nil {
			c.err = err
		} else {
			c.out = outs[i]
		}
		close(c.done)
	}
}

// padded returns the length a batch statement's argument arrays are
// padded to (with NULLs, which match no row): at least batchMinRows. The
// planner estimates an array argument at 10 elements in the plan it caches
// for a prepared statement, and at its real length in a plan made for the
// arguments at hand; with fewer than 10 the latter always looks cheaper, so
// Postgres would plan every run afresh. From 10 up, it keeps the cached plan.
func padded(n int) int { return max(n, batchMinRows) }

const batchMinRows = 10
