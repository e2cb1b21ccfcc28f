package db

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PgxQuerier runs statements through pgx directly: its own types (arrays,
// nullable timestamps) without database/sql's conversions, and pgx's
// statement cache for bind parameters.
type PgxQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// WithPgx runs fn with the transaction carried by ctx seen through pgx, or
// with the pipeline carried by ctx (see Pipeline), or with the pool outside
// both.
func (d *DB) WithPgx(ctx context.Context, fn func(q PgxQuerier) error) error {
	if p, ok := inPipeline(ctx); ok {
		return fn(p)
	}
	if _, ok := TxFrom(ctx); ok {
		return PgxTx(ctx, func(tx pgx.Tx) error { return fn(tx) })
	}
	return fn(d.Pool)
}
