// Package billing owns plans, credits, card on file, payment state and
// trials, and answers the gates other modules ask about (billingapi).
package billing

import (
	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/internal/postgres"
	"github.com/teamtext/teamtext/modules/billing/internal/service"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
)

// Migrations is the billing module's schema history, applied by `teamtext migrate`.
func Migrations() db.MigrationSet { return postgres.Migrations() }

// serviceParams are billing's collaborators: other modules join the
// "payment_recovered" group with a billingapi.PaymentListener.
type serviceParams struct {
	fx.In
	DB        *db.DB
	Clock     clock.Clock
	Recovered []billingapi.PaymentListener `group:"payment_recovered"`
}

func newAccounts(p serviceParams) *service.Accounts {
	return service.New(service.Deps{Tx: p.DB, Store: postgres.NewStore(p.DB), AccessSQL: postgres.AccessSQL,
		Clock: p.Clock, Listeners: p.Recovered})
}

// Module wires billing: billingapi.Accounts and billingapi.Standings.
var Module = fx.Module("billing",
	fx.Provide(
		fx.Private, newAccounts,
	),
	fx.Provide(
		func(a *service.Accounts) billingapi.Accounts { return a },
		func(a *service.Accounts) billingapi.Standings { return a },
	),
)
