// Package postgres stores billing accounts and the credit ledger, and
// embeds billing's migrations. Its rows are unexported: the service sees
// domain.Account and domain.CreditEntry only.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is billing's schema history.
func Migrations() db.MigrationSet { return db.Embedded("billing", 20, migrationFiles, "migrations") }

// accountRow is a billing_accounts row.
type accountRow struct {
	bun.BaseModel `bun:"table:billing_accounts"`
	TeamID        string          `bun:"team_id,pk"`
	Plan          billingapi.Plan `bun:"plan"`
	CardOnFile    bool            `bun:"card_on_file"`
	PaymentState  string          `bun:"payment_state"`
	Trial         bool            `bun:"trial"`
	TrialCredits  int             `bun:"trial_credits"`
	CreatedAt     time.Time       `bun:"created_at"`
	UpdatedAt     time.Time       `bun:"updated_at"`
}

func toDomain(r *accountRow) domain.Account {
	return domain.Account{TeamID: r.TeamID, Plan: r.Plan, CardOnFile: r.CardOnFile, PaymentState: r.PaymentState,
		Trial: r.Trial, TrialCredits: r.TrialCredits, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func toRow(a domain.Account) *accountRow {
	return &accountRow{TeamID: a.TeamID, Plan: a.Plan, CardOnFile: a.CardOnFile, PaymentState: a.PaymentState,
		Trial: a.Trial, TrialCredits: a.TrialCredits, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

// Store keeps accounts and credit entries. Every method joins the
// transaction carried by ctx, if any.
type Store struct {
	db *db.DB
}

// NewStore returns the store over d.
func NewStore(d *db.DB) *Store { return &Store{db: d} }

// Insert adds a new account.
func (s *Store) Insert(ctx context.Context, a domain.Account) error {
	if _, err := s.db.IDB(ctx).NewInsert().Model(toRow(a)).Exec(ctx); err != nil {
		return fmt.Errorf("open billing account: %w", err)
	}
	return nil
}

// Get reads one account; domain.ErrNotFound when the team has none.
func (s *Store) Get(ctx context.Context, teamID string) (domain.Account, error) {
	row := new(accountRow)
	err := selectAccount(s.db.IDB(ctx), row, teamID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Account{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.Account{}, fmt.Errorf("select billing account: %w", err)
	}
	return toDomain(row), nil
}

// selectAccount is Get's statement: the team's account into row.
func selectAccount(idb bun.IDB, row *accountRow, teamID string) *bun.SelectQuery {
	return idb.NewSelect().Model(row).Where("team_id = ?", teamID)
}

// GetMany reads the accounts of teamIDs in one statement; teams without
// one are left out.
func (s *Store) GetMany(ctx context.Context, teamIDs []string) ([]domain.Account, error) {
	var rows []accountRow
	if err := s.db.IDB(ctx).NewSelect().Model(&rows).Where("team_id IN (?)", bun.In(teamIDs)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("select billing accounts: %w", err)
	}
	out := make([]domain.Account, len(rows))
	for i := range rows {
		out[i] = toDomain(&rows[i])
	}
	return out, nil
}

// Update locks the account, lets change modify it and writes it back, in
// one transaction (the caller's, if ctx carries one); domain.ErrNotFound
// when the team has none.
func (s *Store) Update(ctx context.Context, teamID string, change func(*domain.Account) error) error {
	return s.db.Tx(ctx, func(ctx context.Context) error {
		row := new(accountRow)
		err := s.db.IDB(ctx).NewSelect().Model(row).Where("team_id = ?", teamID).For("UPDATE").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("select billing account: %w", err)
		}
		a := toDomain(row)
		if err := change(&a); err != nil {
			return err
		}
		if _, err := s.db.IDB(ctx).NewUpdate().Model(toRow(a)).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("update billing account: %w", err)
		}
		return nil
	})
}

// Charge locks the account and records the entry charge makes of it, in
// one transaction (the caller's, if ctx carries one): concurrent sends of
// a team are serialised. trialUsed (the trial credits drawn so far) is read
// for a trial account only, the one rule that needs it. A second entry
// with the same ref is ignored.
func (s *Store) Charge(ctx context.Context, teamID string, charge func(a domain.Account, trialUsed int) (domain.CreditEntry, error)) error {
	return s.db.Tx(ctx, func(ctx context.Context) error {
		row := new(accountRow)
		if err := s.db.IDB(ctx).NewSelect().Model(row).Where("team_id = ?", teamID).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("lock billing account: %w", err)
		}
		used := 0
		if row.Trial {
			if err := s.db.IDB(ctx).QueryRowContext(ctx, `SELECT coalesce(sum(credits), 0) FROM billing_credit_entries WHERE team_id = ? AND trial`,
				teamID).Scan(&used); err != nil {
				return fmt.Errorf("trial credits used: %w", err)
			}
		}
		e, err := charge(toDomain(row), used)
		if err != nil {
			return err
		}
		_, err = s.db.IDB(ctx).ExecContext(ctx, `INSERT INTO billing_credit_entries (team_id, period, ref, credits, trial, created_at)
VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (team_id, ref) DO NOTHING`, e.TeamID, e.Period, e.Ref, e.Credits, e.Trial, e.CreatedAt)
		if err != nil {
			return fmt.Errorf("record credits: %w", err)
		}
		return nil
	})
}

// creditsUsed sums a period's paid credits and all trial credits.
const creditsUsed = `SELECT
  coalesce(sum(credits) FILTER (WHERE period = $1 AND NOT trial), 0)::int,
  coalesce(sum(credits) FILTER (WHERE trial), 0)::int
FROM billing_credit_entries WHERE team_id = $2`

// CreditsUsed is the team's paid credits in period and its trial credits
// drawn in all: one statement.
func (s *Store) CreditsUsed(ctx context.Context, teamID, period string) (used, trialUsed int, err error) {
	err = s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		return q.QueryRow(ctx, creditsUsed, period, teamID).Scan(&used, &trialUsed)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("credits used: %w", err)
	}
	return used, trialUsed, nil
}

// AccessSQL is the sub-select billingapi.Accounts.AccessSQL documents,
// over billing's own table.
func AccessSQL(teamID string) string {
	return `SELECT plan, card_on_file, payment_state, trial, trial_credits FROM billing_accounts WHERE team_id = ` + teamID
}
