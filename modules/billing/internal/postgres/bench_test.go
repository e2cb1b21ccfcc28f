package postgres_test

// Billing's statements on the API's paths, each measured two ways in one
// run (see dbtest.Bench): "repo" is the store method the service calls,
// "pgx" the same text, from the same builder, sent raw through the pool.
// make bench-sql runs them.

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/internal/domain"
	"github.com/teamtext/teamtext/modules/billing/internal/postgres"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

const benchTeam = "team_bench"

// benchLedger is a Team Plus account with a card on file and a year of
// sends in its ledger (perMonth entries a month, this one included).
func benchLedger(tb testing.TB, perMonth int) (*db.DB, *postgres.Store) {
	tb.Helper()
	ctx := context.Background()
	d := srv.Migrated(tb, postgres.Migrations())
	s := postgres.NewStore(d)
	now := time.Now().UTC()
	if err := s.Insert(ctx, domain.Account{TeamID: benchTeam, Plan: billingapi.PlanTeamPlus, CardOnFile: true, PaymentState: "ok",
		CreatedAt: now, UpdatedAt: now}); err != nil {
		tb.Fatal(err)
	}
	_, err := d.Pool.Exec(ctx, `INSERT INTO billing_credit_entries (team_id, period, ref, credits, trial, created_at)
SELECT $1, to_char($2::timestamptz - (m || ' months')::interval, 'YYYY-MM'), 'msg_' || m || '_' || i, 1 + i % 3, false, $2
FROM generate_series(0, 11) m, generate_series(1, $3::int) i`, benchTeam, now, perMonth)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := d.Pool.Exec(ctx, `VACUUM (ANALYZE) billing_credit_entries`); err != nil {
		tb.Fatal(err)
	}
	return d, s
}

// creditsPgx sends CreditsUsed's statement raw.
func creditsPgx(ctx context.Context, d *db.DB, period string) (used, trialUsed int, err error) {
	err = d.Pool.QueryRow(ctx, postgres.CreditsUsedSQL, period, benchTeam).Scan(&used, &trialUsed)
	return used, trialUsed, err
}

// accountPgx sends Get's statement as bun formats it, with the simple
// protocol as bun sends it, and reads the row into variables.
func accountPgx(ctx context.Context, d *db.DB, text string) (string, error) {
	var (
		team, plan, state string
		card, trial       bool
		credits           int
		created, updated  time.Time
	)
	err := d.Pool.QueryRow(ctx, text, pgx.QueryExecModeSimpleProtocol).Scan(&team, &plan, &card, &state, &trial, &credits, &created, &updated)
	return team, err
}

// BenchmarkCreditsUsed is the credits used this period and on trial: the
// statement GET /team sends after the gate's.
func BenchmarkCreditsUsed(b *testing.B) {
	d, s := benchLedger(b, 100)
	period := domain.Period(time.Now())
	b.Run("repo", func(b *testing.B) {
		dbtest.Bench(b, func(ctx context.Context, _ int) error {
			_, _, err := s.CreditsUsed(ctx, benchTeam, period)
			return err
		})
	})
	b.Run("pgx", func(b *testing.B) {
		dbtest.Bench(b, func(ctx context.Context, _ int) error {
			_, _, err := creditsPgx(ctx, d, period)
			return err
		})
	})
}

// BenchmarkAccount is a team's account as bun reads it (the admin team
// view's and billing's own reads).
func BenchmarkAccount(b *testing.B) {
	d, s := benchLedger(b, 100)
	b.Run("repo", func(b *testing.B) {
		dbtest.Bench(b, func(ctx context.Context, _ int) error {
			_, err := s.Get(ctx, benchTeam)
			return err
		})
	})
	b.Run("pgx", func(b *testing.B) {
		text := postgres.AccountText(d, benchTeam)
		dbtest.Bench(b, func(ctx context.Context, _ int) error {
			_, err := accountPgx(ctx, d, text)
			return err
		})
	})
}

// TestBenchPaths holds the benchmarks' raw paths to the store's: the same
// figures and the same account, so that they keep measuring what the
// service sends.
func TestBenchPaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, s := benchLedger(t, 4) // 4 entries a month of 2, 3, 1 and 2 credits
	period := domain.Period(time.Now())
	used, trialUsed, err := s.CreditsUsed(ctx, benchTeam, period)
	require.NoError(t, err)
	require.Equal(t, [2]int{8, 0}, [2]int{used, trialUsed})
	rawUsed, rawTrial, err := creditsPgx(ctx, d, period)
	require.NoError(t, err)
	require.Equal(t, [2]int{used, trialUsed}, [2]int{rawUsed, rawTrial})

	acc, err := s.Get(ctx, benchTeam)
	require.NoError(t, err)
	team, err := accountPgx(ctx, d, postgres.AccountText(d, benchTeam))
	require.NoError(t, err)
	require.Equal(t, acc.TeamID, team)
	_, err = accountPgx(ctx, d, postgres.AccountText(d, "team_none"))
	require.ErrorIs(t, err, pgx.ErrNoRows, fmt.Sprintf("the text reads %s's row only", benchTeam))
}
