package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A pipeline is a transaction of writes whose results nobody reads, sent
// in one round trip. A carrier callback writes one or two rows and reads
// nothing back: as db.Tx it costs BEGIN, its statements and COMMIT, each a
// round trip (and a wakeup of the server process); as a pipeline the
// statements go in one pgx batch, which Postgres runs as one implicit
// transaction (everything before the batch's Sync commits or rolls back
// together), so the guarantee is the same for a quarter of the trips.

// ErrPipelineRead refuses a read inside Pipeline: a queued statement has
// no result until the whole batch is sent.
var ErrPipelineRead = errors.New("db: a pipeline only writes; its statements have no results until it is sent")

type pipelineKey struct{}

// Pipeline runs fn with every statement that fn sends through WithPgx
// queued rather than sent (Exec returns an empty command tag at once);
// when fn returns nil the statements go to Postgres in one round trip and
// commit or roll back together (then AfterCommit's functions run). When fn
// fails nothing is sent. Inside a
// transaction carried by ctx, fn joins that transaction instead. Only
// WithPgx's Exec may be used in fn: reads fail with ErrPipelineRead, and a
// db.Tx in fn is refused.
func (d *DB) Pipeline(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := TxFrom(ctx); ok {
		return fn(ctx)
	}
	if _, ok := inPipeline(ctx); ok {
		return fn(ctx)
	}
	p := &pipeline{}
	if err := fn(context.WithValue(ctx, pipelineKey{}, p)); err != nil {
		return err
	}
	if p.b.Len() > 0 {
		if err := d.Pool.SendBatch(ctx, &p.b).Close(); err != nil {
			return fmt.Errorf("pipeline of %d statements: %w", p.b.Len(), err)
		}
	}
	for _, f := range p.after {
		f()
	}
	return nil
}

// inPipeline reports whether ctx carries a Pipeline's queue.
func inPipeline(ctx context.Context) (*pipeline, bool) {
	p, ok := ctx.Value(pipelineKey{}).(*pipeline)
	return p, ok
}

// pipeline is Pipeline's queue, seen by WithPgx's callers as a PgxQuerier.
type pipeline struct {
	b     pgx.Batch
	after []func() // AfterCommit's, run once the batch has committed
}

var _ PgxQuerier = (*pipeline)(nil)

// Exec queues the statement; its error, if any, is Pipeline's.
func (p *pipeline) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	p.b.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

func (p *pipeline) Query(context.Context, string, ...any) (pgx.Rows, error) {
	return nil, ErrPipelineRead
}

func (p *pipeline) QueryRow(context.Context, string, ...any) pgx.Row { return errRow{} }

func (p *pipeline) SendBatch(context.Context, *pgx.Batch) pgx.BatchResults { return errBatch{} }

// errRow and errBatch answer reads inside a pipeline.
type errRow struct{}

func (errRow) Scan(...any) error { return ErrPipelineRead }

type errBatch struct{}

func (errBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, ErrPipelineRead }
func (errBatch) Query() (pgx.Rows, error)         { return nil, ErrPipelineRead }
func (errBatch) QueryRow() pgx.Row                { return errRow{} }
func (errBatch) Close() error                     { return ErrPipelineRead }
func (errBatch) Tx() pgx.Tx                       { return nil }
