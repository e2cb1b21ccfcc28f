package db_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/db"
)

// AfterCommit's functions run after a transaction's or a pipeline's
// commit, never after a rollback, and at once outside both.
func TestAfterCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := server.Migrated(t)
	var ran []string
	mark := func(s string) func() { return func() { ran = append(ran, s) } }
	boom := errors.New("boom")

	db.AfterCommit(ctx, mark("outside"))
	require.Equal(t, []string{"outside"}, ran, "outside a transaction: at once")

	ran = nil
	require.NoError(t, d.Tx(ctx, func(ctx context.Context) error {
		db.AfterCommit(ctx, mark("tx"))
		require.NoError(t, d.Tx(ctx, func(ctx context.Context) error { db.AfterCommit(ctx, mark("nested")); return nil }))
		require.Empty(t, ran, "not before the commit")
		return nil
	}))
	require.Equal(t, []string{"tx", "nested"}, ran, "after the commit, in order; a nested Tx's with the outer one")

	ran = nil
	require.ErrorIs(t, d.Tx(ctx, func(ctx context.Context) error { db.AfterCommit(ctx, mark("rolled back")); return boom }), boom)
	require.Empty(t, ran, "not after a rollback")

	ran = nil
	require.NoError(t, d.Pipeline(ctx, func(ctx context.Context) error {
		db.AfterCommit(ctx, mark("pipeline"))
		require.Empty(t, ran)
		return nil
	}))
	require.Equal(t, []string{"pipeline"}, ran)

	ran = nil
	err := d.Pipeline(ctx, func(ctx context.Context) error {
		db.AfterCommit(ctx, mark("failed pipeline"))
		return d.WithPgx(ctx, func(q db.PgxQuerier) error { _, err := q.Exec(ctx, `SELECT 1/0`); return err })
	})
	require.Error(t, err)
	require.Empty(t, ran, "not after a pipeline that failed")
}

// Every Notify is followed by a NOTIFY on the channel, however many come
// at once (they are coalesced while one is in flight).
func TestNotifierWakesListeners(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := server.Migrated(t)
	listener, err := pgx.ConnectConfig(ctx, d.Pool.Config().ConnConfig.Copy())
	require.NoError(t, err)
	defer func() { _ = listener.Close(context.Background()) }()
	_, err = listener.Exec(ctx, `LISTEN notifier_test`)
	require.NoError(t, err)
	n := db.NewNotifier(d, "notifier_test", nil)

	n.Notify()
	note, err := listener.WaitForNotification(ctx)
	require.NoError(t, err)
	require.Equal(t, "notifier_test", note.Channel)

	// A burst of calls at once, coalesced while one is in flight: at
	// least one NOTIFY follows them, and the notifier is idle again after.
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() { defer wg.Done(); n.Notify() }()
	}
	wg.Wait()
	_, err = listener.WaitForNotification(ctx)
	require.NoError(t, err)
	n.Notify()
	_, err = listener.WaitForNotification(ctx)
	require.NoError(t, err)
}
