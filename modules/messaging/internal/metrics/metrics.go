// Package metrics holds messaging's Prometheus metrics: the instruments
// the engine, ingestion and filing observe, and the collectors that read
// backlogs and held or pending texts at scrape time.
package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/teamtext/teamtext/modules/messaging/internal/accounts"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/platform/clock"
)

// Instruments are messaging's metrics.
type Instruments struct {
	Handover   prometheus.Observer
	Handed     prometheus.Counter
	StatusLag  prometheus.Observer
	InboundLag prometheus.Observer
	// MarkedUndeliverable counts numbers marked undeliverable.
	MarkedUndeliverable prometheus.Counter
	// Held observes how long quiet hours hold each held text.
	Held prometheus.Observer
	// FailedOver counts texts moved off a carrier account that is down.
	FailedOver prometheus.Counter
}

// New registers messaging's instruments on reg.
func New(reg prometheus.Registerer) Instruments {
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
	reg.MustRegister(delay, lag, handed, marked, held, failedOver)
	return Instruments{Handover: delay, Handed: handed, StatusLag: lag.WithLabelValues("status"), InboundLag: lag.WithLabelValues("inbound"),
		MarkedUndeliverable: marked, Held: held, FailedOver: failedOver}
}

// EngineStore is what the engine's collectors read (postgres.OutboundStore).
type EngineStore interface {
	Backlogs(ctx context.Context) (map[string]int64, error)
	QueuedByAccount(ctx context.Context) (map[string]int64, error)
}

// HeldStore counts the texts held for quiet hours (postgres.Repo).
type HeldStore interface {
	HeldByTeam(ctx context.Context, now time.Time) (map[string]int, error)
}

// RegisterEngine registers the delivery engine's scrape-time collectors:
// each number's backlog, the texts held per team, and, when the carrier
// reports its accounts' breakers (Open), the accounts' state.
func RegisterEngine(reg prometheus.Registerer, store EngineStore, held HeldStore, car carrier.Carrier, clk clock.Clock, log *slog.Logger) {
	reg.MustRegister(&backlogCollector{store: store, log: log}, &heldCollector{store: held, clock: clk, log: log})
	if r, ok := car.(interface{ Open() map[string]bool }); ok {
		reg.MustRegister(&accounts.Collector{Open: r.Open, Queued: store.QueuedByAccount, Log: log})
	}
}

// backlogCollector reports each sending number's backlog at scrape time.
type backlogCollector struct {
	store EngineStore
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
	store HeldStore
	clock clock.Clock
	log   *slog.Logger
}

var heldDesc = prometheus.NewDesc("teamtext_texts_held_quiet_hours",
	"Texts queued and held for their recipients' quiet hours, per team.", []string{"team_id"}, nil)

func (c *heldCollector) Describe(ch chan<- *prometheus.Desc) { ch <- heldDesc }

func (c *heldCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	held, err := c.store.HeldByTeam(ctx, c.clock.Now())
	if err != nil {
		c.log.Warn("metrics: held texts", "err", err)
		return
	}
	for team, n := range held {
		ch <- prometheus.MustNewConstMetric(heldDesc, prometheus.GaugeValue, float64(n), team)
	}
}

// PendingStore reports the inbound texts staged and not yet filed
// (postgres.Repo).
type PendingStore interface {
	PendingStats(ctx context.Context) (int64, *time.Time, error)
}

// NewPending returns the collector of the inbound texts staged and not
// yet filed.
func NewPending(store PendingStore, clk clock.Clock, log *slog.Logger) prometheus.Collector {
	return newPendingCollector(store.PendingStats, clk, log, "teamtext_inbound_pending", "texts",
		"Inbound texts accepted from the carrier and not yet filed (stored, acted on, announced).",
		"Age of the oldest inbound text not yet filed (0 when none is waiting).")
}

// PendingStatusStore reports the carrier status reports staged and not
// yet ingested (postgres.Repo).
type PendingStatusStore interface {
	PendingStatusStats(ctx context.Context) (int64, *time.Time, error)
}

// NewPendingStatuses returns the collector of the carrier status reports
// staged and not yet ingested.
func NewPendingStatuses(store PendingStatusStore, clk clock.Clock, log *slog.Logger) prometheus.Collector {
	return newPendingCollector(store.PendingStatusStats, clk, log, "teamtext_status_pending", "reports",
		"Carrier status reports accepted and not yet ingested (deliveries, counts, message.status).",
		"Age of the oldest carrier status report not yet ingested (0 when none is waiting).")
}

// newPendingCollector reports a staging table's backlog as prefix_unit
// (how many wait) and prefix_oldest_seconds.
func newPendingCollector(stats func(context.Context) (int64, *time.Time, error), clk clock.Clock, log *slog.Logger,
	prefix, unit, countHelp, ageHelp string) *pendingCollector {
	return &pendingCollector{stats: stats, what: prefix, clock: clk, log: log,
		count: prometheus.NewDesc(prefix+"_"+unit, countHelp, nil, nil),
		age:   prometheus.NewDesc(prefix+"_oldest_seconds", ageHelp, nil, nil)}
}

// pendingCollector reports a staging table's backlog: how many items wait,
// and the oldest one's age.
type pendingCollector struct {
	stats      func(ctx context.Context) (int64, *time.Time, error)
	what       string // the metrics' prefix, for the log line when stats fails
	count, age *prometheus.Desc
	clock      clock.Clock
	log        *slog.Logger
}

func (c *pendingCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.count
	ch <- c.age
}

func (c *pendingCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, oldest, err := c.stats(ctx)
	if err != nil {
		c.log.Warn("metrics: "+c.what, "err", err)
		return
	}
	age := 0.0
	if oldest != nil {
		age = max(c.clock.Now().Sub(*oldest), 0).Seconds()
	}
	ch <- prometheus.MustNewConstMetric(c.count, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, age)
}
