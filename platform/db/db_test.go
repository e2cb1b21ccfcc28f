package db_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

func count(t *testing.T, d *db.DB) int {
	t.Helper()
	var n int
	require.NoError(t, d.SQLDB.QueryRowContext(context.Background(), `SELECT count(*) FROM joined`).Scan(&n))
	return n
}

// PgxTx is the use case's own transaction seen through pgx: what runs on
// it commits and rolls back with the bun writes, it cannot end the
// transaction itself, and its nested Begin is a savepoint.
func TestPgxTxJoinsTheTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := server.Migrated(t)
	_, err := d.SQLDB.ExecContext(ctx, `CREATE TABLE joined (v int)`)
	require.NoError(t, err)
	insert := func(ctx context.Context, v int) error {
		return db.PgxTx(ctx, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO joined VALUES ($1)`, v)
			return err
		})
	}

	require.Error(t, insert(ctx, 0), "outside a transaction there is nothing to join")

	boom := errors.New("boom")
	err = d.Tx(ctx, func(ctx context.Context) error {
		_, err := d.IDB(ctx).ExecContext(ctx, `INSERT INTO joined VALUES (1)`)
		require.NoError(t, err)
		require.NoError(t, insert(ctx, 2))
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, 0, count(t, d), "both writes rolled back together")

	err = d.Tx(ctx, func(ctx context.Context) error {
		_, err := d.IDB(ctx).ExecContext(ctx, `INSERT INTO joined VALUES (1)`)
		require.NoError(t, err)
		require.NoError(t, insert(ctx, 2))
		return db.PgxTx(ctx, func(tx pgx.Tx) error {
			require.Error(t, tx.Commit(ctx), "db.Tx commits, not the joined view")
			require.Error(t, tx.Rollback(ctx), "db.Tx rolls back, not the joined view")
			sp, err := tx.Begin(ctx)
			require.NoError(t, err)
			_, err = sp.Exec(ctx, `INSERT INTO joined VALUES (3)`)
			require.NoError(t, err)
			require.NoError(t, sp.Rollback(ctx), "a nested Begin is a savepoint")
			return nil
		})
	})
	require.NoError(t, err)
	require.Equal(t, 2, count(t, d), "both writes committed together; the savepoint's write was rolled back")
	var inTx bool
	require.NoError(t, d.SQLDB.QueryRowContext(ctx, `SELECT count(*) = 0 FROM pg_stat_activity WHERE state = 'idle in transaction' AND datname = current_database()`).Scan(&inTx))
	require.True(t, inTx, "no connection left inside a transaction")
}

// deadlock runs two transactions that lock rows 1 and 2 of table locks in
// opposite orders. The first runs through run and, on its first try, waits
// for row 2 only once the other waits for row 1, with a short
// deadlock_timeout, so it is the one whose deadlock check finds the cycle
// and aborts (Postgres aborts the transaction that detects it); later tries
// just update both rows. It returns the
// first transaction's error and how many times it ran.
func deadlock(t *testing.T, d *db.DB, run func(context.Context, func(context.Context) error) error) (error, int) {
	t.Helper()
	ctx := context.Background()
	_, err := d.SQLDB.ExecContext(ctx, `CREATE TABLE locks (id int PRIMARY KEY, v int NOT NULL); INSERT INTO locks VALUES (1, 0), (2, 0)`)
	require.NoError(t, err)
	exec := func(ctx context.Context, q string) error {
		_, err := d.IDB(ctx).ExecContext(ctx, q)
		return err
	}
	firstHolds, secondHolds := make(chan struct{}), make(chan struct{})
	tries := 0
	victim := run(ctx, func(ctx context.Context) error {
		tries++
		if tries > 1 {
			// Row 2 first, as the other side takes them: this waits for the
			// other side to commit without holding row 1 meanwhile (updating
			// both at once could take row 1 before the other side, slowed by
			// a busy machine, has it, and deadlock again).
			if err := exec(ctx, `UPDATE locks SET v = v + 1 WHERE id = 2`); err != nil {
				return err
			}
			return exec(ctx, `UPDATE locks SET v = v + 1 WHERE id = 1`)
		}
		if err := exec(ctx, `SET LOCAL deadlock_timeout = '50ms'`); err != nil {
			return err
		}
		if err := exec(ctx, `UPDATE locks SET v = v + 1 WHERE id = 1`); err != nil {
			return err
		}
		close(firstHolds)
		second := make(chan error, 1)
		go func() {
			second <- d.Tx(context.Background(), func(ctx context.Context) error { // a transaction of its own
				if err := exec(ctx, `SET LOCAL deadlock_timeout = '1min'`); err != nil {
					return err
				}
				if err := exec(ctx, `UPDATE locks SET v = v + 10 WHERE id = 2`); err != nil {
					return err
				}
				close(secondHolds)
				return exec(ctx, `UPDATE locks SET v = v + 10 WHERE id = 1`) // waits for the first
			})
		}()
		<-secondHolds
		// Once the other is queued behind row 1, waiting for row 2 closes
		// the cycle before this side's deadlock check runs.
		for {
			var waiting int
			err := d.IDB(ctx).QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).Scan(&waiting)
			if err != nil {
				return err
			}
			if waiting > 0 {
				break
			}
		}
		err := exec(ctx, `UPDATE locks SET v = v + 1 WHERE id = 2`) // the cycle: this one is aborted
		t.Cleanup(func() { require.NoError(t, <-second, "the other side commits") })
		return err
	})
	<-firstHolds
	return victim, tries
}

// TestTxRetryOnDeadlock: a transaction Postgres aborts as a deadlock's
// victim runs again under TxRetry and commits; under Tx the same deadlock
// is returned to the caller.
func TestTxRetryOnDeadlock(t *testing.T) {
	t.Parallel()
	t.Run("Tx", func(t *testing.T) {
		t.Parallel()
		d := server.Migrated(t)
		err, tries := deadlock(t, d, d.Tx)
		require.True(t, db.IsDeadlock(err), "the scenario deadlocks: %v", err)
		require.Equal(t, 1, tries)
	})
	t.Run("TxRetry", func(t *testing.T) {
		t.Parallel()
		d := server.Migrated(t)
		err, tries := deadlock(t, d, d.TxRetry)
		require.NoError(t, err)
		require.Equal(t, 2, tries)
		t.Cleanup(func() { // after the other side's commit (registered earlier, runs first)
			var sum int
			require.NoError(t, d.SQLDB.QueryRow(`SELECT sum(v) FROM locks`).Scan(&sum))
			require.Equal(t, 22, sum, "the other side's two updates and the retry's two")
		})
	})
	t.Run("JoinsAnOuterTransaction", func(t *testing.T) {
		t.Parallel()
		d := server.Migrated(t)
		outer := errors.New("outer")
		runs := 0
		err := d.Tx(context.Background(), func(ctx context.Context) error {
			return d.TxRetry(ctx, func(ctx context.Context) error {
				runs++
				_, ok := db.TxFrom(ctx)
				require.True(t, ok)
				return outer
			})
		})
		require.ErrorIs(t, err, outer)
		require.Equal(t, 1, runs, "no retry inside a transaction it does not own")
	})
}

// widened is a row type from before a migration added a column.
type widened struct {
	bun.BaseModel `bun:"table:widened"`
	ID            int    `bun:"id,pk"`
	Name          string `bun:"name"`
}

// TestPreviousBuildReadsWidenedRows: a build whose row type predates a
// column the newest migrations added still reads and returns its rows
// (RETURNING * included), as a rolling upgrade needs.
func TestPreviousBuildReadsWidenedRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := server.Migrated(t)
	_, err := d.SQLDB.ExecContext(ctx, `CREATE TABLE widened (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO widened VALUES (1, 'a');
ALTER TABLE widened ADD COLUMN added text DEFAULT 'new'`)
	require.NoError(t, err)
	w := &widened{ID: 1}
	_, err = d.Bun.NewUpdate().Model(w).Set("name = 'b'").WherePK().Returning("*").Exec(ctx)
	require.NoError(t, err)
	require.Equal(t, "b", w.Name)
	var ws []widened
	require.NoError(t, d.Bun.NewRaw(`SELECT * FROM widened`).Scan(ctx, &ws))
	require.Equal(t, []widened{{ID: 1, Name: "b"}}, ws)
}

// WithoutTx: inside a transaction, a statement run with WithoutTx's
// context does not see the transaction's uncommitted writes (it runs on
// the pool), while the transaction's own context does.
func TestWithoutTxLeavesTheTransaction(t *testing.T) {
	t.Parallel()
	d := server.Migrated(t)
	ctx := context.Background()
	_, err := d.SQLDB.Exec(`CREATE TABLE wt (v int)`)
	require.NoError(t, err)
	err = d.Tx(ctx, func(ctx context.Context) error {
		if _, err := d.SQL(ctx).ExecContext(ctx, `INSERT INTO wt VALUES (1)`); err != nil {
			return err
		}
		var inTx, outside int
		require.NoError(t, d.SQL(ctx).QueryRowContext(ctx, `SELECT count(*) FROM wt`).Scan(&inTx))
		out := db.WithoutTx(ctx)
		_, ok := db.TxFrom(out)
		require.False(t, ok)
		require.NoError(t, d.SQL(out).QueryRowContext(out, `SELECT count(*) FROM wt`).Scan(&outside))
		require.Equal(t, 1, inTx)
		require.Zero(t, outside, "the pool does not see the open transaction's write")
		return nil
	})
	require.NoError(t, err)
}
