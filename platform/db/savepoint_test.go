package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/db"
)

// A failed savepoint undoes its own writes only: the writes before it and
// after it commit with the transaction; a nested one of the same name
// rolls back to the inner savepoint alone.
func TestSavepointUndoesOnlyItsOwnWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := server.Migrated(t)
	_, err := d.SQLDB.ExecContext(ctx, `CREATE TABLE sp (v int)`)
	require.NoError(t, err)
	insert := func(ctx context.Context, v int) error {
		_, err := d.IDB(ctx).ExecContext(ctx, `INSERT INTO sp VALUES (?)`, v)
		return err
	}
	values := func() []int {
		var vs []int
		require.NoError(t, d.Bun.NewSelect().Table("sp").Column("v").Order("v").Scan(ctx, &vs))
		return vs
	}

	require.Error(t, db.Savepoint(ctx, "outside", func(ctx context.Context) error { return nil }), "no transaction to save a point in")

	refused := errors.New("refused")
	require.NoError(t, d.Tx(ctx, func(ctx context.Context) error {
		require.NoError(t, insert(ctx, 1))
		err := d.Savepoint(ctx, "step", func(ctx context.Context) error {
			require.NoError(t, insert(ctx, 2))
			return refused
		})
		require.ErrorIs(t, err, refused, "fn's error comes back as it was")
		require.NoError(t, db.Savepoint(ctx, "step", func(ctx context.Context) error {
			require.NoError(t, insert(ctx, 3))
			inner := db.Savepoint(ctx, "step", func(ctx context.Context) error {
				require.NoError(t, insert(ctx, 4))
				return refused
			})
			require.ErrorIs(t, inner, refused)
			return nil // the outer step goes on without the inner one's write
		}))
		return insert(ctx, 5)
	}))
	require.Equal(t, []int{1, 3, 5}, values())
}
