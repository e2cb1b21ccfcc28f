package accounts

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Collector reports, per carrier account, whether this node's breaker is
// open and how many texts are queued on the account's numbers (across all
// nodes, read from Postgres at scrape time): an outage shows as the first
// at 1 and the second growing.
type Collector struct {
	// Open is this node's breakers (Router.Open).
	Open func() map[string]bool
	// Queued counts the texts queued per account (outbound's store).
	Queued func(ctx context.Context) (map[string]int64, error)
	Log    *slog.Logger
}

var (
	breakerDesc = prometheus.NewDesc("teamtext_carrier_breaker_open",
		"1 while this node's circuit breaker for the carrier account is open (its calls fail), else 0.", []string{"account_id"}, nil)
	queuedDesc = prometheus.NewDesc("teamtext_carrier_queued_texts",
		"Texts planned on the carrier account's numbers and not yet handed over, all nodes together.", []string{"account_id"}, nil)
)

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) { ch <- breakerDesc; ch <- queuedDesc }

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for id, open := range c.Open() {
		v := 0.0
		if open {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(breakerDesc, prometheus.GaugeValue, v, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	queued, err := c.Queued(ctx)
	if err != nil {
		c.Log.Warn("metrics: queued texts per carrier account", "err", err)
		return
	}
	for id, n := range queued {
		ch <- prometheus.MustNewConstMetric(queuedDesc, prometheus.GaugeValue, float64(n), id)
	}
}
