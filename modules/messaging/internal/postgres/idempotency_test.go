package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/idempotency"
)

type answer struct {
	ID string `json:"id"`
}

// idemSetup is messaging's store on its own database, with a table for
// the operation's own writes.
func idemSetup(t *testing.T) (*db.DB, idempotency.Keys) {
	t.Helper()
	d := srv.Migrated(t, postgres.Migrations())
	_, err := d.Pool.Exec(context.Background(), `CREATE TABLE messaging_test_writes (id text PRIMARY KEY)`)
	require.NoError(t, err)
	clk := clock.NewFake(time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC))
	return d, idempotency.Keys{Store: postgres.NewRepo(d, nil), Tx: d, Clock: clk}
}

// write is an operation's write, in its transaction.
func write(ctx context.Context, d *db.DB, id string) (answer, error) {
	_, err := d.IDB(ctx).ExecContext(ctx, `INSERT INTO messaging_test_writes (id) VALUES (?)`, id)
	return answer{ID: id}, err
}

func count(t *testing.T, d *db.DB, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

// TestIdempotencyStore: the decorator over messaging_idempotency. The
// answer is stored with status 201 in the operation's transaction; a
// failing operation leaves neither its writes nor the claim; a duplicate
// replays; another request with the key is 409.
func TestIdempotencyStore(t *testing.T) {
	t.Parallel()
	d, k := idemSetup(t)
	ctx := context.Background()
	fp := idempotency.Fingerprint("request")

	boom := errors.New("boom")
	_, _, err := idempotency.Do(ctx, k, "key_1", "abc", fp, func(ctx context.Context) (answer, error) {
		if _, err := write(ctx, d, "msg_0"); err != nil {
			return answer{}, err
		}
		return answer{}, boom
	})
	require.ErrorIs(t, err, boom)
	require.Zero(t, count(t, d, `SELECT count(*) FROM messaging_idempotency`), "the claim rolled back")
	require.Zero(t, count(t, d, `SELECT count(*) FROM messaging_test_writes`), "with the operation's writes")

	a, replayed, err := idempotency.Do(ctx, k, "key_1", "abc", fp, func(ctx context.Context) (answer, error) { return write(ctx, d, "msg_1") })
	require.NoError(t, err)
	require.False(t, replayed)
	require.Equal(t, answer{ID: "msg_1"}, a)
	var status int
	var response string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT status, response::text FROM messaging_idempotency WHERE key_id = 'key_1' AND idem_key = 'abc'`).Scan(&status, &response))
	require.Equal(t, 201, status)
	require.JSONEq(t, `{"id":"msg_1"}`, response)

	a, replayed, err = idempotency.Do(ctx, k, "key_1", "abc", fp, func(ctx context.Context) (answer, error) { return write(ctx, d, "msg_2") })
	require.NoError(t, err)
	require.True(t, replayed)
	require.Equal(t, answer{ID: "msg_1"}, a)

	_, _, err = idempotency.Do(ctx, k, "key_1", "abc", idempotency.Fingerprint("other"), func(ctx context.Context) (answer, error) { return write(ctx, d, "msg_3") })
	f, ok := fault.As(err)
	require.True(t, ok, "a fault: %v", err)
	require.Equal(t, fault.Conflict, f.Kind)
	require.Equal(t, 1, count(t, d, `SELECT count(*) FROM messaging_test_writes`), "the operation ran once")
}

// TestIdempotencyConcurrentDuplicateWaits: a duplicate that arrives while
// the first request is still running waits on its row lock, then replays
// its answer; the operation runs once.
func TestIdempotencyConcurrentDuplicateWaits(t *testing.T) {
	t.Parallel()
	d, k := idemSetup(t)
	ctx := context.Background()
	fp := idempotency.Fingerprint("request")

	started, release := make(chan struct{}), make(chan struct{})
	type result struct {
		a        answer
		replayed bool
		err      error
	}
	first, second := make(chan result, 1), make(chan result, 1)
	go func() {
		a, replayed, err := idempotency.Do(ctx, k, "key_1", "abc", fp, func(ctx context.Context) (answer, error) {
			close(started)
			<-release
			return write(ctx, d, "msg_1")
		})
		first <- result{a, replayed, err}
	}()
	<-started
	go func() {
		a, replayed, err := idempotency.Do(ctx, k, "key_1", "abc", fp, func(ctx context.Context) (answer, error) { return write(ctx, d, "msg_2") })
		second <- result{a, replayed, err}
	}()
	// The duplicate's claim waits on the first one's row lock.
	require.Eventually(t, func() bool {
		return count(t, d, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`) == 1
	}, 10*time.Second, 5*time.Millisecond)
	select {
	case r := <-second:
		t.Fatalf("the duplicate did not wait: %+v", r)
	default:
	}
	close(release)
	r1, r2 := <-first, <-second
	require.NoError(t, r1.err)
	require.NoError(t, r2.err)
	require.False(t, r1.replayed)
	require.True(t, r2.replayed)
	require.Equal(t, answer{ID: "msg_1"}, r1.a)
	require.Equal(t, r1.a, r2.a)
	require.Equal(t, 1, count(t, d, `SELECT count(*) FROM messaging_test_writes`))
}
