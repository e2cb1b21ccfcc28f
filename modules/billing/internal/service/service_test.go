package service_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/internal/postgres"
	"github.com/teamtext/teamtext/modules/billing/internal/service"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/fault"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

// listener records payment recoveries and what the account said then.
type listener struct {
	svc  *service.Accounts
	mu   sync.Mutex
	seen []billingapi.Standing
	fail error
}

func (l *listener) OnPaymentRecovered(ctx context.Context, teamID string) error {
	s, err := l.svc.Standing(ctx, teamID) // inside the changing transaction
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, s)
	return l.fail
}

type testBundle struct {
	db       *db.DB
	clock    *clock.Fake
	listener *listener
}

func setup(t *testing.T) (*service.Accounts, *testBundle) {
	t.Helper()
	d := server.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	b := &testBundle{db: d, clock: clock.NewFake(time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)), listener: &listener{}}
	svc := service.New(service.Deps{Tx: d, Store: postgres.NewStore(d), AccessSQL: postgres.AccessSQL, Clock: b.clock,
		Listeners: []billingapi.PaymentListener{b.listener}})
	b.listener.svc = svc
	return svc, b
}

func requireFault(t *testing.T, err error, kind fault.Kind, code string) *fault.Error {
	t.Helper()
	f, ok := fault.As(err)
	require.True(t, ok, "a fault: %v", err)
	require.Equal(t, kind, f.Kind)
	require.Equal(t, code, f.Code)
	return f
}

func TestOpenAndRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _ := setup(t)
	require.NoError(t, svc.Open(ctx, "team_1", billingapi.Settings{Plan: "team_season", CardOnFile: true}))
	require.NoError(t, svc.Open(ctx, "team_2", billingapi.Settings{Plan: billingapi.PlanFree, Trial: true, TrialCredits: 20}))

	s, err := svc.Standing(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, billingapi.Standing{TeamID: "team_1", Plan: "team_season", CardOnFile: true, PaymentState: billingapi.PaymentOK,
		CreditsIncluded: 1000}, s)
	st, err := svc.Status(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, s.Account(), st, "Status is the standing as an Account")

	ss, err := svc.Standings(ctx, []string{"team_1", "team_2", "team_none"})
	require.NoError(t, err)
	require.Len(t, ss, 2, "a team without an account is absent")
	require.Equal(t, 20, ss["team_2"].TrialCredits)
	sts, err := svc.Statuses(ctx, []string{"team_2"})
	require.NoError(t, err)
	require.Equal(t, map[string]billingapi.Account{"team_2": ss["team_2"].Account()}, sts)
	empty, err := svc.Standings(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, empty)

	_, err = svc.Standing(ctx, "team_none")
	requireFault(t, err, fault.NotFound, fault.CodeNotFound)
	_, err = svc.Get(ctx, "team_none")
	requireFault(t, err, fault.NotFound, fault.CodeNotFound)
	err = svc.Open(ctx, "team_1", billingapi.Settings{Plan: billingapi.PlanFree})
	require.Error(t, err, "one account per team")
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	require.NoError(t, svc.Open(ctx, "team_1", billingapi.Settings{Plan: billingapi.PlanTeam}))

	overdue, ok := billingapi.PaymentOverdue, billingapi.PaymentOK
	plus := billingapi.PlanTeamPlus
	require.NoError(t, svc.Update(ctx, "team_1", billingapi.Patch{PaymentState: &overdue, Plan: &plus}))
	s, err := svc.Standing(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, billingapi.PaymentOverdue, s.PaymentState)
	require.Equal(t, 5000, s.CreditsIncluded, "the new plan's allowance at once")
	require.Empty(t, b.listener.seen, "going overdue is no recovery")

	b.listener.fail = errors.New("listener broke")
	err = svc.Update(ctx, "team_1", billingapi.Patch{PaymentState: &ok})
	require.ErrorIs(t, err, b.listener.fail)
	s, err = svc.Standing(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, billingapi.PaymentOverdue, s.PaymentState, "a failing listener undoes the change")

	b.listener.fail = nil
	b.listener.seen = nil
	require.NoError(t, svc.Update(ctx, "team_1", billingapi.Patch{PaymentState: &ok}))
	require.Len(t, b.listener.seen, 1)
	require.Equal(t, billingapi.PaymentOK, b.listener.seen[0].PaymentState, "listeners run after the account is written")
	require.NoError(t, svc.Update(ctx, "team_1", billingapi.Patch{PaymentState: &ok}))
	require.Len(t, b.listener.seen, 1, "ok → ok is no recovery")

	err = svc.Update(ctx, "team_none", billingapi.Patch{PaymentState: &ok})
	f := requireFault(t, err, fault.NotFound, fault.CodeNotFound)
	require.Equal(t, "team not found", f.Message)
}

func TestConsumeAndCredits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	require.NoError(t, svc.Open(ctx, "team_paid", billingapi.Settings{Plan: billingapi.PlanFree}))
	require.NoError(t, svc.Open(ctx, "team_trial", billingapi.Settings{Plan: billingapi.PlanTeam, Trial: true, TrialCredits: 10}))
	consume := func(team, ref string, n int) error {
		return b.db.Tx(ctx, func(ctx context.Context) error { return svc.Consume(ctx, team, ref, n) })
	}

	require.NoError(t, consume("team_paid", "msg_1", 80))
	require.NoError(t, consume("team_paid", "msg_2", 70), "over the allowance: reported, not refused")
	require.NoError(t, consume("team_paid", "msg_2", 70), "the same send is recorded once")
	a, err := svc.Get(ctx, "team_paid")
	require.NoError(t, err)
	require.Equal(t, 150, a.CreditsUsed)
	require.Equal(t, 100, a.CreditsIncluded)

	require.NoError(t, consume("team_trial", "msg_3", 6))
	err = consume("team_trial", "msg_4", 5)
	f := requireFault(t, err, fault.PaymentRequired, billingapi.CodeTrialLimit)
	require.Equal(t, "this send needs 5 credits; 4 trial credits remain", f.Message)
	require.NoError(t, consume("team_trial", "msg_5", 4))
	a, err = svc.Get(ctx, "team_trial")
	require.NoError(t, err)
	require.Equal(t, 10, a.TrialUsed)
	require.Equal(t, 0, a.CreditsUsed, "trial sends are not the period's paid credits")
	require.Equal(t, 0, a.TrialRemaining())

	b.clock.Advance(2 * time.Hour) // December, in UTC
	a, err = svc.Get(ctx, "team_paid")
	require.NoError(t, err)
	require.Equal(t, 0, a.CreditsUsed, "a new period starts at zero")
	require.NoError(t, consume("team_paid", "msg_6", 5))
	a, err = svc.Get(ctx, "team_paid")
	require.NoError(t, err)
	require.Equal(t, 5, a.CreditsUsed)
	a, err = svc.Get(ctx, "team_trial")
	require.NoError(t, err)
	require.Equal(t, 10, a.TrialUsed, "the trial allowance is not monthly")
}

// TestConsumeSerialisesATrial: concurrent sends of a trial team never
// spend more than its credits (the account is locked per charge).
func TestConsumeSerialisesATrial(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	require.NoError(t, svc.Open(ctx, "team_trial", billingapi.Settings{Plan: billingapi.PlanTeam, Trial: true, TrialCredits: 5}))
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Go(func() {
			errs[i] = b.db.Tx(ctx, func(ctx context.Context) error {
				return svc.Consume(ctx, "team_trial", "msg_"+string(rune('a'+i)), 1)
			})
		})
	}
	wg.Wait()
	okCount := 0
	for _, err := range errs {
		if err == nil {
			okCount++
			continue
		}
		requireFault(t, err, fault.PaymentRequired, billingapi.CodeTrialLimit)
	}
	require.Equal(t, 5, okCount)
	a, err := svc.Get(ctx, "team_trial")
	require.NoError(t, err)
	require.Equal(t, 5, a.TrialUsed)
}

// TestAccessSQL: the gate's sub-select reads the account's columns.
func TestAccessSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	require.NoError(t, svc.Open(ctx, "team_1", billingapi.Settings{Plan: billingapi.PlanOrganization, CardOnFile: true, Trial: true, TrialCredits: 9}))
	var (
		plan, state  string
		card, trial  bool
		trialCredits int
	)
	err := b.db.Pool.QueryRow(ctx, `SELECT a.* FROM (VALUES ($1::text)) t(id), LATERAL (`+svc.AccessSQL("t.id")+`) a`, "team_1").
		Scan(&plan, &card, &state, &trial, &trialCredits)
	require.NoError(t, err)
	require.Equal(t, []any{"organization", true, billingapi.PaymentOK, true, 9}, []any{plan, card, state, trial, trialCredits})

	acc, err := svc.WithCredits(ctx, billingapi.Standing{TeamID: "team_1", Plan: billingapi.PlanOrganization}.Account())
	require.NoError(t, err)
	require.Equal(t, 25000, acc.CreditsIncluded)
	require.Zero(t, acc.CreditsUsed)
}
