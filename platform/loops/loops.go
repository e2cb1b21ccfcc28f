// Package loops runs a node's background loops: goroutines that start
// together, share one context, and stop together (messaging's hand-over
// dispatcher and its inbound filer). A loop owns its own waiting (timers,
// notifications); the group only owns their lifetime.
package loops

import (
	"context"
	"sync"
	"time"
)

// Group is a set of loops started once. Its zero value is ready to use.
type Group struct {
	mu      sync.Mutex
	started bool
	cancel  context.CancelFunc
	done    sync.WaitGroup
}

// Start runs each of fns in its own goroutine with a context that ends at
// Stop. Only the first call starts anything (a group is not restarted
// after Stop); it reports whether this call did.
func (g *Group) Start(fns ...func(ctx context.Context)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.started {
		return false
	}
	g.started = true
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel = cancel
	for _, fn := range fns {
		g.done.Add(1)
		go func() {
			defer g.done.Done()
			fn(ctx)
		}()
	}
	return true
}

// Stop ends the loops' context and waits for every loop to return, or
// gives up when ctx ends (a loop finishing its batch or pass keeps
// running). Stop before Start, or a second Stop, returns at once.
func (g *Group) Stop(ctx context.Context) error {
	g.mu.Lock()
	cancel := g.cancel
	g.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	stopped := make(chan struct{})
	go func() { g.done.Wait(); close(stopped) }()
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait waits for d, or until ctx ends; it reports whether d passed (a loop
// returns when it did not).
func Wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
