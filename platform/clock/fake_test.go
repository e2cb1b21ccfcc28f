package clock_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/clock"
)

func TestFake(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("X", 3600))
	f := clock.NewFake(at)
	var _ clock.Clock = f
	require.True(t, f.Now().Equal(at))
	require.Equal(t, time.UTC, f.NowOrNil().Location(), "River gets UTC")
	require.True(t, f.NowOrNil().Equal(at))

	f.Advance(90 * time.Second)
	require.True(t, f.Now().Equal(at.Add(90*time.Second)))
	f.Set(at.Add(-time.Hour))
	require.True(t, f.Now().Equal(at.Add(-time.Hour)), "Set moves backwards too")

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { f.Advance(time.Second); _ = f.Now() })
	}
	wg.Wait()
	require.True(t, f.Now().Equal(at.Add(-time.Hour+8*time.Second)))
}
