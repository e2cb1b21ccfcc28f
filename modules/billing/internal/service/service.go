// Package service implements billingapi.Accounts.
package service

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/internal/postgres"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/fault"
)

// CreditsIncluded is each plan's monthly credit allowance (season plans
// include the same per month). One table, mirrored in the README.
var CreditsIncluded = map[string]int{
	"free":         100,
	"team":         1000,
	"team_plus":    5000,
	"organization": 25000,
	"business":     100000,
}

// Accounts stores and reads billing accounts.
type Accounts struct {
	db    *db.DB
	clock clock.Clock
}

// New returns the accounts service.
func New(d *db.DB, clk clock.Clock) *Accounts { return &Accounts{db: d, clock: clk} }

var _ billingapi.Accounts = (*Accounts)(nil)

// Open creates a team's account.
func (a *Accounts) Open(ctx context.Context, teamID string, s billingapi.Settings) error {
	now := a.clock.Now().UTC()
	row := &postgres.Account{TeamID: teamID, Plan: s.Plan, CardOnFile: s.CardOnFile, PaymentState: billingapi.PaymentOK,
		Trial: s.Trial, TrialCredits: s.TrialCredits, CreatedAt: now, UpdatedAt: now}
	if _, err := a.db.IDB(ctx).NewInsert().Model(row).Exec(ctx); err != nil {
		return fmt.Errorf("open billing account: %w", err)
	}
	return nil
}

// Update applies a patch; the change takes effect at once.
func (a *Accounts) Update(ctx context.Context, teamID string, p billingapi.Patch) error {
	return a.db.Tx(ctx, func(ctx context.Context) error {
		row := new(postgres.Account)
		err := a.db.IDB(ctx).NewSelect().Model(row).Where("team_id = ?", teamID).For("UPDATE").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return fault.NotFoundf("team not found")
		}
		if err != nil {
			return fmt.Errorf("select billing account: %w", err)
		}
		if p.Plan != nil {
			row.Plan = *p.Plan
		}
		if p.CardOnFile != nil {
			row.CardOnFile = *p.CardOnFile
		}
		if p.PaymentState != nil {
			row.PaymentState = *p.PaymentState
		}
		if p.Trial != nil {
			row.Trial = *p.Trial
		}
		if p.TrialCredits != nil {
			row.TrialCredits = *p.TrialCredits
		}
		row.UpdatedAt = a.clock.Now().UTC()
		if _, err := a.db.IDB(ctx).NewUpdate().Model(row).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("update billing account: %w", err)
		}
		return nil
	})
}

// Get reads a team's account.
//
// STUB (until the billing issue lands the credit ledger): CreditsUsed is
// always 0; CreditsIncluded comes from the plan table.
func (a *Accounts) Get(ctx context.Context, teamID string) (billingapi.Account, error) {
	row := new(postgres.Account)
	err := a.db.IDB(ctx).NewSelect().Model(row).Where("team_id = ?", teamID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return billingapi.Account{}, fault.NotFoundf("team not found")
	}
	if err != nil {
		return billingapi.Account{}, fmt.Errorf("select billing account: %w", err)
	}
	base := string(row.Plan)
	if len(base) > 7 && base[len(base)-7:] == "_season" {
		base = base[:len(base)-7]
	}
	return billingapi.Account{TeamID: row.TeamID, Plan: row.Plan, CardOnFile: row.CardOnFile, PaymentState: row.PaymentState,
		Trial: row.Trial, TrialCredits: row.TrialCredits, CreditsUsed: 0, CreditsIncluded: CreditsIncluded[base]}, nil
}

// Access implements auth.Accounts for the public API's gate.
func (a *Accounts) Access(ctx context.Context, teamID string) (auth.AccountAccess, error) {
	acc, err := a.Get(ctx, teamID)
	if err != nil {
		return auth.AccountAccess{}, err
	}
	return auth.AccountAccess{APIIncluded: acc.Plan.IncludesAPI(), CardOnFile: acc.CardOnFile}, nil
}
