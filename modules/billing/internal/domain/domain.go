// Package domain holds billing's aggregate, the Account: a team's plan,
// card on file, payment state and trial, with the rules on them — what a
// patch changes, when an overdue renewal counts as paid, what a send may
// charge, and each plan's monthly allowance. No I/O.
package domain

import (
	"errors"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/platform/fault"
)

// ErrNotFound is a team with no billing account.
var ErrNotFound = errors.New("billing account not found")

// Included is the plan's monthly credit allowance; 0 for an unknown plan
// (billingapi.Plan.CreditsIncluded, the one table).
func Included(p billingapi.Plan) int { return p.CreditsIncluded() }

// Period is the credit period a time belongs to: its UTC calendar month.
func Period(t time.Time) string { return t.UTC().Format("2006-01") }

// Account is a team's billing account.
type Account struct {
	TeamID       string
	Plan         billingapi.Plan
	CardOnFile   bool
	PaymentState string
	Trial        bool
	TrialCredits int
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Open is a new team's account: its payment state starts ok.
func Open(teamID string, s billingapi.Settings, now time.Time) Account {
	now = now.UTC()
	return Account{TeamID: teamID, Plan: s.Plan, CardOnFile: s.CardOnFile, PaymentState: billingapi.PaymentOK,
		Trial: s.Trial, TrialCredits: s.TrialCredits, CreatedAt: now, UpdatedAt: now}
}

// Apply changes the account by p (nil fields are left alone) at now. It
// reports whether the change pays an overdue renewal (payment state
// overdue → ok), which billing's listeners are told of.
func (a *Account) Apply(p billingapi.Patch, now time.Time) (recovered bool) {
	if p.Plan != nil {
		a.Plan = *p.Plan
	}
	if p.CardOnFile != nil {
		a.CardOnFile = *p.CardOnFile
	}
	if p.PaymentState != nil {
		recovered = a.PaymentState == billingapi.PaymentOverdue && *p.PaymentState == billingapi.PaymentOK
		a.PaymentState = *p.PaymentState
	}
	if p.Trial != nil {
		a.Trial = *p.Trial
	}
	if p.TrialCredits != nil {
		a.TrialCredits = *p.TrialCredits
	}
	a.UpdatedAt = now.UTC()
	return recovered
}

// CreditEntry is the credits one send consumed (Ref: the message id), in
// the period it was sent; Trial marks credits drawn from the trial allowance.
type CreditEntry struct {
	TeamID    string
	Period    string
	Ref       string
	Credits   int
	Trial     bool
	CreatedAt time.Time
}

// Charge is the entry recording credits for send ref at now. A trial
// account never goes below zero: with trialUsed credits drawn so far, a
// send needing more than remain is refused (402 trial_limit). Paid plans
// may go over their allowance: overage is reported, not refused.
func (a Account) Charge(ref string, credits, trialUsed int, now time.Time) (CreditEntry, error) {
	if a.Trial {
		if remaining := a.TrialCredits - trialUsed; credits > remaining {
			return CreditEntry{}, fault.Newf(fault.PaymentRequired, billingapi.CodeTrialLimit,
				"this send needs %d credits; %d trial credits remain", credits, max(0, remaining))
		}
	}
	now = now.UTC()
	return CreditEntry{TeamID: a.TeamID, Period: Period(now), Ref: ref, Credits: credits, Trial: a.Trial, CreatedAt: now}, nil
}

// Standing is the account as the gates read it: no credit figures.
func (a Account) Standing() billingapi.Standing {
	return billingapi.Standing{TeamID: a.TeamID, Plan: a.Plan, CardOnFile: a.CardOnFile, PaymentState: a.PaymentState,
		Trial: a.Trial, TrialCredits: a.TrialCredits, CreditsIncluded: Included(a.Plan)}
}
