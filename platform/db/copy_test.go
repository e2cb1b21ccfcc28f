package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/db"
)

// TestCopyRowsReusesOneRow: CopyRows hands pgx the same []any for every
// row, and COPY still stores each row's own values (pgx encodes a row
// before it asks for the next), NULLs included.
func TestCopyRowsReusesOneRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := server.Migrated(t)
	_, err := d.SQLDB.ExecContext(ctx, `CREATE TABLE copied (i int, s text, at timestamptz, p text)`)
	require.NoError(t, err)
	at := time.Date(2026, 11, 24, 12, 0, 0, 123456000, time.UTC)
	const n = 5000 // several of COPY's 64 KiB messages
	var (
		first  []any
		others int
	)
	src := db.CopyRows(n, 4, func(row []any, i int) {
		var p *string
		if i%3 == 0 {
			s := fmt.Sprint("p", i)
			p = &s
		}
		row[0], row[1], row[2], row[3] = i, fmt.Sprint("s", i), at.Add(time.Duration(i)*time.Second), p
	})
	require.NoError(t, d.Tx(ctx, func(ctx context.Context) error {
		return db.PgxTx(ctx, func(tx pgx.Tx) error {
			_, err := tx.CopyFrom(ctx, pgx.Identifier{"copied"}, []string{"i", "s", "at", "p"}, reuseCheck{src, &first, &others})
			return err
		})
	}))
	require.Zero(t, others, "one row buffer for every row")
	rows, err := d.SQLDB.QueryContext(ctx, `SELECT i, s, at, p FROM copied ORDER BY i`)
	require.NoError(t, err)
	defer rows.Close()
	i := 0
	for rows.Next() {
		var (
			got  int
			s    string
			when time.Time
			p    *string
		)
		require.NoError(t, rows.Scan(&got, &s, &when, &p))
		require.Equal(t, i, got)
		require.Equal(t, fmt.Sprint("s", i), s)
		require.True(t, at.Add(time.Duration(i)*time.Second).Equal(when), "row %d: %s", i, when)
		if i%3 == 0 {
			require.NotNil(t, p)
			require.Equal(t, fmt.Sprint("p", i), *p)
		} else {
			require.Nil(t, p)
		}
		i++
	}
	require.NoError(t, rows.Err())
	require.Equal(t, n, i)
}

// reuseCheck counts the rows whose slice is not the first row's (pgx asks
// for rows on a goroutine of its own: no require there).
type reuseCheck struct {
	pgx.CopyFromSource
	first  *[]any
	others *int
}

func (r reuseCheck) Values() ([]any, error) {
	v, err := r.CopyFromSource.Values()
	if *r.first == nil {
		*r.first = v
	}
	if &(*r.first)[0] != &v[0] {
		*r.others++
	}
	return v, err
}
