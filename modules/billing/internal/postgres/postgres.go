// Package postgres stores billing accounts and embeds billing's migrations.
package postgres

import (
	"embed"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/platform/db"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is billing's schema history.
func Migrations() db.MigrationSet { return db.Embedded("billing", 20, migrationFiles, "migrations") }

// Account is a billing_accounts row.
type Account struct {
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
