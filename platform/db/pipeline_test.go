package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/db"
)

// A pipeline's writes go in one round trip and commit or roll back
// together; it refuses reads and transactions, sends nothing when its
// function fails, and inside a transaction joins it.
func TestPipelineWritesTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := server.Migrated(t)
	_, err := d.SQLDB.ExecContext(ctx, `CREATE TABLE piped (v int PRIMARY KEY)`)
	require.NoError(t, err)
	insert := func(ctx context.Context, v int) error {
		return d.WithPgx(ctx, func(q db.PgxQuerier) error {
			_, err := q.Exec(ctx, `INSERT INTO piped VALUES ($1)`, v)
			return err
		})
	}
	values := func() []int {
		var vs []int
		rows, err := d.Pool.Query(ctx, `SELECT v FROM piped ORDER BY v`)
		require.NoError(t, err)
		defer rows.Close()
		for rows.Next() {
			var v int
			require.NoError(t, rows.Scan(&v))
			vs = append(vs, v)
		}
		require.NoError(t, rows.Err())
		return vs
	}

	cctx, stmts := db.WithStatementCounter(ctx)
	require.NoError(t, d.Pipeline(cctx, func(ctx context.Context) error {
		require.NoError(t, insert(ctx, 1))
		require.Empty(t, values(), "queued, not sent")
		return insert(ctx, 2)
	}))
	require.Equal(t, []int{1, 2}, values())
	require.EqualValues(t, 2, stmts.Count(), "each statement counts")

	err = d.Pipeline(ctx, func(ctx context.Context) error {
		require.NoError(t, insert(ctx, 3))
		return insert(ctx, 1) // a duplicate: the whole pipeline fails
	})
	require.Error(t, err)
	require.Equal(t, []int{1, 2}, values(), "3 rolled back with the failed statement after it")

	boom := errors.New("boom")
	err = d.Pipeline(ctx, func(ctx context.Context) error {
		require.NoError(t, insert(ctx, 4))
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, []int{1, 2}, values(), "nothing sent when fn fails")

	err = d.Pipeline(ctx, func(ctx context.Context) error {
		var n int
		err := d.WithPgx(ctx, func(q db.PgxQuerier) error { return q.QueryRow(ctx, `SELECT 1`).Scan(&n) })
		require.ErrorIs(t, err, db.ErrPipelineRead)
		err = d.WithPgx(ctx, func(q db.PgxQuerier) error { _, err := q.Query(ctx, `SELECT 1`); return err })
		require.ErrorIs(t, err, db.ErrPipelineRead)
		require.Error(t, d.Tx(ctx, func(context.Context) error { return nil }), "a transaction would not be part of the pipeline")
		return nil
	})
	require.NoError(t, err)

	err = d.Tx(ctx, func(ctx context.Context) error {
		require.NoError(t, d.Pipeline(ctx, func(ctx context.Context) error { return insert(ctx, 5) }))
		var n int
		require.NoError(t, d.WithPgx(ctx, func(q db.PgxQuerier) error {
			return q.QueryRow(ctx, `SELECT count(*) FROM piped WHERE v = 5`).Scan(&n)
		}))
		require.Equal(t, 1, n, "inside a transaction the pipeline runs in it at once")
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, []int{1, 2}, values(), "and rolls back with it")
}
