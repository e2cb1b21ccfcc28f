package ratelimit

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

type testBundle struct {
	clock *clock.Fake
	db    *db.DB
}

func setup(t *testing.T) (*Limiter, *testBundle) {
	t.Helper()
	d := server.Migrated(t, db.PlatformMigrations())
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	return New(d.Pool, clk), &testBundle{clock: clk, db: d}
}

func TestAllowCountsWithinWindow(t *testing.T) {
	t.Parallel()
	l, b := setup(t)
	ctx := context.Background()
	p := Policy{{Name: "requests", Limit: 3, Window: time.Minute}}
	for i := 0; i < 3; i++ {
		d, err := l.Allow(ctx, "k", p)
		require.NoError(t, err)
		require.True(t, d.Allowed, "hit %d", i)
		require.Equal(t, 2-i, d.Rules[0].Remaining)
		b.clock.Advance(10 * time.Second)
	}
	d, err := l.Allow(ctx, "k", p)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.Equal(t, 30*time.Second, d.RetryAfter, "the first hit (t=0) leaves the window at t=60; now is t=30")
	require.Equal(t, "30", d.RetryAfterSeconds())

	b.clock.Advance(30 * time.Second) // t=60: the t=0 hit is out; t=10 and t=20 remain
	d, err = l.Allow(ctx, "k", p)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	d, err = l.Allow(ctx, "k", p)
	require.NoError(t, err)
	require.False(t, d.Allowed, "still three in (t=0, t=60]")

	// Other buckets are independent.
	d, err = l.Allow(ctx, "other", p)
	require.NoError(t, err)
	require.True(t, d.Allowed)
}

// TestNoDoubleBurst: a token bucket admits 2N across a window boundary; a
// sliding log never admits more than N in any 60 s.
func TestNoDoubleBurst(t *testing.T) {
	t.Parallel()
	l, b := setup(t)
	ctx := context.Background()
	p := Policy{{Name: "r", Limit: 5, Window: time.Minute}}
	var admitted []time.Time
	for step := 0; step < 240; step++ { // 4 minutes in 1 s steps, 3 tries a second
		for i := 0; i < 3; i++ {
			d, err := l.Allow(ctx, "burst", p)
			require.NoError(t, err)
			if d.Allowed {
				admitted = append(admitted, b.clock.Now())
			}
		}
		b.clock.Advance(time.Second)
	}
	for i := range admitted {
		n := 0
		for _, a := range admitted[i:] {
			if a.Sub(admitted[i]) < time.Minute {
				n++
			}
		}
		require.LessOrEqual(t, n, 5, "window starting %s", admitted[i])
	}
	require.Len(t, admitted, 20, "5 per rolling minute over 4 minutes")
}

func TestMultiRulePolicy(t *testing.T) {
	t.Parallel()
	l, b := setup(t)
	ctx := context.Background()
	p := Policy{{Name: "sends-minute", Limit: 2, Window: time.Minute}, {Name: "sends-hour", Limit: 3, Window: time.Hour}}
	allow := func() Decision {
		d, err := l.Allow(ctx, "sends", p)
		require.NoError(t, err)
		return d
	}
	require.True(t, allow().Allowed)
	require.True(t, allow().Allowed)
	d := allow()
	require.False(t, d.Allowed)
	require.Equal(t, time.Minute, d.RetryAfter)
	b.clock.Advance(61 * time.Second)
	require.True(t, allow().Allowed)
	b.clock.Advance(61 * time.Second)
	d = allow()
	require.False(t, d.Allowed, "the hourly rule is full")
	require.Equal(t, time.Hour-122*time.Second, d.RetryAfter)
	pol, st := d.Headers()
	require.Equal(t, `"sends-minute";q=2;w=60, "sends-hour";q=3;w=3600`, pol)
	require.Equal(t, `"sends-minute";r=2;t=0, "sends-hour";r=0;t=3478`, st)
}

// TestConcurrentCallersAcrossPools: many goroutines on separate pools (as
// separate nodes would be) admit exactly the limit.
func TestConcurrentCallersAcrossPools(t *testing.T) {
	t.Parallel()
	l, b := setup(t)
	other := New(b.db.Pool, b.clock)
	ctx := context.Background()
	p := Policy{{Name: "requests", Limit: 120, Window: time.Minute}}
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 30; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			lim := l
			if w%2 == 1 {
				lim = other
			}
			for i := 0; i < 10; i++ {
				d, err := lim.Allow(ctx, "shared", p)
				if err != nil {
					panic(fmt.Sprintf("allow: %v", err))
				}
				if d.Allowed {
					ok.Add(1)
				} else {
					refused.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	require.EqualValues(t, 120, ok.Load())
	require.EqualValues(t, 180, refused.Load())
}

func TestInvalidRule(t *testing.T) {
	t.Parallel()
	l, _ := setup(t)
	_, err := l.Allow(context.Background(), "x", Policy{{Name: "bad", Limit: 0, Window: time.Minute}})
	require.Error(t, err)
}

func TestDecideWithoutHits(t *testing.T) {
	t.Parallel()
	d := decide(Policy{{Name: "r", Limit: 2, Window: time.Minute}}, true, nil, time.Now())
	require.True(t, d.Allowed)
	require.Equal(t, 2, d.Rules[0].Remaining)
	_, st := d.Headers()
	require.Equal(t, `"r";r=2;t=0`, st)
}

func TestSweepRemovesIdleBuckets(t *testing.T) {
	t.Parallel()
	l, b := setup(t)
	ctx := context.Background()
	p := Policy{{Name: "r", Limit: 5, Window: time.Minute}}
	_, err := l.Allow(ctx, "old", p)
	require.NoError(t, err)
	b.clock.Advance(2 * time.Hour)
	_, err = l.Allow(ctx, "fresh", p)
	require.NoError(t, err)
	n, err := l.Sweep(ctx, time.Hour)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	var buckets []string
	rows, err := b.db.Pool.Query(ctx, `SELECT bucket FROM platform_rate_limits`)
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		buckets = append(buckets, s)
	}
	require.Equal(t, []string{"fresh"}, buckets)
}

// TestRingsWriteNoWAL: the rings live in an unlogged table (a check's
// commit waits for no WAL flush), and the migrations that make it so run
// again without harm.
func TestRingsWriteNoWAL(t *testing.T) {
	t.Parallel()
	_, b := setup(t)
	ctx := context.Background()
	persistence := func() string {
		var p string
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT relpersistence::text FROM pg_class WHERE relname = 'platform_rate_limits'`).Scan(&p))
		return p
	}
	require.Equal(t, "u", persistence())
	_, err := b.db.Pool.Exec(ctx, `ALTER TABLE platform_rate_limits SET UNLOGGED`)
	require.NoError(t, err)
	require.Equal(t, "u", persistence())
}
