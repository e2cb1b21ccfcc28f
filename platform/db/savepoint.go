package db

import (
	"context"
	"errors"
	"fmt"
)

// Savepoint runs fn inside a savepoint of the transaction carried by ctx
// and rolls back to it when fn fails, so that a step refused part way (a
// scheduled occurrence, a campaign step) leaves none of its writes while
// the caller's transaction goes on and commits what it does next. Outside
// a transaction it is an error: there would be nothing to roll back to.
//
// name must be a plain SQL identifier; the same name may be nested, as
// Postgres lets a newer savepoint hide an older one of that name.
func Savepoint(ctx context.Context, name string, fn func(ctx context.Context) error) error {
	tx, err := MustTx(ctx)
	if err != nil {
		return fmt.Errorf("savepoint %s: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT "+name); err != nil {
		return fmt.Errorf("savepoint %s: %w", name, err)
	}
	if ferr := fn(ctx); ferr != nil {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT "+name); err != nil {
			return errors.Join(ferr, fmt.Errorf("rollback to savepoint %s: %w", name, err))
		}
		return ferr
	}
	if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT "+name); err != nil {
		return fmt.Errorf("release savepoint %s: %w", name, err)
	}
	return nil
}

// Savepoint is the package's Savepoint as a method, for use cases that
// take their transaction runner as an interface.
func (d *DB) Savepoint(ctx context.Context, name string, fn func(ctx context.Context) error) error {
	return Savepoint(ctx, name, fn)
}
