// Package metrics holds the process's Prometheus registry and the service's
// instruments: HTTP requests, River job attempts, pool and queue gauges.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is the registry plus the instruments other packages record into.
type Metrics struct {
	Registry     *prometheus.Registry
	HTTPRequests *prometheus.CounterVec   // route, method, status
	HTTPDuration *prometheus.HistogramVec // route, method
	JobAttempts  *prometheus.CounterVec   // kind, outcome
	JobDuration  *prometheus.HistogramVec // kind
}

// New builds a registry with Go and process collectors and the service's instruments.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		Registry: reg,
		HTTPRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "teamtext_http_requests_total", Help: "HTTP requests by route pattern, method and status.",
		}, []string{"api", "route", "method", "status"}),
		HTTPDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "teamtext_http_request_duration_seconds", Help: "HTTP request latency by route pattern and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"api", "route", "method"}),
		JobAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "teamtext_job_attempts_total", Help: "River job attempts by kind and outcome (ok, error, panic, snoozed).",
		}, []string{"kind", "outcome"}),
		JobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "teamtext_job_duration_seconds", Help: "River job attempt duration by kind.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"kind"}),
	}
	reg.MustRegister(m.HTTPRequests, m.HTTPDuration, m.JobAttempts, m.JobDuration)
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// RegisterDB adds the pool statistics and River's jobs-by-kind-and-state gauge.
func (m *Metrics) RegisterDB(pool *pgxpool.Pool, log *slog.Logger) {
	m.Registry.MustRegister(&poolCollector{pool: pool}, &jobStateCollector{pool: pool, log: log})
}

var (
	poolDesc = map[string]*prometheus.Desc{
		"total":    prometheus.NewDesc("teamtext_db_pool_conns", "Pool connections by state.", []string{"state"}, nil),
		"acquires": prometheus.NewDesc("teamtext_db_pool_acquires_total", "Connections acquired from the pool.", nil, nil),
		"waits":    prometheus.NewDesc("teamtext_db_pool_empty_acquires_total", "Acquires that had to wait for a connection.", nil, nil),
		"max":      prometheus.NewDesc("teamtext_db_pool_max_conns", "Pool size limit.", nil, nil),
	}
	jobsDesc = prometheus.NewDesc("teamtext_river_jobs", "River jobs by kind and state.", []string{"kind", "state"}, nil)
)

type poolCollector struct{ pool *pgxpool.Pool }

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range poolDesc {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(poolDesc["total"], prometheus.GaugeValue, float64(s.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(poolDesc["total"], prometheus.GaugeValue, float64(s.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(poolDesc["acquires"], prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolDesc["waits"], prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolDesc["max"], prometheus.GaugeValue, float64(s.MaxConns()))
}

type jobStateCollector struct {
	pool *pgxpool.Pool
	log  *slog.Logger
}

func (c *jobStateCollector) Describe(ch chan<- *prometheus.Desc) { ch <- jobsDesc }

// Collect counts River's jobs at scrape time; river_job has an index on
// (state, ...) and scrapes are rare, so this stays cheap.
func (c *jobStateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rows, err := c.pool.Query(ctx, `SELECT kind, state::text, count(*) FROM river_job GROUP BY 1, 2`)
	if err != nil {
		c.log.Warn("metrics: count river jobs", "err", err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var kind, state string
		var n int64
		if err := rows.Scan(&kind, &state, &n); err != nil {
			return
		}
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(n), kind, state)
	}
}
