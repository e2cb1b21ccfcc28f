// Package db owns the connection pool, the bun handle over it, the
// transaction runner that carries a transaction in the context, and the
// ordered, per-module migrations.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// DB is the process's database: one pgx pool, shared by bun (through
// database/sql) and by River.
type DB struct {
	Pool  *pgxpool.Pool
	Bun   *bun.DB
	SQLDB *sql.DB
}

// Open connects to url with at most maxConns connections and pings it.
func Open(ctx context.Context, url string, maxConns int32) (*DB, error) {
	d, err := OpenLazy(ctx, url, maxConns)
	if err != nil {
		return nil, err
	}
	if err := d.Pool.Ping(ctx); err != nil {
		d.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return d, nil
}

// OpenLazy is Open without the ping: the pool dials on first use. It lets
// `teamtext openapi` build the service's graph, which only registers
// operations, without a database.
func OpenLazy(ctx context.Context, url string, maxConns int32) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	cfg.MaxConns = maxConns
	cfg.ConnConfig.Tracer = counting{}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool: %w", err)
	}
	sqldb := sql.OpenDB(simpleConnector{stdlib.GetPoolConnector(pool)})
	// Columns a row type does not know are skipped, not an error: during a
	// rolling upgrade the previous build reads rows (RETURNING *) that the
	// newest migrations widened (docs/OPERATIONS.md, expand/contract).
	return &DB{Pool: pool, SQLDB: sqldb, Bun: bun.NewDB(sqldb, pgdialect.New(), bun.WithDiscardUnknownColumns())}, nil
}

// Close releases the pool.
func (d *DB) Close() {
	_ = d.Bun.Close()
	d.Pool.Close()
}

type txKey struct{}

// carried is what a transaction's context holds: bun's handle on the
// transaction and the connection it runs on.
type carried struct {
	tx    bun.Tx
	conn  bun.Conn
	after *[]func() // AfterCommit's, run once the transaction commits
}

// Tx runs fn in a transaction carried by the context passed to fn. A nested
// call joins the outer transaction, so use cases compose. The transaction
// commits when the outermost fn returns nil and rolls back otherwise.
func (d *DB) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := TxFrom(ctx); ok {
		return fn(ctx)
	}
	if _, ok := inPipeline(ctx); ok {
		return errors.New("db: a transaction inside a pipeline would not be part of it")
	}
	conn, err := d.Bun.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	var after []func()
	if err := fn(context.WithValue(ctx, txKey{}, carried{tx: tx, conn: conn, after: &after})); err != nil {
		if rbErr := tx.Rollback(); rbErr != nil && !errors.Is(rbErr, sql.ErrTxDone) {
			return errors.Join(err, fmt.Errorf("rollback: %w", rbErr))
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	for _, f := range after {
		f()
	}
	return nil
}

// AfterCommit runs fn once what ctx carries has committed: after the
// commit of its transaction (Tx) or pipeline (Pipeline), and not at all if
// that rolls back; at once outside both, where each statement has
// committed on its own by the time it returns. It is for telling other
// processes to look (a NOTIFY of its own, see Notifier), so fn must neither
// fail nor block. Inside a transaction, fn runs even for work that a
// savepoint later undid.
func AfterCommit(ctx context.Context, fn func()) {
	if p, ok := inPipeline(ctx); ok {
		p.after = append(p.after, fn)
		return
	}
	if c, ok := ctx.Value(txKey{}).(carried); ok {
		*c.after = append(*c.after, fn)
		return
	}
	fn()
}

// deadlockTries is how many times TxRetry runs a transaction that Postgres
// keeps choosing as a deadlock's victim.
const deadlockTries = 3

// TxRetry is Tx for a use case whose transaction only touches the database
// (so fn may run again): when Postgres ends it as a deadlock's victim, it
// runs again, up to three times in all. The other side of a deadlock has
// its locks by then, so the next run usually waits for it instead. Inside
// an outer transaction it joins that one and cannot retry: the outer
// transaction is the one that was aborted.
func (d *DB) TxRetry(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := TxFrom(ctx); ok {
		return fn(ctx)
	}
	for try := 1; ; try++ {
		err := d.Tx(ctx, fn)
		if try < deadlockTries && IsDeadlock(err) {
			continue
		}
		return err
	}
}

// IsDeadlock reports whether err is Postgres ending a transaction as a
// deadlock's victim (SQLSTATE 40P01).
func IsDeadlock(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40P01"
}

// TxFrom returns the transaction carried by ctx, if any.
func TxFrom(ctx context.Context) (bun.Tx, bool) {
	c, ok := ctx.Value(txKey{}).(carried)
	return c.tx, ok
}

// PgxTx runs fn with the transaction carried by ctx seen as a pgx.Tx: the
// same connection and the same transaction, for libraries built on pgx
// (River's pgx driver inserts jobs through it). fn must not commit or roll
// back; nested Begin calls are savepoints.
func PgxTx(ctx context.Context, fn func(pgx.Tx) error) error {
	c, ok := ctx.Value(txKey{}).(carried)
	if !ok {
		return errors.New("db: no transaction in context")
	}
	return c.conn.Raw(func(dc any) error {
		sc, ok := dc.(*simpleConn)
		if !ok {
			return fmt.Errorf("db: unexpected driver connection %T", dc)
		}
		return fn(&joinedTx{onConn: onConn{c: sc.Conn.Conn()}})
	})
}

// IDB returns the transaction in ctx, or the plain handle outside one.
// Repositories use it so they work both inside and outside use-case transactions.
func (d *DB) IDB(ctx context.Context) bun.IDB {
	if tx, ok := TxFrom(ctx); ok {
		return tx
	}
	return d.Bun
}

// Querier is what *sql.DB and *sql.Tx share.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// SQL returns the transaction in ctx, or the plain handle outside one, for
// statements with $n bind parameters (a fixed text that pgx prepares once
// per connection), which bun's IDB would format instead.
func (d *DB) SQL(ctx context.Context) Querier {
	if tx, ok := TxFrom(ctx); ok {
		return tx.Tx
	}
	return d.SQLDB
}

// MustTx returns the transaction in ctx or an error; for writers (job
// inserts, event publishing) that must never run outside the use case's tx.
func MustTx(ctx context.Context) (bun.Tx, error) {
	tx, ok := TxFrom(ctx)
	if !ok {
		return bun.Tx{}, errors.New("db: no transaction in context")
	}
	return tx, nil
}

// NotFound maps sql.ErrNoRows to the repository's sentinel and wraps any
// other error with what was being done.
func NotFound(err error, sentinel error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return sentinel
	}
	return fmt.Errorf("%s: %w", what, err)
}

// WithoutTx returns ctx without the transaction or pipeline it carries:
// statements run with it go to the pool, each committing on its own. It is
// for reads of settled data by code that may run concurrently inside a
// transaction (a transaction's connection runs one statement at a time),
// such as the carrier router looking up a number's account from the
// hand-over's parallel carrier calls.
func WithoutTx(ctx context.Context) context.Context { return detached{ctx} }

type detached struct{ context.Context }

func (d detached) Value(k any) any {
	switch k.(type) {
	case txKey, pipelineKey:
		return nil
	}
	return d.Context.Value(k)
}
