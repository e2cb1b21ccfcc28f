// Package service implements billingapi.Accounts and billingapi.Standings:
// the use cases over domain.Account, through the store they declare.
package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
)

// Store is what the use cases need of storage (postgres.Store). Every
// method joins the transaction carried by ctx, if any.
type Store interface {
	Insert(ctx context.Context, a domain.Account) error
	// Get and Update answer domain.ErrNotFound for a team without an account.
	Get(ctx context.Context, teamID string) (domain.Account, error)
	GetMany(ctx context.Context, teamIDs []string) ([]domain.Account, error)
	// Update locks the account, applies change and writes it back.
	Update(ctx context.Context, teamID string, change func(*domain.Account) error) error
	// Charge locks the account and records the entry charge returns; trialUsed
	// is the trial credits drawn so far (read for trial accounts only).
	Charge(ctx context.Context, teamID string, charge func(a domain.Account, trialUsed int) (domain.CreditEntry, error)) error
	// CreditsUsed is a period's paid credits and all trial credits drawn.
	CreditsUsed(ctx context.Context, teamID, period string) (used, trialUsed int, err error)
}

// Transactor runs fn in a transaction carried by its ctx (*db.DB); a
// nested call joins the outer one.
type Transactor interface {
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Deps are the service's collaborators.
type Deps struct {
	Tx    Transactor
	Store Store
	// AccessSQL is the store's sub-select for the API gate (postgres.AccessSQL).
	AccessSQL func(teamID string) string
	Clock     clock.Clock
	// Listeners are told, in the changing transaction, when an overdue
	// renewal is paid.
	Listeners []billingapi.PaymentListener
}

// Accounts are billing's use cases.
type Accounts struct {
	Deps
}

// New returns the accounts service.
func New(d Deps) *Accounts { return &Accounts{Deps: d} }

var (
	_ billingapi.Accounts  = (*Accounts)(nil)
	_ billingapi.Standings = (*Accounts)(nil)
)

// notFound is the answer for a team without an account.
func notFound(err error) error {
	if errors.Is(err, domain.ErrNotFound) {
		return fault.NotFoundf("team not found")
	}
	return err
}

// Open creates a team's account.
func (a *Accounts) Open(ctx context.Context, teamID string, s billingapi.Settings) error {
	return a.Store.Insert(ctx, domain.Open(teamID, s, a.Clock.Now()))
}

// Update applies a patch; the change takes effect at once. When it pays an
// overdue renewal, the listeners are told after the account is written, in
// the same transaction.
func (a *Accounts) Update(ctx context.Context, teamID string, p billingapi.Patch) error {
	return a.Tx.Tx(ctx, func(ctx context.Context) error {
		recovered := false
		err := a.Store.Update(ctx, teamID, func(acc *domain.Account) error {
			recovered = acc.Apply(p, a.Clock.Now())
			return nil
		})
		if err != nil {
			return notFound(err)
		}
		if recovered {
			for _, l := range a.Listeners {
				if err := l.OnPaymentRecovered(ctx, teamID); err != nil {
					return fmt.Errorf("payment recovered listener: %w", err)
				}
			}
		}
		return nil
	})
}

// Standing implements billingapi.Standings: one indexed row.
func (a *Accounts) Standing(ctx context.Context, teamID string) (billingapi.Standing, error) {
	acc, err := a.Store.Get(ctx, teamID)
	if err != nil {
		return billingapi.Standing{}, notFound(err)
	}
	return acc.Standing(), nil
}

// Standings implements billingapi.Standings.
func (a *Accounts) Standings(ctx context.Context, teamIDs []string) (map[string]billingapi.Standing, error) {
	out := make(map[string]billingapi.Standing, len(teamIDs))
	if len(teamIDs) == 0 {
		return out, nil
	}
	accs, err := a.Store.GetMany(ctx, teamIDs)
	if err != nil {
		return nil, err
	}
	for _, acc := range accs {
		out[acc.TeamID] = acc.Standing()
	}
	return out, nil
}

// Status implements billingapi.Accounts: Standing as an Account.
func (a *Accounts) Status(ctx context.Context, teamID string) (billingapi.Account, error) {
	s, err := a.Standing(ctx, teamID)
	if err != nil {
		return billingapi.Account{}, err
	}
	return s.Account(), nil
}

// Statuses implements billingapi.Accounts.
func (a *Accounts) Statuses(ctx context.Context, teamIDs []string) (map[string]billingapi.Account, error) {
	ss, err := a.Standings(ctx, teamIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]billingapi.Account, len(ss))
	for id, s := range ss {
		out[id] = s.Account()
	}
	return out, nil
}

// Get reads a team's account with this period's credits used and the trial credits used.
func (a *Accounts) Get(ctx context.Context, teamID string) (billingapi.Account, error) {
	acc, err := a.Status(ctx, teamID)
	if err != nil {
		return acc, err
	}
	return a.WithCredits(ctx, acc)
}

// Consume implements billingapi.Accounts: the account's Charge rule,
// recorded under the account's lock.
func (a *Accounts) Consume(ctx context.Context, teamID, ref string, credits int) error {
	return a.Store.Charge(ctx, teamID, func(acc domain.Account, trialUsed int) (domain.CreditEntry, error) {
		return acc.Charge(ref, credits, trialUsed, a.Clock.Now())
	})
}

// AccessSQL implements billingapi.Accounts.
func (a *Accounts) AccessSQL(teamID string) string { return a.Deps.AccessSQL(teamID) }

// WithCredits implements billingapi.Accounts.
func (a *Accounts) WithCredits(ctx context.Context, acc billingapi.Account) (billingapi.Account, error) {
	acc.CreditsIncluded = domain.Included(acc.Plan)
	used, trialUsed, err := a.Store.CreditsUsed(ctx, acc.TeamID, domain.Period(a.Clock.Now()))
	if err != nil {
		return billingapi.Account{}, err
	}
	acc.CreditsUsed, acc.TrialUsed = used, trialUsed
	return acc, nil
}
