// Package service implements billingapi.Accounts.
package service

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/internal/postgres"
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

// Accounts stores and reads billing accounts and the credit ledger.
type Accounts struct {
	db        *db.DB
	clock     clock.Clock
	listeners []billingapi.PaymentListener
}

// New returns the accounts service.
func New(d *db.DB, clk clock.Clock, listeners []billingapi.PaymentListener) *Accounts {
	return &Accounts{db: d, clock: clk, listeners: listeners}
}

// Period is the credit period a time belongs to: its UTC calendar month.
func Period(t time.Time) string { return t.UTC().Format("2006-01") }

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
		recovered := false
		if p.PaymentState != nil {
			recovered = row.PaymentState == billingapi.PaymentOverdue && *p.PaymentState == billingapi.PaymentOK
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
		if recovered {
			for _, l := range a.listeners {
				if err := l.OnPaymentRecovered(ctx, teamID); err != nil {
					return fmt.Errorf("payment recovered listener: %w", err)
				}
			}
		}
		return nil
	})
}

// Status implements billingapi.Accounts: the account without credit figures.
func (a *Accounts) Status(ctx context.Context, teamID string) (billingapi.Account, error) {
	row := new(postgres.Account)
	err := a.db.IDB(ctx).NewSelect().Model(row).Where("team_id = ?", teamID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return billingapi.Account{}, fault.NotFoundf("team not found")
	}
	if err != nil {
		return billingapi.Account{}, fmt.Errorf("select billing account: %w", err)
	}
	return status(row), nil
}

// status is an account without its credit figures.
func status(row *postgres.Account) billingapi.Account {
	base := strings.TrimSuffix(string(row.Plan), "_season")
	return billingapi.Account{TeamID: row.TeamID, Plan: row.Plan, CardOnFile: row.CardOnFile, PaymentState: row.PaymentState,
		Trial: row.Trial, TrialCredits: row.TrialCredits, CreditsIncluded: CreditsIncluded[base]}
}

// Statuses implements billingapi.Accounts.
func (a *Accounts) Statuses(ctx context.Context, teamIDs []string) (map[string]billingapi.Account, error) {
	out := make(map[string]billingapi.Account, len(teamIDs))
	if len(teamIDs) == 0 {
		return out, nil
	}
	var rows []postgres.Account
	if err := a.db.IDB(ctx).NewSelect().Model(&rows).Where("team_id IN (?)", bun.In(teamIDs)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("select billing accounts: %w", err)
	}
	for i := range rows {
		out[rows[i].TeamID] = status(&rows[i])
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

// Consume implements billingapi.Accounts.
func (a *Accounts) Consume(ctx context.Context, teamID, ref string, credits int) error {
	return a.db.Tx(ctx, func(ctx context.Context) error {
		row := new(postgres.Account)
		err := a.db.IDB(ctx).NewSelect().Model(row).Where("team_id = ?", teamID).For("UPDATE").Scan(ctx)
		if err != nil {
			return fmt.Errorf("lock billing account: %w", err)
		}
		if row.Trial {
			var used int
			if err := a.db.IDB(ctx).QueryRowContext(ctx, `SELECT coalesce(sum(credits), 0) FROM billing_credit_entries WHERE team_id = ? AND trial`,
				teamID).Scan(&used); err != nil {
				return fmt.Errorf("trial credits used: %w", err)
			}
			if remaining := row.TrialCredits - used; credits > remaining {
				return fault.Newf(fault.PaymentRequired, billingapi.CodeTrialLimit, "this send needs %d credits; %d trial credits remain", credits, max(0, remaining))
			}
		}
		now := a.clock.Now().UTC()
		_, err = a.db.IDB(ctx).ExecContext(ctx, `INSERT INTO billing_credit_entries (team_id, period, ref, credits, trial, created_at)
VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (team_id, ref) DO NOTHING`, teamID, Period(now), ref, credits, row.Trial, now)
		if err != nil {
			return fmt.Errorf("record credits: %w", err)
		}
		return nil
	})
}

// AccessSQL implements billingapi.Accounts.
func (a *Accounts) AccessSQL(teamID string) string {
	return `SELECT plan, card_on_file, payment_state, trial, trial_credits FROM billing_accounts WHERE team_id = ` + teamID
}

// creditsUsed sums this period's paid credits and all trial credits.
const creditsUsed = `SELECT
  coalesce(sum(credits) FILTER (WHERE period = $1 AND NOT trial), 0)::int,
  coalesce(sum(credits) FILTER (WHERE trial), 0)::int
FROM billing_credit_entries WHERE team_id = $2`

// WithCredits implements billingapi.Accounts.
func (a *Accounts) WithCredits(ctx context.Context, acc billingapi.Account) (billingapi.Account, error) {
	acc.CreditsIncluded = CreditsIncluded[strings.TrimSuffix(string(acc.Plan), "_season")]
	err := a.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		return q.QueryRow(ctx, creditsUsed, Period(a.clock.Now()), acc.TeamID).Scan(&acc.CreditsUsed, &acc.TrialUsed)
	})
	if err != nil {
		return billingapi.Account{}, fmt.Errorf("credits used: %w", err)
	}
	return acc, nil
}
