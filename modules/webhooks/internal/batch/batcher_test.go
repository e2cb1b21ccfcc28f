package batch

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const (
	timeout = 10 * time.Second
	tick    = time.Millisecond
)

// gatedBatcher's first batch waits for release, so that later calls queue
// behind it; it records the batches it ran.
type gatedBatcher struct {
	b       *Batcher[int, int]
	release chan struct{}
	mu      sync.Mutex
	batches [][]int
	fail    error
}

func newGated(maxRunning int) *gatedBatcher {
	g := &gatedBatcher{release: make(chan struct{})}
	g.b = New(func(_ context.Context, in []int) ([]int, error) {
		g.mu.Lock()
		first := len(g.batches) == 0
		g.batches = append(g.batches, append([]int(nil), in...))
		fail := g.fail
		g.mu.Unlock()
		if first {
			<-g.release
		}
		if fail != nil {
			return nil, fail
		}
		out := make([]int, len(in))
		for i, v := range in {
			out[i] = v * 10
		}
		return out, nil
	})
	g.b.maxRunning = maxRunning
	return g
}

func (g *gatedBatcher) queued() int {
	g.b.mu.Lock()
	defer g.b.mu.Unlock()
	return len(g.b.queue)
}

func (g *gatedBatcher) ran() [][]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.batches
}

// TestBatcherGathersQueuedCalls: calls made while a batch runs go together
// into the next one, each gets its own result, and no more than
// maxRunning batches run at once.
func TestBatcherGathersQueuedCalls(t *testing.T) {
	g := newGated(1)
	g.b.maxBatch = 4
	ctx := context.Background()
	results := make([]int, 11)
	var wg sync.WaitGroup
	wg.Go(func() { results[0], _ = g.b.Do(ctx, 0) })
	require.Eventually(t, func() bool { return len(g.ran()) == 1 }, timeout, tick, "the first call runs at once, alone")
	for i := 1; i <= 10; i++ {
		wg.Go(func() {
			v, err := g.b.Do(ctx, i)
			require.NoError(t, err)
			results[i] = v
		})
	}
	require.Eventually(t, func() bool { return g.queued() == 10 }, timeout, tick)
	require.Len(t, g.ran(), 1, "one batch in flight at most")
	close(g.release)
	wg.Wait()
	for i, v := range results {
		require.Equal(t, i*10, v)
	}
	batches := g.ran()
	require.Len(t, batches, 4, "the first alone, then the ten queued in batches of at most 4")
	var seen []int
	for _, b := range batches[1:] {
		require.LessOrEqual(t, len(b), 4)
		seen = append(seen, b...)
	}
	require.ElementsMatch(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, seen)
	require.Eventually(t, func() bool {
		g.b.mu.Lock()
		defer g.b.mu.Unlock()
		return g.b.running == 0
	}, timeout, tick, "no batch loop left once the queue is empty")
}

// TestBatcherErrors: a batch's error is every call's in it; a call whose
// context ends stops waiting.
func TestBatcherErrors(t *testing.T) {
	g := newGated(1)
	boom := errors.New("boom")
	g.fail = boom
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range 3 {
		wg.Go(func() { _, errs[i] = g.b.Do(context.Background(), i) })
	}
	ctx, cancel := context.WithCancel(context.Background())
	var ctxErr error
	wg.Go(func() { _, ctxErr = g.b.Do(ctx, 99) })
	require.Eventually(t, func() bool { return len(g.ran()) == 1 && g.queued()+len(g.ran()[0]) == 4 }, timeout, tick)
	cancel()
	close(g.release)
	wg.Wait()
	for _, err := range errs {
		require.ErrorIs(t, err, boom)
	}
	require.ErrorIs(t, ctxErr, context.Canceled)
}
