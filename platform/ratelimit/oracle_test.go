package ratelimit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// slidingLog is the limiter the ring replaced, kept as the property test's
// oracle: every admitted timestamp inside the largest window is logged, and
// a check counts them per rule. It runs on its own table on the same
// Postgres, with the statement it ran in production.
type slidingLog struct {
	pool  *pgxpool.Pool
	table string
}

const slidingLogCheck = `
WITH t AS (SELECT coalesce($2::timestamptz, clock_timestamp()) AS now)
INSERT INTO %[1]s AS r (bucket, hits, admitted)
SELECT $1, ARRAY[t.now], true FROM t
ON CONFLICT (bucket) DO UPDATE SET
    hits = CASE WHEN NOT EXISTS (
                SELECT 1 FROM unnest($3::int[], $4::bigint[]) AS rule(lim, win_us), t
                WHERE (SELECT count(*) FROM unnest(r.hits) h WHERE h > t.now - make_interval(secs => rule.win_us / 1e6)) >= rule.lim)
           THEN ARRAY(SELECT h FROM unnest(r.hits) h, t WHERE h > t.now - make_interval(secs => $5::bigint / 1e6) ORDER BY h) || (SELECT now FROM t)
           ELSE ARRAY(SELECT h FROM unnest(r.hits) h, t WHERE h > t.now - make_interval(secs => $5::bigint / 1e6) ORDER BY h)
           END,
    admitted = NOT EXISTS (
                SELECT 1 FROM unnest($3::int[], $4::bigint[]) AS rule(lim, win_us), t
                WHERE (SELECT count(*) FROM unnest(r.hits) h WHERE h > t.now - make_interval(secs => rule.win_us / 1e6)) >= rule.lim)
RETURNING r.admitted, r.hits, (SELECT now FROM t)`

func newSlidingLog(t *testing.T, pool *pgxpool.Pool) *slidingLog {
	t.Helper()
	table := "oracle_rate_limits"
	_, err := pool.Exec(context.Background(), fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
    bucket   text PRIMARY KEY,
    hits     timestamptz[] NOT NULL,
    admitted boolean NOT NULL)`, table))
	require.NoError(t, err)
	return &slidingLog{pool: pool, table: table}
}

func (o *slidingLog) Allow(ctx context.Context, bucket string, now time.Time, policy Policy) (Decision, error) {
	limits := make([]int32, len(policy))
	windows := make([]int64, len(policy))
	for i, r := range policy {
		limits[i], windows[i] = int32(r.Limit), r.Window.Microseconds()
	}
	var (
		admitted bool
		hits     []time.Time
		at       time.Time
	)
	err := o.pool.QueryRow(ctx, fmt.Sprintf(slidingLogCheck, o.table), bucket, now, limits, windows, policy.maxWindow().Microseconds()).
		Scan(&admitted, &hits, &at)
	if err != nil {
		return Decision{}, fmt.Errorf("oracle %s: %w", bucket, err)
	}
	return decide(policy, admitted, hits, at), nil
}

// TestRingMatchesSlidingLog: for random policies (one or two rules) and
// random arrivals, the ring and the sliding log give the same decision,
// the same remaining counts and resets, and the same Retry-After, hit by hit.
func TestRingMatchesSlidingLog(t *testing.T) {
	t.Parallel()
	l, b := setup(t)
	oracle := newSlidingLog(t, b.db.Pool)
	ctx := context.Background()
	run, checks, refused := 0, 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		bucket := fmt.Sprintf("prop-%d", run)
		policy := Policy{{Name: "a", Limit: rapid.IntRange(1, 12).Draw(rt, "limitA"),
			Window: time.Duration(rapid.IntRange(1, 90).Draw(rt, "windowA")) * time.Second}}
		if rapid.Bool().Draw(rt, "twoRules") {
			policy = append(policy, Rule{Name: "b", Limit: rapid.IntRange(1, 30).Draw(rt, "limitB"),
				Window: time.Duration(rapid.IntRange(1, 600).Draw(rt, "windowB")) * time.Second})
		}
		// Gaps in milliseconds, often zero (bursts) and sometimes whole windows.
		gaps := rapid.SliceOfN(rapid.OneOf(rapid.Just(0), rapid.IntRange(0, 2_000), rapid.IntRange(0, 120_000)), 20, 120).Draw(rt, "gaps")
		for i, gap := range gaps {
			b.clock.Advance(time.Duration(gap) * time.Millisecond)
			now := b.clock.Now()
			want, err := oracle.Allow(ctx, bucket, now, policy)
			require.NoError(rt, err)
			got, err := l.Allow(ctx, bucket, policy)
			require.NoError(rt, err)
			require.Equal(rt, want, got, "hit %d at %s", i, now)
			checks++
			if !got.Allowed {
				refused++
			}
			wp, ws := want.Headers()
			gp, gs := got.Headers()
			require.Equal(rt, wp+"|"+ws, gp+"|"+gs, "hit %d", i)
		}
	})
	t.Logf("%d checks compared over %d cases, %d refused", checks, run, refused)
}

// TestRingFromSlidingLogRow: a row the sliding log wrote (no pos) is
// rebuilt into a ring on its next check and keeps counting its hits.
func TestRingFromSlidingLogRow(t *testing.T) {
	t.Parallel()
	l, b := setup(t)
	ctx := context.Background()
	now := b.clock.Now()
	var log []string
	for i := 3; i >= 1; i-- {
		log = append(log, now.Add(-time.Duration(i)*time.Second).UTC().Format(time.RFC3339Nano))
	}
	_, err := b.db.Pool.Exec(ctx, `INSERT INTO platform_rate_limits (bucket, hits, admitted) VALUES ('legacy', $1::timestamptz[], true)`,
		"{"+strings.Join(log, ",")+"}")
	require.NoError(t, err)
	p := Policy{{Name: "r", Limit: 4, Window: time.Minute}}
	d, err := l.Allow(ctx, "legacy", p)
	require.NoError(t, err)
	require.True(t, d.Allowed, "three logged hits, limit four")
	require.Equal(t, 0, d.Rules[0].Remaining)
	d, err = l.Allow(ctx, "legacy", p)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.Equal(t, 57*time.Second, d.RetryAfter, "the oldest logged hit (t-3s) leaves at t+57s")
}

// TestRingSlots: a bucket keeps one row whose ring has exactly as many
// slots as the largest limit, however many hits arrive.
func TestRingSlots(t *testing.T) {
	t.Parallel()
	l, b := setup(t)
	ctx := context.Background()
	p := Policy{{Name: "r", Limit: 200, Window: time.Minute}}
	admitted := 0
	for i := 0; i < 1500; i++ { // 150 s at 10 a second
		d, err := l.Allow(ctx, "big", p)
		require.NoError(t, err)
		if d.Allowed {
			admitted++
		}
		b.clock.Advance(100 * time.Millisecond)
	}
	var slots, used int
	var pos int64
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT cardinality(hits), cardinality(array_remove(hits, NULL)), pos FROM platform_rate_limits WHERE bucket = 'big'`).
		Scan(&slots, &used, &pos))
	require.Equal(t, 200, slots)
	require.Equal(t, 200, used)
	require.Equal(t, 600, admitted, "200 per rolling minute: t=0-19.9 s, 60-79.9 s, 120-139.9 s")
	require.EqualValues(t, 200+admitted-1, pos, "the first hit sets pos to the ring's size")
}
