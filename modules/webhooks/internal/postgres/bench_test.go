package postgres_test

// Webhooks' statements behind the harness's webhook and import rows, each
// measured two ways in one run (see dbtest.Bench): "repo" is the
// repository method the service calls, "pgx" the same text sent raw
// through the pool. make bench-sql runs them.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/postgres"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

const (
	benchTeam      = "team_bench"
	benchHook      = "wh_bench"
	benchAbandoned = 10000 // deliveries a recovery puts back, as in the harness's webhooks-recover
	benchEvents    = 1000  // events in one COPY: an import chunk's member.joined
)

// abandonedHook is a webhook with n deliveries abandoned after 6 attempts,
// their events 1 ms apart from since on.
func abandonedHook(tb testing.TB, n int) (d *db.DB, since time.Time) {
	tb.Helper()
	ctx := context.Background()
	d = srv.Migrated(tb, db.PlatformMigrations(), postgres.Migrations())
	since = time.Now().UTC().Add(-time.Hour)
	_, err := d.Pool.Exec(ctx, `INSERT INTO webhooks (id, team_id, url, events, secret, source, created_by, owner_id, created_at, updated_at)
VALUES ($1, $2, 'https://hooks.example/bench', '{member.joined}', 'secret', 'api', 'mem_coach', 'mem_coach', now(), now())`, benchHook, benchTeam)
	if err != nil {
		tb.Fatal(err)
	}
	_, err = d.Pool.Exec(ctx, `
WITH ev AS (
    INSERT INTO webhook_events (id, team_id, type, created_at, body, skipped)
    SELECT 'evt_bench_' || g, $1::text, 'member.joined', $2::timestamptz + g * interval '1 ms',
           json_build_object('id', 'evt_bench_' || g, 'type', 'member.joined', 'data', json_build_object('n', g)), false
    FROM generate_series(1, $4::integer) g
    RETURNING id, created_at
)
INSERT INTO webhook_deliveries (id, team_id, event_id, webhook_id, state, attempts, next_attempt_at, created_at, updated_at)
SELECT 'dlv' || substr(id, 4), $1::text, id, $3::text, 'abandoned', 6, NULL, created_at, created_at FROM ev`, benchTeam, since, benchHook, n)
	if err != nil {
		tb.Fatal(err)
	}
	return d, since
}

// abandonAgain puts the recovered deliveries back as they were and ends
// the queue's pump, so that the next recovery does the same work.
func abandonAgain(ctx context.Context, d *db.DB) error {
	if _, err := d.Pool.Exec(ctx, `UPDATE webhook_deliveries SET state = 'abandoned', queued = false, round_from = 0 WHERE webhook_id = $1`, benchHook); err != nil {
		return err
	}
	_, err := d.Pool.Exec(ctx, `UPDATE webhook_queues SET pump = false WHERE webhook_id = $1`, benchHook)
	return err
}

// recoverRepo is POST /webhooks/{id}/recover's statements through the
// repository, in one transaction (the pump's River job aside).
func recoverRepo(ctx context.Context, d *db.DB, r *postgres.Repo, since time.Time) (n int, claimed bool, err error) {
	err = d.Tx(ctx, func(ctx context.Context) error {
		if n, err = r.Recover(ctx, benchTeam, benchHook, since, time.Now()); err != nil {
			return err
		}
		claimed, err = r.ClaimPump(ctx, benchTeam, benchHook)
		return err
	})
	return n, claimed, err
}

// recoverPgx sends the same statements raw, in one transaction.
func recoverPgx(ctx context.Context, d *db.DB, since time.Time) (n int, claimed bool, err error) {
	tx, err := d.Pool.Begin(ctx)
	if err != nil {
		return 0, false, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := tx.QueryRow(ctx, postgres.RecoverSQL, benchTeam, benchHook, since, time.Now()).Scan(&n); err != nil {
		return 0, false, err
	}
	if err := tx.QueryRow(ctx, postgres.ClaimPumpSQL, benchTeam, benchHook).Scan(&claimed); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, false, err
	}
	return n, claimed, tx.Commit(ctx)
}

// BenchmarkRecover is a recovery of a webhook's 10,000 abandoned
// deliveries: the set-based UPDATE and the queue's pump claim in one
// transaction.
func BenchmarkRecover(b *testing.B) {
	d, since := abandonedHook(b, benchAbandoned)
	r := postgres.NewRepo(d)
	for _, p := range []struct {
		name string
		run  func(ctx context.Context) (int, bool, error)
	}{
		{"repo", func(ctx context.Context) (int, bool, error) { return recoverRepo(ctx, d, r, since) }},
		{"pgx", func(ctx context.Context) (int, bool, error) { return recoverPgx(ctx, d, since) }},
	} {
		b.Run(p.name, func(b *testing.B) {
			dbtest.Bench(b, func(ctx context.Context, _ int) error {
				n, claimed, err := p.run(ctx)
				if err == nil && (n != benchAbandoned || !claimed) {
					err = fmt.Errorf("recovered %d (claimed %v), want %d", n, claimed, benchAbandoned)
				}
				b.StopTimer()
				defer b.StartTimer()
				if err != nil {
					return err
				}
				return abandonAgain(ctx, d)
			})
			dbtest.PerSecond(b, benchAbandoned, "deliveries")
		})
	}
}

// joinedEvents is n member.joined events of a run, as an import chunk publishes
// them (no webhook subscribed: skipped).
func joinedEvents(run string, n int) []domain.Event {
	now := time.Now().UTC()
	es := make([]domain.Event, n)
	for i := range es {
		id := fmt.Sprintf("evt_%s_%d", run, i)
		es[i] = domain.Event{ID: id, TeamID: benchTeam, Type: "member.joined", CreatedAt: now, Skipped: true,
			Body: fmt.Sprintf(`{"id":%q,"type":"member.joined","created_at":%q,"team":{"id":%q,"code":"bench"},`+
				`"data":{"member":{"id":"mem_%s_%d","name":"Import %d","phone":"+14152000000","email":"","role":"athlete","status":"active","is_blocked":false}}}`,
				id, now.Format(time.RFC3339Nano), benchTeam, run, i, i)}
	}
	return es
}

// eventValues are an event's values by COPY column.
var eventValues = map[string]func(*domain.Event) any{
	"id": func(e *domain.Event) any { return e.ID }, "team_id": func(e *domain.Event) any { return e.TeamID },
	"type": func(e *domain.Event) any { return e.Type }, "created_at": func(e *domain.Event) any { return e.CreatedAt },
	"body": func(e *domain.Event) any { return e.Body }, "skipped": func(e *domain.Event) any { return e.Skipped },
	"webhook_id": func(e *domain.Event) any { return e.WebhookID },
}

func insertEventsRepo(ctx context.Context, d *db.DB, r *postgres.Repo, es []domain.Event) error {
	return d.Tx(ctx, func(ctx context.Context) error { return r.InsertEvents(ctx, es) })
}

func insertEventsPgx(ctx context.Context, d *db.DB, es []domain.Event) error {
	getters := make([]func(*domain.Event) any, len(postgres.EventCopyColumns))
	for i, c := range postgres.EventCopyColumns {
		if getters[i] = eventValues[c]; getters[i] == nil {
			return fmt.Errorf("no value for COPY column %s", c)
		}
	}
	tx, err := d.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"webhook_events"}, postgres.EventCopyColumns, pgx.CopyFromSlice(len(es), func(i int) ([]any, error) {
		row := make([]any, len(getters))
		for k, g := range getters {
			row[k] = g(&es[i])
		}
		return row, nil
	}))
	if err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// BenchmarkInsertEvents is 1,000 events in one statement (COPY), as an
// import chunk publishes its member.joined events.
func BenchmarkInsertEvents(b *testing.B) {
	d := srv.Migrated(b, db.PlatformMigrations(), postgres.Migrations())
	r := postgres.NewRepo(d)
	for _, p := range []struct {
		name string
		run  func(ctx context.Context, es []domain.Event) error
	}{
		{"repo", func(ctx context.Context, es []domain.Event) error { return insertEventsRepo(ctx, d, r, es) }},
		{"pgx", func(ctx context.Context, es []domain.Event) error { return insertEventsPgx(ctx, d, es) }},
	} {
		b.Run(p.name, func(b *testing.B) {
			dbtest.Bench(b, func(ctx context.Context, i int) error {
				b.StopTimer()
				es := joinedEvents(fmt.Sprintf("%s%d_%d", p.name, time.Now().UnixNano(), i), benchEvents)
				b.StartTimer()
				return p.run(ctx, es)
			})
			dbtest.PerSecond(b, benchEvents, "events")
		})
	}
}

// TestBenchPaths holds the benchmarks' raw paths to the repository's: the
// same deliveries recovered and the pump claimed once, the same events
// stored, so that they keep measuring what the service sends.
func TestBenchPaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, since := abandonedHook(t, 30)
	r := postgres.NewRepo(d)
	n, claimed, err := recoverRepo(ctx, d, r, since)
	require.NoError(t, err)
	require.Equal(t, 30, n)
	require.True(t, claimed)
	n, claimed, err = recoverPgx(ctx, d, since)
	require.NoError(t, err)
	require.Equal(t, 0, n, "nothing is left to recover")
	require.False(t, claimed, "the pump is claimed already")
	require.NoError(t, abandonAgain(ctx, d))
	n, claimed, err = recoverPgx(ctx, d, since)
	require.NoError(t, err)
	require.Equal(t, 30, n)
	require.True(t, claimed)

	byRepo, byPgx := joinedEvents("repo", 100), joinedEvents("pgx", 100)
	require.NoError(t, insertEventsRepo(ctx, d, r, byRepo))
	require.NoError(t, insertEventsPgx(ctx, d, byPgx))
	for _, es := range [][]domain.Event{byRepo, byPgx} {
		var n int
		var body string
		var skipped bool
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*), max(body::text) FILTER (WHERE id = $2), bool_and(skipped)
FROM webhook_events WHERE id LIKE $1 || '%'`, es[0].ID[:len(es[0].ID)-1], es[7].ID).Scan(&n, &body, &skipped))
		require.Equal(t, 100, n)
		require.Equal(t, es[7].Body, body)
		require.True(t, skipped)
	}
}
