// Package billing owns plans, credits, card on file, payment state and
// trials, and answers the gates other modules ask about (billingapi).
package billing

import (
	"github.com/teamtext/teamtext/platform/db"
	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/internal/postgres"
	"github.com/teamtext/teamtext/modules/billing/internal/service"
)

// Migrations is the billing module's schema history, applied by `teamtext migrate`.
func Migrations() db.MigrationSet { return postgres.Migrations() }

// Module wires billing.
var Module = fx.Module("billing",
	fx.Provide(
		fx.Annotate(service.New, fx.ParamTags(``, ``, `group:"payment_recovered"`), fx.As(new(billingapi.Accounts))),
	),
)
