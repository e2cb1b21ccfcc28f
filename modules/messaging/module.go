// Package messaging owns templates, sends and estimates, approvals,
// scheduled and weekly sends, the sending numbers and the delivery engine
// that paces texts on them, the carrier port and its adapters, deliveries
// and status ingestion, inbound texts and keywords, the inbox and analytics.
package messaging

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/accounts"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	msghttp "github.com/teamtext/teamtext/modules/messaging/internal/httpapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/ingest"
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
	"github.com/teamtext/teamtext/platform/metrics"
	"github.com/teamtext/teamtext/platform/secrets"
	"github.com/teamtext/teamtext/platform/web"
)

// Migrations is messaging's schema history, applied by `teamtext migrate`.
func Migrations() db.MigrationSet { return postgres.Migrations() }

// keyRevoked stops a revoked key's scheduled sends. It depends on the
// repository only, so roster (which calls it) and messaging's service (which
// needs roster's directory) do not form a cycle.
type keyRevoked struct {
	repo  *postgres.Repo
	clock clock.Clock
	log   *slog.Logger
}

func (k *keyRevoked) OnKeyRevoked(ctx context.Context, ev rosterapi.KeyRevoked) error {
	n, err := k.repo.StopKeyScheduled(ctx, ev.KeyID, "key_revoked", k.clock.Now().UTC())
	if n > 0 {
		k.log.Info("scheduled sends stopped: key revoked", "key_id", ev.KeyID, "count", n)
	}
	return err
}

type keyRevokedParams struct {
	fx.In
	Repo  *postgres.Repo
	Clock clock.Clock
	Log   *slog.Logger
}

func newKeyRevoked(p keyRevokedParams) rosterapi.KeyRevokedListener {
	return &keyRevoked{repo: p.Repo, clock: p.Clock, log: p.Log}
}

// Module wires messaging.
var Module = fx.Module("messaging",
	fx.Provide(
		postgres.NewRepo,
		fx.Annotate(newKeyRevoked, fx.ResultTags(`group:"key_revoked"`)),
		newInstruments,
		newIngest,
		newOutbound,
		newSimulator,
		newCarrier, newCarrierRoutes, newAccounts,
		service.New,
		settings.New,
		fx.Annotate(service.NewContract, fx.As(new(messagingapi.Sender)), fx.As(new(messagingapi.Templates))),
		fx.Annotate(func(cfg config.Config) jobs.Queue {
			return jobs.Queue{Name: outbound.Queue, MaxWorkers: cfg.OutboundWorkers, FetchPollInterval: pumpPoll}
		}, fx.ResultTags(`group:"queues"`)),
		fx.Annotate(func(cfg config.Config) jobs.Queue {
			return jobs.Queue{Name: carrier.StatusQueue, MaxWorkers: cfg.StatusWorkers, FetchPollInterval: pumpPoll}
		}, fx.ResultTags(`group:"queues"`)),
		fx.Annotate(func(cfg config.Config) jobs.Queue {
			return jobs.Queue{Name: inbound.Queue, MaxWorkers: cfg.InboundWorkers}
		}, fx.ResultTags(`group:"queues"`)),
	),
	// what service.Deps takes in this module's own terms (inbound's: deps.go)
	fx.Provide(fx.Private,
		func(ob *outbound.Service) service.Planner { return ob },
		func(d *db.DB) service.Transactor { return d },
		func(j *jobs.Jobs) service.JobInserter { return j },
		func(r *postgres.Repo) service.MessageStore { return r },
		func(r *postgres.Repo) service.IdempotencyStore { return r },
		func(r *postgres.Repo) service.TemplateStore { return r },
		func(r *postgres.Repo) service.ScheduledStore { return r },
		func(c carrier.Carrier) domain.Classifier { return carrier.Classifier(c) }, // which failures a resend leaves out
		func(d *db.DB) settings.Transactor { return d },
		func(r *postgres.Repo) settings.Store { return r },
		fx.Annotate(func(l rosterapi.Lookup, ob *outbound.Service) rosterapi.Lookup {
			return numberLookup{Lookup: l, numbers: ob}
		}, fx.ResultTags(`name:"numbers"`)),
	),
	fx.Provide(
		fx.Annotate(worker.Outbound, fx.ResultTags(`group:"workers"`)),
		fx.Annotate(worker.Simulator, fx.ResultTags(`group:"workers"`)),
	),
	fx.Invoke(
		registerRoutes,
		func(shell *web.Shell, s *service.Service, inbox *inbound.Inbox, replies *inbound.Replies, billing billingapi.Accounts, groups rosterapi.Groups,
			numbers *outbound.Service, analytics *inbound.Analytics, st *settings.Service, kw *inbound.TeamKeywords) error {
			return msgweb.Register(shell, msgweb.Services{Send: s, Inbox: inbox, Replies: replies, Billing: billing, Groups: groups, Numbers: numbers,
				Analytics: analytics, Settings: st, Keywords: kw})
		},
		startEngine,
	),
	inboundOptions, // inbound texts, keywords, inbox, analytics (deps.go)
)

type routesParams struct {
	fx.In
	Public    httpapi.Public
	Admin     httpapi.Admin
	Send      *service.Service
	Inbound   *inbound.Service
	Inbox     *inbound.Inbox
	Replies   *inbound.Replies
	Analytics *inbound.Analytics
	Numbers   *outbound.Service
	Settings  *settings.Service
	Keywords  *inbound.TeamKeywords
	Config    config.Config
	Simulator *simulator.Simulator
	Accounts  *accounts.Service
	DB        *db.DB
	Clock     clock.Clock
}

// registerRoutes adds messaging's public and admin operations (one table:
// httpapi/routes.go); the simulator's operations only when it is the carrier.
func registerRoutes(p routesParams) {
	sim := simulatorOnly(p.Config, p.Simulator)
	var simulated *inbound.Simulated
	if sim != nil {
		simulated = &inbound.Simulated{Carrier: sim, DB: p.DB, Inbound: p.Inbound, Clock: p.Clock}
	}
	msghttp.Register(p.Public.API, p.Admin.API, msghttp.Services{Send: p.Send, Simulated: simulated, Inbox: p.Inbox, Replies: p.Replies, Analytics: p.Analytics,
		Numbers: p.Numbers, Settings: p.Settings, Keywords: p.Keywords, Simulator: sim, DB: p.DB, Accounts: p.Accounts})
}

// pumpPoll is how often the engine's and status queues look for jobs that
// came due without a notification (the simulator's report pump, snoozed).
const pumpPoll = 50 * time.Millisecond

// startEngine starts this node's hand-over loops (and stops them before
// the database closes), and makes sure the simulated carrier's report
// pump exists when the simulator is the carrier.
func startEngine(p engineParams) {
	d := outbound.NewDispatcher(p.Outbound, p.Log)
	p.Lifecycle.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if simulatorOnly(p.Config, p.Simulator) != nil {
				if err := p.Simulator.EnsureReportPump(ctx); err != nil {
					return err
				}
			}
			d.Start()
			return nil
		},
		OnStop: d.Stop,
	})
}

type engineParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Outbound  *outbound.Service
	Config    config.Config
	Simulator *simulator.Simulator
	Log       *slog.Logger
}

// simulatorOnly is sim when it is the default account's carrier
// (CARRIER=simulator), else nil: the admin API's simulator operations
// answer 409 with another carrier.
func simulatorOnly(cfg config.Config, sim *simulator.Simulator) *simulator.Simulator {
	if cfg.Carrier == "simulator" {
		return sim
	}
	return nil
}

// instruments are messaging's metrics.
type instruments struct {
	handover   prometheus.Observer
	handed     prometheus.Counter
	statusLag  prometheus.Observer
	inboundLag prometheus.Observer
	// markedUndeliverable counts numbers marked undeliverable.
	markedUndeliverable prometheus.Counter
	// held observes how long quiet hours hold each held text.
	held prometheus.Observer
	// failedOver counts texts moved off a carrier account that is down.
	failedOver prometheus.Counter
}

func newInstruments(m *metrics.Metrics) instruments {
	delay := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "teamtext_handover_delay_seconds", Help: "Time from a send's acceptance to each of its texts' hand-over to the carrier.",
		Buckets: []float64{.01, .05, .1, .5, 1, 5, 10, 30, 60, 300, 900, 3600, 10800, 43200},
	})
	lag := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "teamtext_ingestion_lag_seconds", Help: "Time from a carrier's callback to its ingestion, by kind (status, inbound).",
		Buckets: []float64{.01, .05, .1, .25, .5, 1, 2, 5, 10, 30, 60},
	}, []string{"kind"})
	handed := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "teamtext_texts_handed_over_total", Help: "Texts this node handed to the carrier (taken or refused by it).",
	})
	marked := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "teamtext_numbers_marked_undeliverable_total", Help: "Numbers marked undeliverable after UNDELIVERABLE_AFTER permanent delivery failures in a row.",
	})
	held := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "teamtext_quiet_hours_hold_seconds", Help: "How long quiet hours hold a routine text, from its send's planning to its slot.",
		Buckets: []float64{60, 300, 900, 1800, 3600, 7200, 14400, 28800, 43200, 86400},
	})
	failedOver := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "teamtext_carrier_failover_texts_total", Help: "Queued texts moved to a team's numbers on healthy carrier accounts while theirs was down.",
	})
	m.Registry.MustRegister(delay, lag, handed, marked, held, failedOver)
	return instruments{handover: delay, handed: handed, statusLag: lag.WithLabelValues("status"), inboundLag: lag.WithLabelValues("inbound"),
		markedUndeliverable: marked, held: held, failedOver: failedOver}
}

func newIngest(p ingestParams) *ingest.Service {
	return ingest.New(p.DB, p.Repo, p.Events, p.Clock, p.Log.With("component", "ingest"), p.Ins.statusLag).
		TrackNumbers(ingest.Numbers{Roster: p.Roster, Classify: carrier.Classifier(p.Carrier), MarkAfter: p.Config.UndeliverableAfter,
			Marked: p.Ins.markedUndeliverable})
}

// ingestParams are status ingestion's collaborators; Roster, Carrier and
// Config keep numbers' failure streaks: roster's mark, the
// carrier's codes, the threshold.
type ingestParams struct {
	fx.In
	DB      *db.DB
	Repo    *postgres.Repo
	Events  events.Publisher
	Clock   clock.Clock
	Log     *slog.Logger
	Ins     instruments
	Roster  rosterapi.Deliverability
	Carrier carrier.Carrier
	Config  config.Config
}

// outboundIn gathers the delivery engine's collaborators.
type outboundIn struct {
	fx.In
	DB      *db.DB
	Repo    *postgres.Repo
	Jobs    *jobs.Jobs
	Clock   clock.Clock
	Carrier carrier.Carrier
	Teams   rosterapi.Teams
	Lookup  rosterapi.Lookup
	OptOuts rosterapi.OptOuts
	Ingest  *ingest.Service
	Config  config.Config
	Metrics *metrics.Metrics
	Ins     instruments
	Log     *slog.Logger
	// Settings are the teams' quiet hours, and Zones the members' own
	// time zones, for the planner.
	Settings *settings.Service
	Zones    rosterapi.Zones
	Accounts *accounts.Service
}

func newOutbound(in outboundIn) *outbound.Service {
	store := postgres.NewOutboundStore(in.DB, in.Repo)
	ob := outbound.New(outbound.Deps{DB: in.DB, Store: store, Jobs: in.Jobs, Clock: in.Clock, Carrier: in.Carrier,
		Teams: in.Teams, Lookup: in.Lookup, OptOuts: in.OptOuts, Ingest: in.Ingest, Log: in.Log.With("component", "outbound"),
		DefaultPace: domain.Pace(in.Config.TwilioRate), HandoverDelay: in.Ins.handover, HandedOver: in.Ins.handed,
		Lead: leadFor(in.Clock), HoldDuration: in.Ins.held, Quiet: in.Settings, Zones: in.Zones, Accounts: in.Accounts,
		Failovers: outbound.FailoverDeps{Store: store, After: in.Config.CarrierFailoverAfter, Moved: in.Ins.failedOver}})
	in.Metrics.Registry.MustRegister(&backlogCollector{store: store, log: in.Log}, &heldCollector{repo: in.Repo, clock: in.Clock, log: in.Log})
	if r, ok := in.Carrier.(interface{ Open() map[string]bool }); ok {
		in.Metrics.Registry.MustRegister(&accounts.Collector{Open: r.Open, Queued: store.QueuedByAccount, Log: in.Log})
	}
	return ob
}

// leadFor is the engine's lead: none with the test clock, which does not
// move while a pass would wait for it.
func leadFor(c clock.Clock) time.Duration {
	if _, real := c.(clock.Real); real {
		return outbound.Lead
	}
	return 0
}

// newSimulator builds the carrier simulator; its queues send at each
// number's throughput as the engine knows it.
func newSimulator(p simulatorParams) *simulator.Simulator {
	cfg := p.Config
	store := postgres.NewOutboundStore(p.DB, p.Repo)
	return simulator.New(p.DB, p.Jobs, p.Clock, cfg.SimulatorProfile, func(ctx context.Context, froms []string) (map[string]float64, error) {
		ns, err := store.NumbersByValue(ctx, froms)
		if err != nil {
			return nil, err
		}
		out := make(map[string]float64, len(froms))
		for _, f := range froms {
			out[f] = cfg.TwilioRate // a number messaging does not know, or without its own: the default
		}
		for _, n := range ns {
			if n.Throughput != nil {
				out[n.Number] = *n.Throughput
			}
		}
		return out, nil
	})
}

type simulatorParams struct {
	fx.In
	Config config.Config
	DB     *db.DB
	Jobs   *jobs.Jobs
	Clock  clock.Clock
	Repo   *postgres.Repo
}

// newCarrier picks the default account's adapter (CARRIER) and puts the
// accounts' router in front of it: each text goes to the adapter of the
// account its sending number uses. The simulator stays provided either way:
// the admin API's outbox and outcome endpoints use it.
func newCarrier(p carrierParams) (carrier.Carrier, error) {
	cfg := p.Config
	var def carrier.Carrier = p.Simulator
	if cfg.Carrier == "twilio" {
		tw, err := twilio.New(twilio.Config{AccountSID: cfg.TwilioAccountSID, AuthToken: cfg.TwilioAuthToken,
			APIURL: cfg.TwilioAPIURL, PublicBaseURL: cfg.PublicBaseURL}, p.Log.With("component", "twilio"))
		if err != nil {
			return nil, err
		}
		def = tw
	}
	return accounts.NewRouter(def, p.Accounts, accounts.Adapters{PublicBaseURL: cfg.PublicBaseURL, Simulator: p.Simulator, Log: p.Log},
		time.Now, p.Log.With("component", "carrier_router")), nil
}

type carrierParams struct {
	fx.In
	Config    config.Config
	Simulator *simulator.Simulator
	Accounts  *accounts.Service
	Log       *slog.Logger
}

// newAccounts returns the carrier accounts' service, sealing credentials
// under SECRETS_KEY.
func newAccounts(cfg config.Config, repo *postgres.Repo, clk clock.Clock, log *slog.Logger) (*accounts.Service, error) {
	keys, err := secrets.New(cfg.SecretsKey, cfg.SecretsKeyPrevious)
	if err != nil {
		return nil, err
	}
	return accounts.New(repo, keys, clk, domain.Provider(cfg.Carrier), log.With("component", "carrier_accounts")), nil
}

// CarrierRoutes are the carriers' HTTP endpoints outside /api/v1 (status
// callbacks and incoming texts of every account), keyed by ServeMux
// pattern. The app mounts them on the public mux.
type CarrierRoutes map[string]http.Handler

// newCarrierRoutes returns the callback endpoints of every provider; each
// finds the account a callback belongs to and verifies it with that
// account's credentials.
func newCarrierRoutes(p carrierRoutesParams) CarrierRoutes {
	cfg := p.Config
	sid, token := "", ""
	if cfg.Carrier == "twilio" {
		sid, token = cfg.TwilioAccountSID, cfg.TwilioAuthToken
	}
	sink := carrierSink{db: p.DB, jobs: p.Jobs, stage: p.Repo}
	return accounts.NewCallbacks(p.Accounts, sink, cfg.PublicBaseURL, sid, token, p.Clock, time.Now, p.Log).Routes()
}

type carrierRoutesParams struct {
	fx.In
	Config   config.Config
	DB       *db.DB
	Jobs     *jobs.Jobs
	Repo     *postgres.Repo
	Accounts *accounts.Service
	Clock    clock.Clock
	Log      *slog.Logger
}

// backlogCollector reports each sending number's backlog at scrape time.
type backlogCollector struct {
	store *postgres.OutboundStore
	log   *slog.Logger
}

var backlogDesc = prometheus.NewDesc("teamtext_number_backlog_segments",
	"SMS segments planned on a sending number and not yet handed to the carrier.", []string{"number_id"}, nil)

func (c *backlogCollector) Describe(ch chan<- *prometheus.Desc) { ch <- backlogDesc }

func (c *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	bs, err := c.store.Backlogs(ctx)
	if err != nil {
		c.log.Warn("metrics: number backlogs", "err", err)
		return
	}
	for id, n := range bs {
		ch <- prometheus.MustNewConstMetric(backlogDesc, prometheus.GaugeValue, float64(n), id)
	}
}

// heldCollector reports, per team, the texts held for quiet hours at
// scrape time.
type heldCollector struct {
	repo  *postgres.Repo
	clock clock.Clock
	log   *slog.Logger
}

var heldDesc = prometheus.NewDesc("teamtext_texts_held_quiet_hours",
	"Texts queued and held for their recipients' quiet hours, per team.", []string{"team_id"}, nil)

func (c *heldCollector) Describe(ch chan<- *prometheus.Desc) { ch <- heldDesc }

func (c *heldCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	held, err := c.repo.HeldByTeam(ctx, c.clock.Now())
	if err != nil {
		c.log.Warn("metrics: held texts", "err", err)
		return
	}
	for team, n := range held {
		ch <- prometheus.MustNewConstMetric(heldDesc, prometheus.GaugeValue, float64(n), team)
	}
}

// RotateSecrets reseals every carrier account's credentials under
// cfg.SecretsKey, opening those sealed under cfg.SecretsKeyPrevious, and
// reports progress after each account (`teamtext secrets rotate`). It
// returns how many it resealed.
func RotateSecrets(ctx context.Context, d *db.DB, cfg config.Config, log *slog.Logger, progress func(done, total int)) (int, error) {
	svc, err := newAccounts(cfg, postgres.NewRepo(d, log), clock.Real{}, log)
	if err != nil {
		return 0, err
	}
	return svc.Rotate(ctx, progress)
}
