package messaging

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/worker"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
	"github.com/teamtext/teamtext/platform/text"
)

// --- Inbound texts, keywords, the inbox and analytics ---

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

func (l numberLookup) TeamsByNumbers(ctx context.Context, e164s []string) (map[string]rosterapi.Team, error) {
	return l.numbers.TeamsForNumbers(ctx, e164s)
}

// carrierSink is how carrier adapters hand messaging their callbacks: each
// only enqueues its ingestion job, in its own transaction.
type carrierSink struct {
	db    *db.DB
	jobs  *jobs.Jobs
	stage inbound.Stager // inbound texts are staged (inbound.Enqueue)
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
	return inbound.Enqueue(ctx, s.stage, inbound.Args{From: t.From, To: t.To, Body: text.Storable(t.Body),
		ProviderMessageID: text.Storable(t.ProviderMessageID), ReceivedAt: t.ReceivedAt})
}

// inboundOptions wire inbound: its capabilities (filing and keywords, the
// inbox, replies, analytics), each with its own store (the module's
// postgres.Repo, provided as each interface), their workers, and the
// releaser of held texts as billing's payment_recovered listener. The
// releaser gets the event publisher through Bind, not its constructor: the
// publisher reads billing accounts, and billing takes the listeners.
var inboundOptions = fx.Options(
	fx.Provide(fx.Private,
		func(d *db.DB) inbound.Transactor { return d },
		func(r *postgres.Repo) inbound.FilingStore { return r },
		func(r *postgres.Repo) inbound.HoldStore { return r },
		func(r *postgres.Repo) inbound.InboxStore { return r },
		func(r *postgres.Repo) inbound.ReplyStore { return r },
		func(r *postgres.Repo) inbound.Counters { return r },
		func(j *jobs.Jobs) inbound.Inserter { return j },
		func(r *inbound.Replies) inbound.HelpReplier { return r },
		func(r *postgres.Repo) inbound.KeywordStore { return r },
		func(j *jobs.Jobs) inbound.ManyInserter { return j },
		func(k *inbound.TeamKeywords) inbound.KeywordAnswerer { return k },
		func(r *inbound.Replies) inbound.Answerer { return r },
	),
	fx.Provide(
		inbound.New,
		inbound.NewInbox,
		inbound.NewReplies,
		inbound.NewTeamKeywords,
		fx.Annotate(func(r *inbound.Replies) messagingapi.Texter { return r }),
		func(r *postgres.Repo) messagingapi.DeliveryLog { return r },
		inbound.NewAnalytics,
		inbound.NewReleaser,
		fx.Annotate(func(r *inbound.Releaser) billingapi.PaymentListener { return r }, fx.ResultTags(`group:"payment_recovered"`)),
		fx.Annotate(func(s *inbound.Service, rs *inbound.Replies, clk clock.Clock, ins instruments) jobs.Registration {
			return worker.Inbound(s, rs, clk, ins.inboundLag)
		}, fx.ResultTags(`group:"workers"`)),
	),
	fx.Invoke(
		startFiler,
		func(r *inbound.Releaser, p events.Publisher) { r.Bind(p) },
	),
)

// startFiler starts this node's inbound filing loops (stopped before the
// database closes) and reports the staged backlog at each scrape.
func startFiler(p filerParams) {
	l := p.Log.With("component", "inbound")
	f := inbound.NewFiler(inbound.FilerDeps{Service: p.Inbound, Connect: func(ctx context.Context) (*pgx.Conn, error) {
		return pgx.ConnectConfig(ctx, p.DB.Pool.Config().ConnConfig.Copy())
	}, Channel: postgres.InboundChannel, Clock: p.Clock, Lag: p.Ins.inboundLag, Log: l})
	p.Metrics.Registry.MustRegister(&pendingCollector{repo: p.Repo, clock: p.Clock, log: l})
	p.Lifecycle.Append(fx.Hook{
		OnStart: func(context.Context) error { f.Start(); return nil },
		OnStop:  f.Stop,
	})
}

type filerParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Inbound   *inbound.Service
	DB        *db.DB
	Repo      *postgres.Repo
	Clock     clock.Clock
	Ins       instruments
	Metrics   *metrics.Metrics
	Log       *slog.Logger
}

// pendingCollector reports the inbound texts staged and not yet filed.
type pendingCollector struct {
	repo  *postgres.Repo
	clock clock.Clock
	log   *slog.Logger
}

var (
	pendingDesc = prometheus.NewDesc("teamtext_inbound_pending_texts",
		"Inbound texts accepted from the carrier and not yet filed (stored, acted on, announced).", nil, nil)
	pendingAgeDesc = prometheus.NewDesc("teamtext_inbound_pending_oldest_seconds",
		"Age of the oldest inbound text not yet filed (0 when none is waiting).", nil, nil)
)

func (c *pendingCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- pendingAgeDesc
}

func (c *pendingCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, oldest, err := c.repo.PendingStats(ctx)
	if err != nil {
		c.log.Warn("metrics: pending inbound texts", "err", err)
		return
	}
	age := 0.0
	if oldest != nil {
		age = max(c.clock.Now().Sub(*oldest), 0).Seconds()
	}
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(pendingAgeDesc, prometheus.GaugeValue, age)
}
