package retention

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/id"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

type testBundle struct {
	db    *db.DB
	clock *clock.Fake
}

// setup makes two tables of platform/id ids, a parent whose children go
// with it (as webhook attempts go with their delivery).
func setup(t *testing.T) (*Worker, *testBundle) {
	t.Helper()
	d := server.Migrated(t)
	_, err := d.Pool.Exec(context.Background(), `
CREATE TABLE parents (id text PRIMARY KEY, note text NOT NULL DEFAULT '');
CREATE TABLE children (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, parent_id text NOT NULL REFERENCES parents (id) ON DELETE CASCADE);
CREATE TABLE others (id text PRIMARY KEY)`)
	require.NoError(t, err)
	clk := clock.NewFake(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	w := &Worker{Pool: d.Pool, Clock: clk, Batch: 7,
		Targets: []Target{{Table: "parents", IDPrefix: "par", Keep: 30 * 24 * time.Hour}, {Table: "others", IDPrefix: "oth", Keep: 0}}}
	return w, &testBundle{db: d, clock: clk}
}

// idAt is an id platform/id would have made at t.
func idAt(prefix string, t time.Time, n int) string {
	return fmt.Sprintf("%s_%012x%020x", prefix, t.UnixMilli(), n)
}

func count(t *testing.T, b *testBundle, sql string) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), sql).Scan(&n))
	return n
}

func TestPruneDeletesOnlyPastRetentionInBatches(t *testing.T) {
	t.Parallel()
	w, b := setup(t)
	ctx := context.Background()
	now := b.clock.Now()
	// 50 rows a day for 40 days (one child each), and 10 rows in "others".
	for day := 0; day < 40; day++ {
		for n := 0; n < 50; n++ {
			pid := idAt("par", now.Add(-time.Duration(day)*24*time.Hour-time.Minute), n)
			_, err := b.db.Pool.Exec(ctx, `WITH p AS (INSERT INTO parents (id) VALUES ($1) RETURNING id) INSERT INTO children (parent_id) SELECT id FROM p`, pid)
			require.NoError(t, err)
		}
	}
	for n := 0; n < 10; n++ {
		_, err := b.db.Pool.Exec(ctx, `INSERT INTO others (id) VALUES ($1)`, idAt("oth", now.Add(-400*24*time.Hour), n))
		require.NoError(t, err)
	}

	deleted, err := w.Prune(ctx)
	require.NoError(t, err)
	// Days 30..39 are older than 30 days (each row is a minute older than its day).
	require.Equal(t, map[string]int64{"parents": 500}, deleted, "in batches of 7: the last one short")
	require.Equal(t, 1500, count(t, b, `SELECT count(*) FROM parents`))
	require.Equal(t, 1500, count(t, b, `SELECT count(*) FROM children`), "children went with their parents")
	require.Equal(t, 0, count(t, b, fmt.Sprintf(`SELECT count(*) FROM parents WHERE id < '%s'`, CutoffID("par", now.Add(-30*24*time.Hour)))))
	require.Equal(t, 10, count(t, b, `SELECT count(*) FROM others`), "Keep 0 keeps forever")

	// Nothing more to do: a second pass deletes nothing.
	deleted, err = w.Prune(ctx)
	require.NoError(t, err)
	require.Empty(t, deleted["parents"])

	// A day later, one more day's rows go.
	b.clock.Set(now.Add(24 * time.Hour))
	deleted, err = w.Prune(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 50, deleted["parents"])
}

// TestPruneSkipsLockedRows: a row another transaction holds is passed over,
// not waited for; the next pass takes it.
func TestPruneSkipsLockedRows(t *testing.T) {
	t.Parallel()
	w, b := setup(t)
	ctx := context.Background()
	old := b.clock.Now().Add(-60 * 24 * time.Hour)
	for n := 0; n < 20; n++ {
		_, err := b.db.Pool.Exec(ctx, `INSERT INTO parents (id) VALUES ($1)`, idAt("par", old, n))
		require.NoError(t, err)
	}
	tx, err := b.db.Pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `UPDATE parents SET note = 'busy' WHERE id = $1`, idAt("par", old, 3))
	require.NoError(t, err)

	deleted, err := w.Prune(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 19, deleted["parents"])
	require.NoError(t, tx.Commit(ctx))
	deleted, err = w.Prune(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, deleted["parents"])
	require.Equal(t, 0, count(t, b, `SELECT count(*) FROM parents`))
}

// TestCutoffIDMatchesPlatformIDs: ids made before t sort below CutoffID(t),
// ids made after do not.
func TestCutoffIDMatchesPlatformIDs(t *testing.T) {
	t.Parallel()
	before := time.Now().Add(-time.Millisecond)
	made := id.New("dlv")
	after := time.Now().Add(time.Millisecond)
	require.Less(t, CutoffID("dlv", before), made)
	require.Less(t, made, CutoffID("dlv", after))
	require.Equal(t, "dlv_000000000000", CutoffID("dlv", time.Unix(0, 0)))
}
