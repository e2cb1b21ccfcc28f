package db_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

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
