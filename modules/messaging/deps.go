package messaging

import (
	"context"
	"log/slog"

	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/admin"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	msghttp "github.com/teamtext/teamtext/modules/messaging/internal/httpapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/worker"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/text"
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
	Outbound *outbound.Service
	Log      *slog.Logger
	Carrier  carrier.Carrier // its codes: which failures a resend leaves out
}

// --- Inbound texts, keywords, the inbox and analytics (issue 7) ---

// inboundIn gathers the inbound use cases' collaborators from the graph.
type inboundIn struct {
	fx.In
	DB       *db.DB
	Repo     *postgres.Repo
	Jobs     *jobs.Jobs
	Clock    clock.Clock
	Teams    rosterapi.Teams
	Members  rosterapi.Members
	Lookup   rosterapi.Lookup
	OptOuts  rosterapi.OptOuts
	Keywords rosterapi.Keywords
	Stats    rosterapi.Stats
	Billing  billingapi.Accounts
	Events   events.Publisher
	Carrier  carrier.Carrier
	Outbound *outbound.Service
	Ins      instruments
	Log      *slog.Logger
	// Deliverability: an inbound text clears its number's undeliverable mark.
	Deliverability rosterapi.Deliverability
}

// numberLookup is roster's lookup, except that a number finds the team it
// sends for whether it is the team's own or one added to it: inbound texts
// and STOP to any of a team's numbers reach the team.
type numberLookup struct {
	rosterapi.Lookup
	numbers *outbound.Service
}

func (l numberLookup) TeamByNumber(ctx context.Context, e164 string) (rosterapi.Team, error) {
	return l.numbers.TeamForNumber(ctx, e164)
}

// carrierSink is how carrier adapters hand messaging their callbacks: each
// only enqueues its ingestion job, in its own transaction.
type carrierSink struct {
	db   *db.DB
	jobs *jobs.Jobs
}

// Report and Receive keep what the carrier sent as Postgres can store it
// (text.Storable): a carrier's text is kept, not refused, and a NUL in it
// must not fail the callback forever (the carrier would retry it).
func (s carrierSink) Report(ctx context.Context, a carrier.StatusArgs) error {
	a.ProviderMessageID, a.CarrierStatus = text.Storable(a.ProviderMessageID), text.Storable(a.CarrierStatus)
	a.ErrorCode, a.ErrorMessage = text.Storable(a.ErrorCode), text.Storable(a.ErrorMessage)
	return s.db.Tx(ctx, func(ctx context.Context) error {
		_, err := s.jobs.Insert(ctx, a, nil)
		return err
	})
}

func (s carrierSink) Receive(ctx context.Context, t carrier.InboundText) error {
	return inbound.Enqueue(ctx, s.db, s.jobs, inbound.Args{From: t.From, To: t.To, Body: text.Storable(t.Body),
		ProviderMessageID: text.Storable(t.ProviderMessageID), ReceivedAt: t.ReceivedAt})
}

// inboundOptions wire inbound: the service, its workers and operations, and
// the releaser of held texts as billing's payment_recovered listener. The
// releaser gets the event publisher through Bind, not its constructor: the
// publisher reads billing accounts, and billing takes the listeners.
var inboundOptions = fx.Options(
	fx.Provide(
		func(in inboundIn) *inbound.Service {
			return inbound.New(inbound.Deps{DB: in.DB, Repo: in.Repo, Jobs: in.Jobs, Clock: in.Clock, Teams: in.Teams, Members: in.Members,
				Lookup: numberLookup{Lookup: in.Lookup, numbers: in.Outbound}, OptOuts: in.OptOuts, Keywords: in.Keywords, Stats: in.Stats, Billing: in.Billing,
				Events: in.Events, Carrier: in.Carrier, Log: in.Log, Deliverability: in.Deliverability})
		},
		inbound.NewReleaser,
		fx.Annotate(func(r *inbound.Releaser) billingapi.PaymentListener { return r }, fx.ResultTags(`group:"payment_recovered"`)),
		fx.Annotate(func(s *inbound.Service, clk clock.Clock, ins instruments) jobs.Registration {
			return worker.Inbound(s, clk, ins.inboundLag)
		}, fx.ResultTags(`group:"workers"`)),
	),
	fx.Invoke(
		func(r *inbound.Releaser, p events.Publisher) { r.Bind(p) },
		func(api httpapi.Public, s *inbound.Service) { msghttp.RegisterInbound(api.API, s) },
		func(api httpapi.Admin, s *inbound.Service, c carrier.Carrier, sim *simulator.Simulator, d *db.DB, j *jobs.Jobs, clk clock.Clock) {
			// the simulator's injection only when it is the carrier
			admin.RegisterInbound(api.API, admin.InboundDeps{Service: s, DB: d, Jobs: j, Clock: clk, Simulator: simulatorOnly(c, sim)})
		},
	),
)
