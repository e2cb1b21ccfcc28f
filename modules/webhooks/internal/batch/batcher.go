// Package batch gathers concurrent calls of the webhook delivery path into
// set-based statements: Batcher is the machinery, Deliveries applies it to
// the delivery worker's read (Work) and record (RecordSuccess). It is a
// performance component kept apart from the use cases and from the
// repository: the service sees Work and RecordSuccess, the repository
// offers the statements that take many calls' worth at once.
package batch

import (
	"context"
	"sync"
	"time"
)

// Batcher runs concurrent calls of one kind of statement together: calls
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
type Batcher[In, Out any] struct {
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

// New returns a batcher running run, with the delivery path's limits: at
// most 64 calls a batch, 4 batches in flight, 30 s a batch.
func New[In, Out any](run func(ctx context.Context, in []In) ([]Out, error)) *Batcher[In, Out] {
	return &Batcher[In, Out]{run: run, maxBatch: batchMax, maxRunning: batchRunning, timeout: batchTimeout}
}

// Do queues in, makes sure a batch will take it, and waits for its result.
func (b *Batcher[In, Out]) Do(ctx context.Context, in In) (Out, error) {
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
func (b *Batcher[In, Out]) loop() {
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

func (b *Batcher[In, Out]) runBatch(batch []*call[In, Out]) {
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
