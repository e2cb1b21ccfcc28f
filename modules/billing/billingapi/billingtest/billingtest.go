// Package billingtest is an in-memory billing for other modules' tests:
// Accounts implements billingapi.Accounts and billingapi.Standings over
// maps. Exercise is the contract suite it shares with the real module, so
// that what a test learns from the fake holds of billing on Postgres.
//
// Where it differs, by nature: writes apply at once (a caller's
// transaction that rolls back does not undo a charge), and AccessSQL's
// text carries the accounts as they are when it is called.
package billingtest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
)

// Accounts is an in-memory billing. The zero value is not usable: use New.
type Accounts struct {
	clock     clock.Clock
	listeners []billingapi.PaymentListener

	mu       sync.Mutex
	accounts map[string]billingapi.Standing
	entries  map[string]map[string]entry // team → ref → the credits of one send
	// failConsume, when set, answers Consume before it charges.
	failConsume func(teamID, ref string, credits int) error
}

// entry is one send's credits, in the period (UTC month) it was charged.
type entry struct {
	period  string
	credits int
	trial   bool
}

var (
	_ billingapi.Accounts  = (*Accounts)(nil)
	_ billingapi.Standings = (*Accounts)(nil)
)

// New returns an empty billing on clk (which sets each charge's period),
// telling listeners of paid overdue renewals as the module tells its
// "payment_recovered" group.
func New(clk clock.Clock, listeners ...billingapi.PaymentListener) *Accounts {
	return &Accounts{clock: clk, listeners: listeners, accounts: map[string]billingapi.Standing{}, entries: map[string]map[string]entry{}}
}

// errNotFound is the module's answer for a team without an account.
func errNotFound() error { return fault.NotFoundf("team not found") }

// period is the credit period t belongs to: its UTC calendar month.
func period(t time.Time) string { return t.UTC().Format("2006-01") }

// Open implements billingapi.Accounts: one account per team.
func (a *Accounts) Open(_ context.Context, teamID string, s billingapi.Settings) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.accounts[teamID]; ok {
		return fmt.Errorf("open billing account: team %s has one already", teamID)
	}
	a.accounts[teamID] = billingapi.Standing{TeamID: teamID, Plan: s.Plan, CardOnFile: s.CardOnFile, PaymentState: billingapi.PaymentOK,
		Trial: s.Trial, TrialCredits: s.TrialCredits, CreditsIncluded: s.Plan.CreditsIncluded()}
	return nil
}

// Update implements billingapi.Accounts. A change that pays an overdue
// renewal is told to the listeners after it is written; one that fails
// undoes the change, as the module's transaction does.
func (a *Accounts) Update(ctx context.Context, teamID string, p billingapi.Patch) error {
	a.mu.Lock()
	before, ok := a.accounts[teamID]
	if !ok {
		a.mu.Unlock()
		return errNotFound()
	}
	after := before
	if p.Plan != nil {
		after.Plan, after.CreditsIncluded = *p.Plan, p.Plan.CreditsIncluded()
	}
	if p.CardOnFile != nil {
		after.CardOnFile = *p.CardOnFile
	}
	recovered := false
	if p.PaymentState != nil {
		recovered = before.PaymentState == billingapi.PaymentOverdue && *p.PaymentState == billingapi.PaymentOK
		after.PaymentState = *p.PaymentState
	}
	if p.Trial != nil {
		after.Trial = *p.Trial
	}
	if p.TrialCredits != nil {
		after.TrialCredits = *p.TrialCredits
	}
	a.accounts[teamID] = after
	a.mu.Unlock()
	if !recovered {
		return nil
	}
	for _, l := range a.listeners { // unlocked: a listener reads the account
		if err := l.OnPaymentRecovered(ctx, teamID); err != nil {
			a.mu.Lock()
			a.accounts[teamID] = before
			a.mu.Unlock()
			return fmt.Errorf("payment recovered listener: %w", err)
		}
	}
	return nil
}

// Standing implements billingapi.Standings.
func (a *Accounts) Standing(_ context.Context, teamID string) (billingapi.Standing, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.accounts[teamID]
	if !ok {
		return billingapi.Standing{}, errNotFound()
	}
	return s, nil
}

// Standings implements billingapi.Standings.
func (a *Accounts) Standings(_ context.Context, teamIDs []string) (map[string]billingapi.Standing, error) {
	return pick(a, teamIDs, func(s billingapi.Standing) billingapi.Standing { return s }), nil
}

// Status implements billingapi.Accounts: the standing as an Account (the
// zero Account when there is none).
func (a *Accounts) Status(ctx context.Context, teamID string) (billingapi.Account, error) {
	s, err := a.Standing(ctx, teamID)
	return s.Account(), err
}

// Statuses implements billingapi.Accounts.
func (a *Accounts) Statuses(_ context.Context, teamIDs []string) (map[string]billingapi.Account, error) {
	return pick(a, teamIDs, billingapi.Standing.Account), nil
}

// pick maps the accounts of teamIDs that exist by as.
func pick[T any](a *Accounts, teamIDs []string, as func(billingapi.Standing) T) map[string]T {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]T, len(teamIDs))
	for _, id := range teamIDs {
		if s, ok := a.accounts[id]; ok {
			out[id] = as(s)
		}
	}
	return out
}

// Get implements billingapi.Accounts: Status with its credit figures.
func (a *Accounts) Get(ctx context.Context, teamID string) (billingapi.Account, error) {
	acc, err := a.Status(ctx, teamID)
	if err != nil {
		return acc, err
	}
	return a.WithCredits(ctx, acc)
}

// Consume implements billingapi.Accounts: billing's charge rule. A trial
// account never goes below zero (402 trial_limit, decided before a repeated
// ref is ignored, as the module decides it); paid plans may go over.
func (a *Accounts) Consume(_ context.Context, teamID, ref string, credits int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failConsume != nil {
		if err := a.failConsume(teamID, ref, credits); err != nil {
			return err
		}
	}
	s, ok := a.accounts[teamID]
	if !ok {
		return fmt.Errorf("lock billing account: team %s has none", teamID)
	}
	if s.Trial {
		if remaining := s.TrialCredits - a.trialUsed(teamID); credits > remaining {
			return fault.Newf(fault.PaymentRequired, billingapi.CodeTrialLimit,
				"this send needs %d credits; %d trial credits remain", credits, max(0, remaining))
		}
	}
	if credits < 0 {
		return fmt.Errorf("record credits: %d credits for %s", credits, ref)
	}
	if a.entries[teamID] == nil {
		a.entries[teamID] = map[string]entry{}
	}
	if _, seen := a.entries[teamID][ref]; !seen {
		a.entries[teamID][ref] = entry{period: period(a.clock.Now()), credits: credits, trial: s.Trial}
	}
	return nil
}

// trialUsed is the trial credits the team has drawn; a.mu is held.
func (a *Accounts) trialUsed(teamID string) int {
	n := 0
	for _, e := range a.entries[teamID] {
		if e.trial {
			n += e.credits
		}
	}
	return n
}

// WithCredits implements billingapi.Accounts: the plan's allowance, this
// period's paid credits and all trial credits drawn.
func (a *Accounts) WithCredits(_ context.Context, acc billingapi.Account) (billingapi.Account, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	acc.CreditsIncluded = acc.Plan.CreditsIncluded()
	now := period(a.clock.Now())
	acc.CreditsUsed, acc.TrialUsed = 0, a.trialUsed(acc.TeamID)
	for _, e := range a.entries[acc.TeamID] {
		if !e.trial && e.period == now {
			acc.CreditsUsed += e.credits
		}
	}
	return acc, nil
}

// AccessSQL implements billingapi.Accounts with the accounts there are
// now written into the text: a caller that builds its statement once sees
// the accounts of that moment.
func (a *Accounts) AccessSQL(teamID string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := make([]string, 0, len(a.accounts))
	for id := range a.accounts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rows := []string{"(NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::boolean, NULL::integer)"} // the columns' types
	for _, id := range ids {
		s := a.accounts[id]
		rows = append(rows, fmt.Sprintf("(%s, %s, %t, %s, %t, %d)", quote(id), quote(string(s.Plan)), s.CardOnFile, quote(s.PaymentState),
			s.Trial, s.TrialCredits))
	}
	return `SELECT a.plan, a.card_on_file, a.payment_state, a.trial, a.trial_credits FROM (VALUES ` + strings.Join(rows, ", ") +
		`) AS a(team_id, plan, card_on_file, payment_state, trial, trial_credits) WHERE a.team_id = ` + teamID
}

// quote is s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Charged is the credits recorded for send ref of the team (0 if none):
// the module's credit entry, for tests to read.
func (a *Accounts) Charged(teamID, ref string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.entries[teamID][ref].credits
}

// FailConsume makes Consume answer fail's error, when not nil, before it
// charges anything: a refusal the fake cannot reach by itself (a
// concurrent send spending a trial between a check and the charge). nil
// clears it.
func (a *Accounts) FailConsume(fail func(teamID, ref string, credits int) error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.failConsume = fail
}
