package messaging

import (
	"log/slog"

	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/admin"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	msghttp "github.com/teamtext/teamtext/modules/messaging/internal/httpapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/worker"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/httpapi"
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

// --- Inbound texts, keywords, the inbox and analytics (issue 7) ---

// inboundIn gathers the inbound use cases' collaborators from the graph.
type inboundIn struct {
	fx.In
	DB      *db.DB
	Repo    *postgres.Repo
	Jobs    *jobs.Jobs
	Clock   clock.Clock
	Teams   rosterapi.Teams
	Members rosterapi.Members
	Lookup  rosterapi.Lookup
	OptOuts rosterapi.OptOuts
	Stats   rosterapi.Stats
	Billing billingapi.Accounts
	Events  events.Publisher
	Carrier carrier.Carrier
	Log     *slog.Logger
}

// inboundOptions wire inbound: the service, its workers and operations, and
// the releaser of held texts as billing's payment_recovered listener. The
// releaser gets the event publisher through Bind, not its constructor: the
// publisher reads billing accounts, and billing takes the listeners.
var inboundOptions = fx.Options(
	fx.Provide(
		func(in inboundIn) *inbound.Service {
			return inbound.New(inbound.Deps{DB: in.DB, Repo: in.Repo, Jobs: in.Jobs, Clock: in.Clock, Teams: in.Teams, Members: in.Members,
				Lookup: in.Lookup, OptOuts: in.OptOuts, Stats: in.Stats, Billing: in.Billing, Events: in.Events, Carrier: in.Carrier, Log: in.Log})
		},
		inbound.NewReleaser,
		fx.Annotate(func(r *inbound.Releaser) billingapi.PaymentListener { return r }, fx.ResultTags(`group:"payment_recovered"`)),
	),
	fx.Invoke(
		func(r *inbound.Releaser, p events.Publisher) { r.Bind(p) },
		func(j *jobs.Jobs, s *inbound.Service) { j.Register(worker.InboundRegistration(s)) },
		func(api httpapi.Public, s *inbound.Service) { msghttp.RegisterInbound(api.API, s) },
		func(api httpapi.Admin, s *inbound.Service, c carrier.Carrier, sim *simulator.Simulator, d *db.DB, j *jobs.Jobs, clk clock.Clock) {
			deps := admin.InboundDeps{Service: s, DB: d, Jobs: j, Clock: clk}
			if c == carrier.Carrier(sim) {
				deps.Simulator = sim // the simulator's injection only when it is the carrier
			}
			admin.RegisterInbound(api.API, deps)
		},
	),
)
