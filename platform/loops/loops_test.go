package loops_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/loops"
)

func TestGroupStartsOnceAndStopsEveryLoop(t *testing.T) {
	t.Parallel()
	var g loops.Group
	require.NoError(t, g.Stop(context.Background()), "stop before start")

	var running, ended atomic.Int32
	loop := func(ctx context.Context) {
		running.Add(1)
		<-ctx.Done()
		ended.Add(1)
	}
	require.True(t, g.Start(loop, loop, loop))
	require.False(t, g.Start(loop), "a second start starts nothing")
	require.Eventually(t, func() bool { return running.Load() == 3 }, 5*time.Second, time.Millisecond)
	require.Zero(t, ended.Load(), "the loops run until Stop")

	require.NoError(t, g.Stop(context.Background()))
	require.EqualValues(t, 3, ended.Load(), "Stop returns after every loop returned")
	require.NoError(t, g.Stop(context.Background()), "a second stop")
	require.False(t, g.Start(loop), "not restarted after Stop")
}

func TestGroupStopGivesUpWithItsContext(t *testing.T) {
	t.Parallel()
	var g loops.Group
	release := make(chan struct{})
	g.Start(func(context.Context) { <-release }) // ignores its context: a batch still committing
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, g.Stop(ctx), context.Canceled)
	close(release)
	require.NoError(t, g.Stop(context.Background()), "returns once the loop has")
}

func TestWaitEndsWithItsDurationOrItsContext(t *testing.T) {
	t.Parallel()
	require.True(t, loops.Wait(context.Background(), time.Nanosecond), "the duration passed")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.False(t, loops.Wait(ctx, time.Hour), "the context ended first")
}
