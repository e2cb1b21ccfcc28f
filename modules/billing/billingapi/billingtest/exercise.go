package billingtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/platform/check"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/fault"
)

// Harness is one billing under the suite: the fake, or the module on
// Postgres.
type Harness struct {
	Accounts  billingapi.Accounts
	Standings billingapi.Standings
	// Clock is the billing's clock: the suite moves it across a period.
	Clock *clock.Fake
	// DB runs the text AccessSQL gives, and the transactions the suite
	// charges in, as a send does (the module's own database; any Postgres
	// for the fake).
	DB *db.DB
}

// Exercise runs the contract suite: the answers other modules rely on,
// refusals included. newHarness builds a fresh, empty billing whose
// "payment_recovered" listener is recovered.
func Exercise(t *testing.T, newHarness func(t *testing.T, recovered billingapi.PaymentListener) Harness) {
	t.Helper()
	setup := func(t *testing.T) (context.Context, Harness, *recorder) {
		t.Helper()
		rec := &recorder{}
		h := newHarness(t, rec)
		rec.standings = h.Standings
		h.Clock.Set(periodEnd)
		return context.Background(), h, rec
	}

	t.Run("OpenAndRead", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		check.NoError(t, h.Accounts.Open(ctx, "team_1", billingapi.Settings{Plan: "team_season", CardOnFile: true}))
		check.NoError(t, h.Accounts.Open(ctx, "team_2", billingapi.Settings{Plan: billingapi.PlanFree, Trial: true, TrialCredits: 20}))

		s, err := h.Standings.Standing(ctx, "team_1")
		check.NoError(t, err)
		check.Equal(t, s, billingapi.Standing{TeamID: "team_1", Plan: "team_season", CardOnFile: true, PaymentState: billingapi.PaymentOK,
			CreditsIncluded: 1000}, "a season plan includes its monthly allowance; payment starts ok")
		st, err := h.Accounts.Status(ctx, "team_1")
		check.NoError(t, err)
		check.Equal(t, st, s.Account(), "Status is the standing as an Account")

		ss, err := h.Standings.Standings(ctx, []string{"team_1", "team_2", "team_none"})
		check.NoError(t, err)
		check.Equal(t, len(ss), 2, "a team without an account is absent")
		check.Equal(t, ss["team_2"].TrialCredits, 20, "the trial's credits")
		sts, err := h.Accounts.Statuses(ctx, []string{"team_2"})
		check.NoError(t, err)
		check.Equal(t, sts, map[string]billingapi.Account{"team_2": ss["team_2"].Account()}, "Statuses are the standings as Accounts")
		empty, err := h.Standings.Standings(ctx, nil)
		check.NoError(t, err)
		check.Equal(t, len(empty), 0, "no teams, no standings")

		_, err = h.Standings.Standing(ctx, "team_none")
		check.Fault(t, err, fault.NotFound, fault.CodeNotFound, "team not found")
		_, err = h.Accounts.Status(ctx, "team_none")
		check.Fault(t, err, fault.NotFound, fault.CodeNotFound, "team not found")
		_, err = h.Accounts.Get(ctx, "team_none")
		check.Fault(t, err, fault.NotFound, fault.CodeNotFound, "team not found")
		check.Refused(t, h.Accounts.Open(ctx, "team_1", billingapi.Settings{Plan: billingapi.PlanFree}), "a second account for a team")
		s, err = h.Standings.Standing(ctx, "team_1")
		check.NoError(t, err)
		check.Equal(t, s.Plan, billingapi.Plan("team_season"), "the refused open changed nothing")
	})

	t.Run("AllowancePerPlan", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		want := map[billingapi.Plan]int{billingapi.PlanFree: 100, billingapi.PlanTeam: 1000, billingapi.PlanTeamPlus: 5000,
			billingapi.PlanOrganization: 25000, billingapi.PlanBusiness: 100000}
		for i, p := range billingapi.Plans() {
			team := fmt.Sprint("team_", i)
			check.NoError(t, h.Accounts.Open(ctx, team, billingapi.Settings{Plan: p}))
			acc, err := h.Accounts.Get(ctx, team)
			check.NoError(t, err)
			check.Equal(t, acc.CreditsIncluded, want[billingapi.Plan(strings.TrimSuffix(string(p), "_season"))], string(p)+"'s allowance")
		}
	})

	t.Run("Update", func(t *testing.T) {
		t.Parallel()
		ctx, h, rec := setup(t)
		check.NoError(t, h.Accounts.Open(ctx, "team_1", billingapi.Settings{Plan: billingapi.PlanTeam}))
		overdue, plus, card, trial, credits := billingapi.PaymentOverdue, billingapi.PlanTeamPlus, true, true, 7
		check.NoError(t, h.Accounts.Update(ctx, "team_1", billingapi.Patch{PaymentState: &overdue, Plan: &plus}))
		s, err := h.Standings.Standing(ctx, "team_1")
		check.NoError(t, err)
		check.Equal(t, s, billingapi.Standing{TeamID: "team_1", Plan: plus, PaymentState: overdue, CreditsIncluded: 5000},
			"the new plan's allowance at once; fields not in the patch left alone")
		check.NoError(t, h.Accounts.Update(ctx, "team_1", billingapi.Patch{CardOnFile: &card, Trial: &trial, TrialCredits: &credits}))
		s, err = h.Standings.Standing(ctx, "team_1")
		check.NoError(t, err)
		check.Equal(t, s, billingapi.Standing{TeamID: "team_1", Plan: plus, CardOnFile: true, PaymentState: overdue, Trial: true, TrialCredits: 7,
			CreditsIncluded: 5000}, "each field of the patch")
		check.Equal(t, len(rec.all()), 0, "going overdue is no recovery")

		err = h.Accounts.Update(ctx, "team_none", billingapi.Patch{PaymentState: &overdue})
		check.Fault(t, err, fault.NotFound, fault.CodeNotFound, "team not found")
	})

	t.Run("PaymentRecovered", func(t *testing.T) {
		t.Parallel()
		ctx, h, rec := setup(t)
		check.NoError(t, h.Accounts.Open(ctx, "team_1", billingapi.Settings{Plan: billingapi.PlanTeam}))
		overdue, ok := billingapi.PaymentOverdue, billingapi.PaymentOK
		check.NoError(t, h.Accounts.Update(ctx, "team_1", billingapi.Patch{PaymentState: &overdue}))

		broke := errors.New("listener broke")
		rec.setFail(broke)
		err := h.Accounts.Update(ctx, "team_1", billingapi.Patch{PaymentState: &ok})
		if !errors.Is(err, broke) {
			t.Errorf("a failing listener's error is Update's: got %v", err)
		}
		s, err := h.Standings.Standing(ctx, "team_1")
		check.NoError(t, err)
		check.Equal(t, s.PaymentState, overdue, "a failing listener undoes the change")

		rec.setFail(nil)
		rec.reset()
		check.NoError(t, h.Accounts.Update(ctx, "team_1", billingapi.Patch{PaymentState: &ok}))
		seen := rec.all()
		check.Equal(t, len(seen), 1, "overdue → ok is told once")
		check.Equal(t, seen[0].TeamID, "team_1", "of the team")
		check.Equal(t, seen[0].PaymentState, ok, "listeners run after the account is written")
		check.NoError(t, h.Accounts.Update(ctx, "team_1", billingapi.Patch{PaymentState: &ok}))
		check.Equal(t, len(rec.all()), 1, "ok → ok is no recovery")
	})

	t.Run("ConsumeAndCredits", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		check.NoError(t, h.Accounts.Open(ctx, "team_paid", billingapi.Settings{Plan: billingapi.PlanFree}))
		check.NoError(t, h.Accounts.Open(ctx, "team_trial", billingapi.Settings{Plan: billingapi.PlanTeam, Trial: true, TrialCredits: 10}))
		consume := func(team, ref string, n int) error {
			return h.DB.Tx(ctx, func(ctx context.Context) error { return h.Accounts.Consume(ctx, team, ref, n) })
		}

		check.NoError(t, consume("team_paid", "msg_1", 80))
		check.NoError(t, consume("team_paid", "msg_2", 70)) // over the allowance: reported, not refused
		check.NoError(t, consume("team_paid", "msg_2", 70)) // the same send again
		a, err := h.Accounts.Get(ctx, "team_paid")
		check.NoError(t, err)
		check.Equal(t, a.CreditsUsed, 150, "over the allowance, and the same send recorded once")
		check.Equal(t, a.CreditsIncluded, 100, "the plan's allowance")
		st, err := h.Accounts.Status(ctx, "team_paid")
		check.NoError(t, err)
		check.Equal(t, st.CreditsUsed, 0, "Status leaves the credit figures zero")

		check.NoError(t, consume("team_trial", "msg_3", 6))
		err = consume("team_trial", "msg_4", 5)
		check.Fault(t, err, fault.PaymentRequired, billingapi.CodeTrialLimit, "this send needs 5 credits; 4 trial credits remain")
		err = consume("team_trial", "msg_3", 6)
		check.Fault(t, err, fault.PaymentRequired, billingapi.CodeTrialLimit, "this send needs 6 credits; 4 trial credits remain")
		check.NoError(t, consume("team_trial", "msg_5", 4))
		a, err = h.Accounts.Get(ctx, "team_trial")
		check.NoError(t, err)
		check.Equal(t, a.TrialUsed, 10, "the trial's credits drawn")
		check.Equal(t, a.CreditsUsed, 0, "trial sends are not the period's paid credits")
		check.Equal(t, a.TrialRemaining(), 0, "none left")

		h.Clock.Advance(2 * time.Hour) // the next month, in UTC
		a, err = h.Accounts.Get(ctx, "team_paid")
		check.NoError(t, err)
		check.Equal(t, a.CreditsUsed, 0, "a new period starts at zero")
		check.NoError(t, consume("team_paid", "msg_6", 5))
		a, err = h.Accounts.Get(ctx, "team_paid")
		check.NoError(t, err)
		check.Equal(t, a.CreditsUsed, 5, "the new period's credits")
		a, err = h.Accounts.Get(ctx, "team_trial")
		check.NoError(t, err)
		check.Equal(t, a.TrialUsed, 10, "the trial allowance is not monthly")

		check.Refused(t, consume("team_none", "msg_7", 1), "credits for a team without an account")
		check.Refused(t, consume("team_paid", "msg_8", -1), "negative credits")
		a, err = h.Accounts.Get(ctx, "team_paid")
		check.NoError(t, err)
		check.Equal(t, a.CreditsUsed, 5, "a refused charge records nothing")
	})

	t.Run("ConsumeSerialisesATrial", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		check.NoError(t, h.Accounts.Open(ctx, "team_trial", billingapi.Settings{Plan: billingapi.PlanTeam, Trial: true, TrialCredits: 5}))
		var wg sync.WaitGroup
		errs := make([]error, 12)
		for i := range errs {
			wg.Go(func() {
				errs[i] = h.DB.Tx(ctx, func(ctx context.Context) error {
					return h.Accounts.Consume(ctx, "team_trial", fmt.Sprint("msg_", i), 1)
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
			if f, ok := fault.As(err); !ok || f.Code != billingapi.CodeTrialLimit {
				t.Errorf("a concurrent send over the trial: %v, want trial_limit", err)
			}
		}
		check.Equal(t, okCount, 5, "concurrent sends never spend more than the trial")
		a, err := h.Accounts.Get(ctx, "team_trial")
		check.NoError(t, err)
		check.Equal(t, a.TrialUsed, 5, "the trial's credits drawn")
	})

	t.Run("WithCredits", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		check.NoError(t, h.Accounts.Open(ctx, "team_1", billingapi.Settings{Plan: billingapi.PlanOrganization, CardOnFile: true}))
		read := billingapi.Standing{TeamID: "team_1", Plan: billingapi.PlanOrganization}.Account() // as the gate read it
		acc, err := h.Accounts.WithCredits(ctx, read)
		check.NoError(t, err)
		check.Equal(t, acc.CreditsIncluded, 25000, "the plan's allowance")
		check.Equal(t, acc.CreditsUsed, 0, "nothing sent yet")
		check.NoError(t, h.Accounts.Consume(ctx, "team_1", "msg_1", 3))
		acc, err = h.Accounts.WithCredits(ctx, read)
		check.NoError(t, err)
		check.Equal(t, acc.CreditsUsed, 3, "this period's credits")
		got, err := h.Accounts.Get(ctx, "team_1")
		check.NoError(t, err)
		st, err := h.Accounts.Status(ctx, "team_1")
		check.NoError(t, err)
		filled, err := h.Accounts.WithCredits(ctx, st)
		check.NoError(t, err)
		check.Equal(t, filled, got, "Get is Status with its credits")
	})

	t.Run("AccessSQL", func(t *testing.T) {
		t.Parallel()
		ctx, h, _ := setup(t)
		check.NoError(t, h.Accounts.Open(ctx, "team_1", billingapi.Settings{Plan: billingapi.PlanOrganization, CardOnFile: true, Trial: true, TrialCredits: 9}))
		check.NoError(t, h.Accounts.Open(ctx, "team_2", billingapi.Settings{Plan: billingapi.PlanFree}))
		q := `SELECT a.* FROM (VALUES ($1::text)) t(id), LATERAL (` + h.Accounts.AccessSQL("t.id") + `) a`
		rows, err := h.DB.Pool.Query(ctx, q, "team_1")
		check.NoError(t, err)
		var got [][]any
		for rows.Next() {
			var (
				plan, state  string
				card, trial  bool
				trialCredits int
			)
			check.NoError(t, rows.Scan(&plan, &card, &state, &trial, &trialCredits))
			got = append(got, []any{plan, card, state, trial, trialCredits})
		}
		rows.Close()
		check.NoError(t, rows.Err())
		check.Equal(t, got, [][]any{{"organization", true, billingapi.PaymentOK, true, 9}}, "one row of the team's columns")

		rows, err = h.DB.Pool.Query(ctx, q, "team_none")
		check.NoError(t, err)
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		check.NoError(t, rows.Err())
		check.Equal(t, n, 0, "no row for a team without an account")
	})
}

// periodEnd is an hour before a month ends, in UTC.
var periodEnd = time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)

// recorder is the suite's payment listener: it keeps what the account said
// when it was told, and answers fail.
type recorder struct {
	standings billingapi.Standings
	mu        sync.Mutex
	seen      []billingapi.Standing
	fail      error
}

func (r *recorder) OnPaymentRecovered(ctx context.Context, teamID string) error {
	s, err := r.standings.Standing(ctx, teamID) // inside the changing transaction
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, s)
	return r.fail
}

func (r *recorder) setFail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = err
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = nil
}

func (r *recorder) all() []billingapi.Standing {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]billingapi.Standing(nil), r.seen...)
}
