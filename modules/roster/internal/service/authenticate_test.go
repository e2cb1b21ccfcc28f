package service_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

// accountsTable stands in for billing's sub-select with a table of the
// same columns, so that every account state can be set by the test.
type accountsTable struct{ billingapi.Accounts }

func (accountsTable) AccessSQL(teamID string) string {
	return `SELECT plan, card_on_file, payment_state, trial, trial_credits FROM gate_accounts WHERE team_id = ` + teamID
}

// gateState is one combination of what decides whether a key may act.
type gateState struct {
	wrongSecret, revoked, gone, blocked, disabled, locked, noAccount, apiPlan, card, anyPlan, needCard bool
}

func (s gateState) mayAct() bool {
	return !s.wrongSecret && !s.revoked && !s.gone && !s.blocked && !s.disabled && !s.locked && !s.noAccount &&
		(s.anyPlan || s.apiPlan) && (!s.needCard || s.card)
}

// TestAuthenticateCountsOnlyWhatMayAct: the key's one statement counts a
// request against the key's bucket if and only if the gate admits it, for
// every combination of the key's, its creator's, its team's and its
// account's states and of what the operation needs. A refused request,
// and a stranger presenting the key's lookup prefix with another secret,
// spend nothing of the key's limit.
func TestAuthenticateCountsOnlyWhatMayAct(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	_, err := d.Pool.Exec(ctx, `CREATE TABLE gate_accounts (team_id text PRIMARY KEY, plan text NOT NULL, card_on_file boolean NOT NULL,
		payment_state text NOT NULL, trial boolean NOT NULL, trial_credits integer NOT NULL)`)
	require.NoError(t, err)
	repo := postgres.NewRepo(d)
	clk := clock.NewFake(t0)
	log := slog.New(slog.DiscardHandler)
	j, err := jobs.New(d, clk, log, jobs.Options{})
	require.NoError(t, err)
	rec := &recorder{}
	svc := service.New(d, storesOf(repo), accountsTable{}, rec, j, clk, log,
		[]rosterapi.KeyRevokedListener{rec}, []rosterapi.OwnerInactiveListener{rec})
	limiter := ratelimit.New(d.Pool, clk)
	require.NoError(t, repo.InsertTeam(ctx, &domain.Team{ID: teamA, Name: "A", Code: "code-a", TimeZone: "America/New_York", CreatedAt: t0}))
	coach, err := svc.AddMember(ctx, teamA, service.NewMember{Name: "Coach", Phone: "2025550105", Role: "head_coach"}, service.FromDashboard())
	require.NoError(t, err)
	key, err := svc.CreateKey(ctx, teamA, coach.ID, "Integration")
	require.NoError(t, err)
	stranger := key.Value[:len(auth.KeyPrefix)+auth.LookupLen] + strings.Repeat("Z", auth.KeyLen-len(auth.KeyPrefix)-auth.LookupLen)
	require.Equal(t, auth.Lookup(key.Value), auth.Lookup(stranger))
	require.NotEqual(t, key.Value, stranger)

	bucket := "requests:" + key.Key.ID
	// pos counts the bucket's admissions once it exists.
	hits := func() int64 {
		var n int64
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT pos FROM platform_rate_limits WHERE bucket = $1`, bucket).Scan(&n))
		return n
	}
	_, err = limiter.Allow(ctx, bucket, auth.RequestPolicy)
	require.NoError(t, err)

	admitted := 0
	for bits := 0; bits < 1<<11; bits++ {
		s := gateState{bits&1 != 0, bits&2 != 0, bits&4 != 0, bits&8 != 0, bits&16 != 0, bits&32 != 0, bits&64 != 0,
			bits&128 != 0, bits&256 != 0, bits&512 != 0, bits&1024 != 0}
		var revokedAt, deletedAt *time.Time
		if s.revoked {
			revokedAt = &t0
		}
		if s.gone {
			deletedAt = &t0
		}
		_, err := d.Pool.Exec(ctx, `UPDATE roster_api_keys SET revoked_at = $1 WHERE id = $2`, revokedAt, key.Key.ID)
		require.NoError(t, err)
		_, err = d.Pool.Exec(ctx, `UPDATE roster_members SET deleted_at = $1, is_blocked = $2 WHERE id = $3`, deletedAt, s.blocked, coach.ID)
		require.NoError(t, err)
		_, err = d.Pool.Exec(ctx, `UPDATE roster_teams SET disabled = $1, locked = $2 WHERE id = $3`, s.disabled, s.locked, teamA)
		require.NoError(t, err)
		plan := billingapi.PlanTeam
		if s.apiPlan {
			plan = billingapi.PlanTeamPlus
		}
		_, err = d.Pool.Exec(ctx, `DELETE FROM gate_accounts`)
		require.NoError(t, err)
		if !s.noAccount {
			_, err = d.Pool.Exec(ctx, `INSERT INTO gate_accounts VALUES ($1, $2, $3, 'ok', false, 0)`, teamA, string(plan), s.card)
			require.NoError(t, err)
		}

		presented := key.Value
		if s.wrongSecret {
			presented = stranger
		}
		check, err := limiter.Check(auth.RequestPolicy)
		require.NoError(t, err)
		before := hits()
		p, dec, err := svc.Authenticate(ctx, presented, auth.Admission{Bucket: "requests:", Limit: check, AnyPlan: s.anyPlan, NeedCard: s.needCard})
		// What the gate refuses: the service's faults, then the plan and card checks on what it read.
		refused := err != nil || (!s.anyPlan && !p.Account.APIIncluded) || (s.needCard && !p.Account.CardOnFile)
		require.Equal(t, s.mayAct(), !refused, "%+v: the gate's checks (err %v)", s, err)
		require.Equal(t, s.mayAct(), dec != nil, "%+v: the statement checked the limit", s)
		if s.mayAct() {
			admitted++
			require.True(t, dec.Allowed, "%+v", s)
			require.Equal(t, before+1, hits(), "%+v: one hit counted", s)
		} else {
			require.Equal(t, before, hits(), "%+v: nothing counted", s)
		}
		clk.Advance(time.Minute) // each round in a window of its own
	}
	// With the key, creator, team and account in order, 3 of the 4 plan
	// cases (an API plan, or an any-plan operation) times 3 of the 4 card
	// cases (a card, or an operation that needs none).
	require.Equal(t, 9, admitted)
}
