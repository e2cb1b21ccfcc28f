package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// errNotOwner refuses to end a transaction that database/sql owns.
var errNotOwner = errors.New("db: the transaction belongs to db.Tx; it commits or rolls back there")

// onConn runs statements on a connection inside its open transaction.
type onConn struct{ c *pgx.Conn }

func (o onConn) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return o.c.CopyFrom(ctx, table, cols, src)
}

func (o onConn) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return o.c.SendBatch(ctx, b)
}

func (o onConn) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} } // not supported here

func (o onConn) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return o.c.Prepare(ctx, name, sql)
}

func (o onConn) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return o.c.Exec(ctx, sql, args...)
}

func (o onConn) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return o.c.Query(ctx, sql, args...)
}

func (o onConn) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return o.c.QueryRow(ctx, sql, args...)
}

func (o onConn) Conn() *pgx.Conn { return o.c }

// joinedTx is a pgx.Tx over a connection whose transaction database/sql
// began: statements run in that transaction; Commit and Rollback are
// refused (db.Tx ends it), and Begin opens a savepoint.
type joinedTx struct {
	onConn
	savepoints int
}

var _ pgx.Tx = (*joinedTx)(nil)

// Begin opens a savepoint inside the joined transaction.
func (t *joinedTx) Begin(ctx context.Context) (pgx.Tx, error) {
	t.savepoints++
	sp := &savepoint{onConn: t.onConn, parent: t, name: fmt.Sprintf("joined_sp_%d", t.savepoints)}
	if _, err := t.c.Exec(ctx, "SAVEPOINT "+sp.name); err != nil {
		return nil, err
	}
	return sp, nil
}

// Commit is refused: db.Tx commits.
func (t *joinedTx) Commit(context.Context) error { return errNotOwner }

// Rollback is refused: db.Tx rolls back.
func (t *joinedTx) Rollback(context.Context) error { return errNotOwner }

// savepoint is a nested pgx.Tx of a joinedTx.
type savepoint struct {
	onConn
	parent *joinedTx
	name   string
	done   bool
}

var _ pgx.Tx = (*savepoint)(nil)

func (s *savepoint) Begin(ctx context.Context) (pgx.Tx, error) { return s.parent.Begin(ctx) }

func (s *savepoint) Commit(ctx context.Context) error {
	if s.done {
		return pgx.ErrTxClosed
	}
	s.done = true
	_, err := s.c.Exec(ctx, "RELEASE SAVEPOINT "+s.name)
	return err
}

func (s *savepoint) Rollback(ctx context.Context) error {
	if s.done {
		return pgx.ErrTxClosed
	}
	s.done = true
	_, err := s.c.Exec(ctx, "ROLLBACK TO SAVEPOINT "+s.name)
	return err
}
