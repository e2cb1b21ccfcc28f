package messaging

import (
	"log/slog"

	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/jobs"
)

// depsIn gathers the service's collaborators from the graph.
type depsIn struct {
	fx.In
	DB       *db.DB
	Repo     *postgres.Repo
	Jobs     *jobs.Jobs
	Clock    clock.Clock
	Teams    rosterapi.Teams
	Members  rosterapi.Members
	Audience rosterapi.Audience
	Lookup   rosterapi.Lookup
	Billing  billingapi.Accounts
	Events   events.Publisher
	Carrier  carrier.Carrier
	Log      *slog.Logger
}
