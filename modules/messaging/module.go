package messaging

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/accounts"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	msghttp "github.com/teamtext/teamtext/modules/messaging/internal/httpapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/ingest"
	msgmetrics "github.com/teamtext/teamtext/modules/messaging/internal/metrics"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/messaging/internal/settings"
	msgweb "github.com/teamtext/teamtext/modules/messaging/internal/web"
	"github.com/teamtext/teamtext/modules/messaging/internal/worker"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/loops"
	"github.com/teamtext/teamtext/platform/metrics"
	"github.com/teamtext/teamtext/platform/web"
)

// Module wires messaging. The key_revoked listener and the releaser take no
// contract (roster and billing take them); the releaser gets the event
// publisher through Bind (the publisher reads billing accounts).
var Module = fx.Module("messaging",
	fx.Provide(
		fx.Annotate(postgres.NewRepo, fx.As(fx.Self()), fx.As(new(messagingapi.DeliveryLog))),
		fx.Annotate(service.NewKeyRevoked, fx.From(new(*postgres.Repo)), fx.ResultTags(`group:"key_revoked"`), fx.As(new(rosterapi.KeyRevokedListener))),
		func(m *metrics.Metrics) msgmetrics.Instruments { return msgmetrics.New(m.Registry) },
		fx.Annotate(accounts.Open, fx.From(new(*postgres.Repo))),
		accounts.NewCarrier,
		func(cfg config.Config, d *db.DB, j *jobs.Jobs, clk clock.Clock, r *postgres.Repo) *simulator.Simulator {
			return simulator.New(d, j, clk, cfg.SimulatorProfile, outbound.Throughputs(postgres.NewOutboundStore(d, r), cfg.TwilioRate))
		},
		newCarrierRoutes, newIngest, newOutbound, newService, newFiling,
		fx.Annotate(service.NewContract, fx.As(new(messagingapi.Sender)), fx.As(new(messagingapi.Templates))),
		fx.Annotate(newReplies, fx.As(fx.Self()), fx.As(new(messagingapi.Texter))),
		func(r *postgres.Repo, clk clock.Clock) *inbound.Inbox {
			return inbound.NewInbox(inbound.InboxDeps{Store: r, Clock: clk})
		},
		func(p deps) *inbound.Analytics {
			return inbound.NewAnalytics(inbound.AnalyticsDeps{Counters: p.Repo, Stats: p.Stats, Clock: p.Clock})
		},
		func(p deps) *inbound.TeamKeywords {
			return inbound.NewTeamKeywords(inbound.KeywordDeps{Tx: p.DB, Store: p.Repo, Jobs: p.Jobs, Teams: p.Teams, Groups: p.Groups,
				OptOuts: p.OptOuts, Clock: p.Clock, Log: p.Log})
		},
		func(p deps) *settings.Service {
			return settings.New(settings.Deps{Tx: p.DB, Store: p.Repo, Teams: p.Teams, Clock: p.Clock, Config: p.Config})
		},
		func(d *db.DB, r *postgres.Repo, clk clock.Clock, log *slog.Logger) *inbound.Releaser {
			return inbound.NewReleaser(inbound.ReleaserDeps{Tx: d, Store: r, Clock: clk, Log: log})
		},
		fx.Annotate(func(r *inbound.Releaser) billingapi.PaymentListener { return r }, fx.ResultTags(`group:"payment_recovered"`)),
		fx.Annotate(worker.Queues, fx.ResultTags(`group:"queues,flatten"`)),
		fx.Annotate(worker.Outbound, fx.ResultTags(`group:"workers"`)),
		fx.Annotate(worker.Simulator, fx.ResultTags(`group:"workers"`)),
		fx.Annotate(func(s *inbound.Service, rs *inbound.Replies, clk clock.Clock, ins msgmetrics.Instruments) jobs.Registration {
			return worker.Inbound(s, rs, clk, ins.InboundLag)
		}, fx.ResultTags(`group:"workers"`)),
	),
	fx.Invoke(register, startEngine, startFiler, func(r *inbound.Releaser, p events.Publisher) { r.Bind(p) }),
)

// deps are the collaborators messaging's use cases share: the platform's,
// the repository and the other modules' contracts.
type deps struct {
	fx.In
	Config   config.Config
	DB       *db.DB
	Repo     *postgres.Repo
	Jobs     *jobs.Jobs
	Clock    clock.Clock
	Log      *slog.Logger
	Metrics  *metrics.Metrics
	Events   events.Publisher
	Billing  billingapi.Accounts
	Teams    rosterapi.Teams
	Members  rosterapi.Members
	Audience rosterapi.Audience
	Lookup   rosterapi.Lookup
	Merge    rosterapi.MergeFields
	OptOuts  rosterapi.OptOuts
	Zones    rosterapi.Zones
	Stats    rosterapi.Stats
	Groups   rosterapi.GroupMembers
	Marks    rosterapi.Deliverability
	Keywords rosterapi.Keywords
	Joining  rosterapi.Joining `optional:"true"`
}

func newService(p deps, ob *outbound.Service, c carrier.Carrier) *service.Service {
	return service.New(service.Deps{DB: p.DB, MessageStore: p.Repo, IdempotencyStore: p.Repo, TemplateStore: p.Repo, ScheduledStore: p.Repo,
		Jobs: p.Jobs, Clock: p.Clock, Teams: p.Teams, Members: p.Members, Audience: p.Audience, Lookup: p.Lookup, Merge: p.Merge,
		Billing: p.Billing, Events: p.Events, Outbound: ob, Log: p.Log, Classify: carrier.Classifier(c)})
}

// newIngest keeps numbers' failure streaks: roster's mark, the carrier's codes, UNDELIVERABLE_AFTER.
func newIngest(p deps, c carrier.Carrier, ins msgmetrics.Instruments) *ingest.Service {
	return ingest.New(p.DB, p.Repo, p.Events, p.Clock, p.Log.With("component", "ingest"), ins.StatusLag).Staged(p.Repo).
		TrackNumbers(ingest.Numbers{Roster: p.Marks, Classify: carrier.Classifier(c), MarkAfter: p.Config.UndeliverableAfter,
			Marked: ins.MarkedUndeliverable})
}

func newOutbound(p deps, c carrier.Carrier, in *ingest.Service, ins msgmetrics.Instruments, quiet *settings.Service, a *accounts.Service) *outbound.Service {
	store := postgres.NewOutboundStore(p.DB, p.Repo)
	ob := outbound.New(outbound.Deps{DB: p.DB, Store: store, Jobs: p.Jobs, Clock: p.Clock, Carrier: c,
		Teams: p.Teams, Lookup: p.Lookup, OptOuts: p.OptOuts, Ingest: in, Log: p.Log.With("component", "outbound"),
		DefaultPace: domain.Pace(p.Config.TwilioRate), HandoverDelay: ins.Handover, HandedOver: ins.Handed,
		Lead: outbound.LeadFor(p.Clock), HoldDuration: ins.Held, Quiet: quiet, Zones: p.Zones, Accounts: a,
		Failovers: outbound.FailoverDeps{Store: store, After: p.Config.CarrierFailoverAfter, Moved: ins.FailedOver}})
	msgmetrics.RegisterEngine(p.Metrics.Registry, store, p.Repo, c, p.Clock, p.Log)
	return ob
}

// newReplies and newFiling find a team by any of its sending numbers
// (outbound.NumberLookup), so inbound texts and STOP reach the team.
func newReplies(p deps, ob *outbound.Service, c carrier.Carrier) *inbound.Replies {
	return inbound.NewReplies(inbound.ReplyDeps{Tx: p.DB, Jobs: p.Jobs, Store: p.Repo, Inbox: p.Repo, Clock: p.Clock, Teams: p.Teams,
		Members: p.Members, Lookup: outbound.NumberLookup(p.Lookup, ob), OptOuts: p.OptOuts, Billing: p.Billing, Carrier: c, Log: p.Log})
}

func newFiling(p deps, ob *outbound.Service, r *inbound.Replies, k *inbound.TeamKeywords) *inbound.Service {
	return inbound.New(inbound.Deps{Tx: p.DB, Store: p.Repo, Help: r, Clock: p.Clock, Lookup: outbound.NumberLookup(p.Lookup, ob),
		Billing: p.Billing, Events: p.Events, Log: p.Log, Deliverability: p.Marks, Keywords: p.Keywords, TeamKeywords: k,
		Joining: p.Joining, Answers: r})
}

// parts are messaging's capabilities the HTTP API and the dashboard serve.
type parts struct {
	fx.In
	Send      *service.Service
	Inbound   *inbound.Service
	Inbox     *inbound.Inbox
	Replies   *inbound.Replies
	Analytics *inbound.Analytics
	Numbers   *outbound.Service
	Settings  *settings.Service
	Keywords  *inbound.TeamKeywords
	Simulator *simulator.Simulator
	Accounts  *accounts.Service
}

// register adds messaging's operations (httpapi/routes.go), then its pages;
// the simulator's operations only with CARRIER=simulator (else: 409).
func register(pub httpapi.Public, adm httpapi.Admin, shell *web.Shell, s parts, p deps, groups rosterapi.Groups) error {
	var sim *simulator.Simulator
	var simulated *inbound.Simulated
	if p.Config.Carrier == "simulator" {
		sim, simulated = s.Simulator, &inbound.Simulated{Carrier: s.Simulator, DB: p.DB, Inbound: s.Inbound, Clock: p.Clock}
	}
	msghttp.Register(pub.API, adm.API, msghttp.Services{Send: s.Send, Simulated: simulated, Inbox: s.Inbox, Replies: s.Replies, Analytics: s.Analytics,
		Numbers: s.Numbers, Settings: settings.NewEditor(p.DB, s.Settings, s.Replies), Keywords: s.Keywords, Simulator: sim, Accounts: s.Accounts})
	return msgweb.Register(shell, msgweb.Services{Send: s.Send, Inbox: s.Inbox, Replies: s.Replies, Billing: p.Billing, Groups: groups,
		Numbers: s.Numbers, Analytics: s.Analytics, Settings: s.Settings, Keywords: s.Keywords})
}

// startEngine starts this node's hand-over loops (and stops them before
// the database closes), and makes sure the simulated carrier's report
// pump exists when the simulator is the carrier.
func startEngine(lc fx.Lifecycle, ob *outbound.Service, cfg config.Config, sim *simulator.Simulator, log *slog.Logger) {
	if cfg.Carrier == "simulator" {
		lc.Append(fx.StartHook(sim.EnsureReportPump))
	}
	d := outbound.NewDispatcher(ob, log)
	lc.Append(fx.StartStopHook(d.Start, d.Stop))
}

// startFiler starts this node's filing loops, of inbound texts and of
// delivery statuses (stopped before the database closes), and reports
// their staged backlogs at each scrape.
func startFiler(lc fx.Lifecycle, s *inbound.Service, in *ingest.Service, d *db.DB, r *postgres.Repo, clk clock.Clock, ins msgmetrics.Instruments,
	m *metrics.Metrics, log *slog.Logger) {
	connect := func(ctx context.Context) (*pgx.Conn, error) {
		return pgx.ConnectConfig(ctx, d.Pool.Config().ConnConfig.Copy())
	}
	l := log.With("component", "inbound")
	texts := loops.NewFiler(loops.FilerDeps{Name: "inbound", File: s.FileNext, Lanes: inbound.Lanes, Connect: connect,
		Channel: postgres.InboundChannel, Clock: clk, Lag: ins.InboundLag, Log: l})
	m.Registry.MustRegister(msgmetrics.NewPending(r, clk, l))
	lc.Append(fx.StartStopHook(texts.Start, texts.Stop))

	l = log.With("component", "ingest")
	statuses := loops.NewFiler(loops.FilerDeps{Name: "status", File: in.FileNext, Lanes: domain.StatusLanes, Gather: ingest.StatusGather, Connect: connect,
		Channel: postgres.StatusChannel, Clock: clk, Log: l})
	m.Registry.MustRegister(msgmetrics.NewPendingStatuses(r, clk, l))
	lc.Append(fx.StartStopHook(statuses.Start, statuses.Stop))
}

// newCarrierRoutes: a callback only stages what it carries (ingest.Sink).
func newCarrierRoutes(cfg config.Config, r *postgres.Repo, a *accounts.Service, clk clock.Clock, log *slog.Logger) CarrierRoutes {
	return accounts.CallbackRoutes(cfg, a, ingest.Sink{Statuses: r, Stage: r, Clock: clk}, clk, log)
}
