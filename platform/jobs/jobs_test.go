package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

type pingArgs struct{ N int }

func (pingArgs) Kind() string { return "test.ping" }

type otherArgs struct{}

func (otherArgs) Kind() string { return "test.other" }

type testBundle struct {
	db   *db.DB
	jobs *jobs.Jobs
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	d := server.Migrated(t, db.PlatformMigrations())
	j, err := jobs.New(d, clock.Real{}, slog.New(slog.DiscardHandler), jobs.Options{})
	require.NoError(t, err)
	return &testBundle{db: d, jobs: j}
}

// newRunner is a Runner of regs on j that works jobs, two at a time.
func newRunner(t *testing.T, j *jobs.Jobs, regs ...jobs.Registration) *jobs.Runner {
	t.Helper()
	r, err := jobs.NewRunner(j, regs, metrics.New(), jobs.Options{MaxWorkers: 2, RunWorkers: true, SoftStopTimeout: time.Second})
	require.NoError(t, err)
	return r
}

// startRunner starts r and stops it when the test ends.
func startRunner(t *testing.T, r *jobs.Runner) {
	t.Helper()
	require.NoError(t, r.Start(context.Background()))
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, r.Stop(stopCtx))
	})
}

// pings registers a worker of test.ping that sends each job's N to worked.
func pings(worked chan<- int) jobs.Registration {
	return func(w *river.Workers) {
		river.AddWorker(w, river.WorkFunc(func(_ context.Context, j *river.Job[pingArgs]) error {
			worked <- j.Args.N
			return nil
		}))
	}
}

func (b *testBundle) insert(ctx context.Context, args river.JobArgs) error {
	return b.db.Tx(ctx, func(ctx context.Context) error {
		_, err := b.jobs.Insert(ctx, args, nil)
		return err
	})
}

// TestRunnerWorksWhatTheInsertClientInserts: the insert client knows the
// kinds of the Runner built on it (an unknown kind fails at insert, as
// with one client), and the Runner works what it inserts.
func TestRunnerWorksWhatTheInsertClientInserts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)

	var unknown *river.UnknownJobKindError
	require.ErrorAs(t, b.insert(ctx, pingArgs{N: 1}), &unknown, "no worker handles test.ping yet")

	worked := make(chan int, 1)
	r := newRunner(t, b.jobs, pings(worked))
	startRunner(t, r)

	require.NoError(t, b.insert(ctx, pingArgs{N: 7}))
	select {
	case n := <-worked:
		require.Equal(t, 7, n)
	case <-time.After(30 * time.Second):
		t.Fatal("the runner did not work the job within 30 s")
	}
	require.ErrorAs(t, b.insert(ctx, otherArgs{}), &unknown, "a kind no registration added stays unknown")
}

// TestInsertNeedsATransaction: a job commits or rolls back with its data.
func TestInsertNeedsATransaction(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := jobs.NewRunner(b.jobs, []jobs.Registration{func(w *river.Workers) {
		river.AddWorker(w, river.WorkFunc(func(context.Context, *river.Job[pingArgs]) error { return nil }))
	}}, metrics.New(), jobs.Options{})
	require.NoError(t, err)
	_, err = b.jobs.Insert(context.Background(), pingArgs{}, nil)
	require.Error(t, err)

	rollback := errors.New("roll back")
	err = b.db.Tx(context.Background(), func(ctx context.Context) error {
		if _, err := b.jobs.Insert(ctx, pingArgs{N: 2}, nil); err != nil {
			return err
		}
		return rollback
	})
	require.ErrorIs(t, err, rollback)
	var n int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job`).Scan(&n))
	require.Zero(t, n, "the rolled-back job is gone")
}

// riverV041Schema is the last version of River's main migration line that
// River v0.41.0 shipped (v0.48.0 added 8, a no-op on Postgres).
const riverV041Schema = 7

// TestRiverSchemaOfTheLastVersionMigratesForward: a database River v0.41.0
// migrated (its main line at version 7), holding a job queued by then, is
// brought forward by this build's migrate (readiness counts the missing
// version until then), and the job is worked afterwards.
func TestRiverSchemaOfTheLastVersionMigratesForward(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, err := server.CreateDatabase(ctx, fmt.Sprintf("river_up_%d", os.Getpid()))
	require.NoError(t, err)
	d, err := db.Open(ctx, url, 10)
	require.NoError(t, err)
	t.Cleanup(d.Close)

	rm, err := rivermigrate.New(riverpgxv5.New(d.Pool), nil)
	require.NoError(t, err)
	_, err = rm.Migrate(ctx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{TargetVersion: riverV041Schema})
	require.NoError(t, err)
	version := func() int {
		var v int
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT max(version) FROM river_migration WHERE line = 'main'`).Scan(&v))
		return v
	}
	require.Equal(t, riverV041Schema, version())
	pending, err := db.Pending(ctx, d, nil)
	require.NoError(t, err)
	require.Positive(t, pending, "readiness sees River's newer migration missing")

	j, err := jobs.New(d, clock.Real{}, slog.New(slog.DiscardHandler), jobs.Options{})
	require.NoError(t, err)
	worked := make(chan int, 1)
	r := newRunner(t, j, pings(worked))
	require.NoError(t, d.Tx(ctx, func(ctx context.Context) error {
		_, err := j.Insert(ctx, pingArgs{N: 41}, nil)
		return err
	}), "a job queued while the schema is the old one")

	require.NoError(t, db.Migrate(ctx, d, []db.MigrationSet{db.PlatformMigrations()}, slog.New(slog.DiscardHandler)))
	require.Greater(t, version(), riverV041Schema)
	pending, err = db.Pending(ctx, d, []db.MigrationSet{db.PlatformMigrations()})
	require.NoError(t, err)
	require.Zero(t, pending)

	startRunner(t, r)
	select {
	case n := <-worked:
		require.Equal(t, 41, n, "the job queued before the upgrade")
	case <-time.After(30 * time.Second):
		t.Fatal("the job queued before the upgrade was not worked within 30 s")
	}
}

type snoozeArgs struct{}

func (snoozeArgs) Kind() string { return "test.snooze" }

// TestSnoozeFollowsTheTestClock: a job snoozed for an hour under a test
// clock standing a month ahead of the wall clock is scheduled an hour after
// the test clock's now (River v0.41 dated it by the wall clock, a month
// before the test clock's now, so it came due at once), and runs once the
// clock has moved past it.
func TestSnoozeFollowsTheTestClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := server.Migrated(t, db.PlatformMigrations())
	start := time.Now().Add(30 * 24 * time.Hour).Truncate(time.Second)
	clk := clock.NewFake(start)
	j, err := jobs.New(d, clk, slog.New(slog.DiscardHandler), jobs.Options{})
	require.NoError(t, err)
	var runs atomic.Int32
	r := newRunner(t, j, func(w *river.Workers) {
		river.AddWorker(w, river.WorkFunc(func(context.Context, *river.Job[snoozeArgs]) error {
			if runs.Add(1) == 1 {
				return river.JobSnooze(time.Hour)
			}
			return nil
		}))
	})
	startRunner(t, r)
	var id int64
	require.NoError(t, d.Tx(ctx, func(ctx context.Context) error {
		res, err := j.Insert(ctx, snoozeArgs{}, nil)
		if err == nil {
			id = res.Job.ID
		}
		return err
	}))
	row := func() (state string, at time.Time) {
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT state, scheduled_at FROM river_job WHERE id = $1`, id).Scan(&state, &at))
		return state, at
	}
	require.Eventually(t, func() bool { s, _ := row(); return s == "scheduled" }, 30*time.Second, 20*time.Millisecond, "snoozed")
	_, at := row()
	require.WithinDuration(t, start.Add(time.Hour), at, time.Minute, "the snooze is dated by the test clock")
	require.EqualValues(t, 1, runs.Load())
	clk.Advance(time.Hour + time.Second)
	require.Eventually(t, func() bool { s, _ := row(); return s == "completed" }, 30*time.Second, 50*time.Millisecond,
		"the snoozed job runs once the test clock passed its time")
}
