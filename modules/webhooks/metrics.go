package webhooks

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/teamtext/teamtext/modules/webhooks/internal/postgres"
	"github.com/teamtext/teamtext/platform/metrics"
)

var queuedDesc = prometheus.NewDesc("teamtext_webhook_queued_deliveries",
	"Webhook deliveries waiting in their webhook's queue (a throttle's backlog, or a recovery being sent in order).", nil, nil)

// queueCollector counts the queued deliveries at scrape time (one count
// over a partial index holding only queued rows).
type queueCollector struct {
	repo *postgres.Repo
	log  *slog.Logger
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queuedDesc }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, err := c.repo.QueuedCount(ctx)
	if err != nil {
		c.log.Warn("webhook queue metric", "err", err)
		return
	}
	ch <- prometheus.MustNewConstMetric(queuedDesc, prometheus.GaugeValue, float64(n))
}

// registerMetrics adds the webhook queues' backlog gauge.
func registerMetrics(m *metrics.Metrics, repo *postgres.Repo, log *slog.Logger) {
	m.Registry.MustRegister(&queueCollector{repo: repo, log: log})
}
