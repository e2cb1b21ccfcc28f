package db

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// StatementCounter counts the statements sent to Postgres on behalf of one
// context (one HTTP request): the edge logs the figure on the request's
// line, and tests hold hot paths to a statement budget with it.
type StatementCounter struct{ n atomic.Int64 }

// Count is the number of statements counted so far.
func (c *StatementCounter) Count() int64 { return c.n.Load() }

type counterKey struct{}

// WithStatementCounter returns ctx carrying a fresh counter: every
// statement run with a context derived from it (bun's, pgx's, a batch's
// each, a COPY) is counted.
func WithStatementCounter(ctx context.Context) (context.Context, *StatementCounter) {
	c := new(StatementCounter)
	return context.WithValue(ctx, counterKey{}, c), c
}

func countStatements(ctx context.Context, n int64) {
	if c, ok := ctx.Value(counterKey{}).(*StatementCounter); ok {
		c.n.Add(n)
	}
}

// counting is the pool's pgx tracer: it feeds the counter in the
// statement's context, if any, and does nothing else.
type counting struct{}

var (
	_ pgx.QueryTracer    = counting{}
	_ pgx.BatchTracer    = counting{}
	_ pgx.CopyFromTracer = counting{}
)

func (counting) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	countStatements(ctx, 1)
	return ctx
}

func (counting) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (counting) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (counting) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchQueryData) {
	countStatements(ctx, 1)
}

func (counting) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (counting) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	countStatements(ctx, 1)
	return ctx
}

func (counting) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
