package db

import "github.com/jackc/pgx/v5"

// CopyRows is a pgx.CopyFromSource over n rows of width values, fill
// writing row i's values into row: one []any for every row, where
// pgx.CopyFromSlice's callback returns a fresh one per row (an import's
// 100,000 members, their groups, values, consent events and member.joined
// events made half a million of those slices). The buffer is reused safely
// because pgx encodes a row's values into its send buffer before it asks
// for the next row: pgx v5.12.0 copy_from.go, copyFrom.buildCopyBuf calls
// rowSrc.Values() and encodeCopyValue on each value within one iteration
// of its `for ct.rowSrc.Next()` loop and keeps nothing of values.
func CopyRows(n, width int, fill func(row []any, i int)) pgx.CopyFromSource {
	return &copyRows{n: n, i: -1, row: make([]any, width), fill: fill}
}

type copyRows struct {
	n, i int
	row  []any
	fill func(row []any, i int)
}

func (c *copyRows) Next() bool {
	c.i++
	return c.i < c.n
}

func (c *copyRows) Values() ([]any, error) {
	c.fill(c.row, c.i)
	return c.row, nil
}

func (c *copyRows) Err() error { return nil }
