package postgres_test

// Inbound ingestion's statements, each measured two ways in one run (see
// dbtest.Bench): "repo" is the repository method the service calls, "pgx"
// the same text sent raw through the pool. make bench-sql runs them.

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

const (
	benchTeam    = "team_bench"
	benchNumber  = "+12025550142"
	benchClients = 16 // concurrent carrier callbacks, as in the harness's inbound-texts
)

// benchTexts is n texts of one run, each from another number, as carrier
// callbacks stage them.
func benchTexts(run string, n int) []domain.PendingInbound {
	now := time.Now().UTC()
	ps := make([]domain.PendingInbound, n)
	for i := range ps {
		from := fmt.Sprintf("+1310%07d", i)
		ps[i] = domain.PendingInbound{ProviderMessageID: fmt.Sprintf("SM%s_%d", run, i), FromPhone: from, ToPhone: benchNumber,
			Body: "YES", Lane: domain.InboundLane(from), ReceivedAt: now}
	}
	return ps
}

func stagePgx(ctx context.Context, d *db.DB, p domain.PendingInbound) error {
	_, err := d.Pool.Exec(ctx, postgres.StageInboundSQL, p.ProviderMessageID, p.FromPhone, p.ToPhone, p.Body, p.Keyword, p.Lane, p.ReceivedAt)
	return err
}

// BenchmarkStageInbound is a carrier callback's one statement, 16
// callbacks at once (the repository's path also wakes the filers).
func BenchmarkStageInbound(b *testing.B) {
	d := srv.Migrated(b, db.PlatformMigrations(), postgres.Migrations())
	r := postgres.NewRepo(d, slog.New(slog.DiscardHandler))
	for _, p := range []struct {
		name  string
		stage func(context.Context, domain.PendingInbound) error
	}{{"repo", r.StageInbound}, {"pgx", func(ctx context.Context, p domain.PendingInbound) error { return stagePgx(ctx, d, p) }}} {
		b.Run(fmt.Sprintf("%s-%d", p.name, benchClients), func(b *testing.B) {
			texts := benchTexts(fmt.Sprintf("%s%d", p.name, time.Now().UnixNano()), b.N)
			dbtest.BenchParallel(b, benchClients, func(ctx context.Context, i int) error { return p.stage(ctx, texts[i]) })
		})
	}
}

// filed is an inbound text as the filer files a staged one (its member,
// the roster's, left out: MembersByTeamPhones is the roster's statement).
func filed(p domain.PendingInbound) domain.Inbound {
	return domain.Inbound{ID: fmt.Sprintf("inb_%d", p.ID), TeamID: benchTeam, ProviderMessageID: p.ProviderMessageID, FromPhone: p.FromPhone,
		ToPhone: p.ToPhone, Body: p.Body, ReceivedAt: p.ReceivedAt, CreatedAt: time.Now().UTC()}
}

// fileRepo files one batch of a lane through the repository, in one
// transaction, as the filer does: the lane's lock, its texts taken, the
// texts stored and the day's counter.
func fileRepo(ctx context.Context, d *db.DB, r *postgres.Repo) (int, error) {
	stored := 0
	err := d.Tx(ctx, func(ctx context.Context) error {
		lane, err := r.LockInboundLane(ctx, domain.InboundLanes, 0)
		if err != nil || lane < 0 {
			return err
		}
		ps, err := r.TakeInbound(ctx, lane, inbound.BatchSize)
		if err != nil {
			return err
		}
		ins := make([]domain.Inbound, len(ps))
		for i := range ps {
			ins[i] = filed(ps[i])
		}
		ids, err := r.InsertInbounds(ctx, ins)
		if err != nil {
			return err
		}
		stored = len(ids)
		return r.CountReceivedMany(ctx, ins)
	})
	return stored, err
}

// filePgx sends the same statements raw, in one transaction.
func filePgx(ctx context.Context, d *db.DB) (int, error) {
	tx, err := d.Pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var lane int
	if err := tx.QueryRow(ctx, postgres.LockInboundLaneSQL, domain.InboundLanes, 0, domain.InboundMaxAttempts).Scan(&lane); err != nil {
		return 0, err
	}
	rows, err := tx.Query(ctx, postgres.TakeInboundSQL, lane, inbound.BatchSize, domain.InboundMaxAttempts)
	if err != nil {
		return 0, err
	}
	var (
		p                                         domain.PendingInbound
		ids, teams, providers, froms, tos, bodies []string
		kws, groups, members, names, roles        []string
		received, created                         []time.Time
		held                                      []bool
	)
	now := time.Now().UTC()
	_, err = pgx.ForEachRow(rows, []any{&p.ID, &p.ProviderMessageID, &p.FromPhone, &p.ToPhone, &p.Body, &p.Keyword, &p.Lane, &p.ReceivedAt}, func() error {
		ids, teams, providers = append(ids, fmt.Sprintf("inb_%d", p.ID)), append(teams, benchTeam), append(providers, p.ProviderMessageID)
		froms, tos, bodies = append(froms, p.FromPhone), append(tos, p.ToPhone), append(bodies, p.Body)
		kws, groups, members, names, roles = append(kws, ""), append(groups, ""), append(members, ""), append(names, ""), append(roles, "")
		received, created, held = append(received, p.ReceivedAt), append(created, now), append(held, false)
		return nil
	})
	if err != nil {
		return 0, err
	}
	rows, err = tx.Query(ctx, postgres.InsertInboundsSQL, ids, teams, providers, froms, tos, bodies, kws, groups, members, names, roles, received, held, created)
	if err != nil {
		return 0, err
	}
	var id string
	tag, err := pgx.ForEachRow(rows, []any{&id}, func() error { return nil })
	if err != nil {
		return 0, err
	}
	if len(ids) > 0 {
		day := received[0].UTC().Format(time.DateOnly)
		if _, err := tx.Exec(ctx, postgres.CountReceivedSQL, []string{benchTeam}, []string{day}, []int32{int32(postgres.ShardOf(ids[0]))},
			[]int64{int64(len(ids))}); err != nil {
			return 0, err
		}
	}
	return int(tag.RowsAffected()), tx.Commit(ctx)
}

// BenchmarkFileInbound is one batch of 500 staged texts of a lane filed
// in one transaction. The texts' message.received events are webhooks'
// (BenchmarkInsertEvents there), their members the roster's.
func BenchmarkFileInbound(b *testing.B) {
	d := srv.Migrated(b, db.PlatformMigrations(), postgres.Migrations())
	r := postgres.NewRepo(d, slog.New(slog.DiscardHandler))
	for _, p := range []struct {
		name string
		file func(context.Context) (int, error)
	}{{"repo", func(ctx context.Context) (int, error) { return fileRepo(ctx, d, r) }}, {"pgx", func(ctx context.Context) (int, error) { return filePgx(ctx, d) }}} {
		b.Run(p.name, func(b *testing.B) {
			dbtest.Bench(b, func(ctx context.Context, i int) error {
				b.StopTimer()
				if err := stageLane(ctx, d, fmt.Sprintf("%s%d_%d", p.name, time.Now().UnixNano(), i)); err != nil {
					return err
				}
				b.StartTimer()
				n, err := p.file(ctx)
				if err == nil && n != inbound.BatchSize {
					err = fmt.Errorf("filed %d texts, want %d", n, inbound.BatchSize)
				}
				return err
			})
			dbtest.PerSecond(b, inbound.BatchSize, "texts")
		})
	}
}

// stageLane stages one batch of texts in lane 0, in one statement.
func stageLane(ctx context.Context, d *db.DB, run string) error {
	_, err := d.Pool.Exec(ctx, `INSERT INTO messaging_inbound_pending (provider_message_id, from_phone, to_phone, body, keyword, lane, received_at)
SELECT 'SM' || $1::text || '_' || i, '+1310' || lpad(i::text, 7, '0'), $2, 'YES', false, 0, now() FROM generate_series(1, $3::int) i`,
		run, benchNumber, inbound.BatchSize)
	return err
}

// TestBenchPaths holds the benchmarks' raw paths to the repository's: a
// staged text is staged once either way, a batch is filed whole with its
// count either way, so that they keep measuring what the service sends.
func TestBenchPaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	r := postgres.NewRepo(d, slog.New(slog.DiscardHandler))
	texts := benchTexts("paths", 2)
	require.NoError(t, r.StageInbound(ctx, texts[0]))
	require.NoError(t, stagePgx(ctx, d, texts[1]))
	require.NoError(t, stagePgx(ctx, d, texts[0]), "a carrier retry is no error")
	n, _, err := r.PendingStats(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	_, err = d.Pool.Exec(ctx, `DELETE FROM messaging_inbound_pending`)
	require.NoError(t, err)

	for i, file := range []func(context.Context) (int, error){
		func(ctx context.Context) (int, error) { return fileRepo(ctx, d, r) },
		func(ctx context.Context) (int, error) { return filePgx(ctx, d) },
	} {
		require.NoError(t, stageLane(ctx, d, fmt.Sprint("paths", i)))
		got, err := file(ctx)
		require.NoError(t, err)
		require.Equal(t, inbound.BatchSize, got, "path %d", i)
	}
	var texts2, counted int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM messaging_inbound WHERE team_id = $1),
  (SELECT coalesce(sum(texts_received), 0) FROM messaging_daily_stats WHERE team_id = $1)`, benchTeam).Scan(&texts2, &counted))
	require.Equal(t, 2*inbound.BatchSize, texts2)
	require.Equal(t, 2*inbound.BatchSize, counted)
}
