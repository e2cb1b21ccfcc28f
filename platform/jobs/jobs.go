// Package jobs runs River on riverpgxv5 (LISTEN/NOTIFY). Jobs are inserted
// in the use case's own transaction: the pgx client inserts through
// db.PgxTx, which is that transaction's connection seen as a pgx.Tx.
// (River's database/sql driver, the other way to share a bun transaction,
// encodes its array parameters through text, which cost a quarter of a
// publishing use case's CPU.)
package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/metrics"
)

// Registration is one module's contribution to the worker client: it adds
// the module's workers to River's bundle.
//
// The wiring idiom (every module follows it; see docs/design/layout.md): a
// module provides its registrations into the fx group "workers", built from
// the services they call, and its queues into "queues" and periodic jobs
// into "periodic":
//
//	fx.Provide(fx.Annotate(worker.Registration, fx.ResultTags(`group:"workers"`)))
//
// The app builds the Runner last, from those groups. Use cases depend only
// on *Jobs, the insert client provided early, so a worker may need any
// service (and that service may insert jobs) without a construction cycle:
// no Invoke-time registration and no late Bind setters.
type Registration func(w *river.Workers)

// Jobs is the process's insert client (River's insert-only client): use
// cases Insert through it inside their transactions. It works nothing;
// the Runner, built on it, does.
type Jobs struct {
	client  *river.Client[pgx.Tx]
	workers *river.Workers // the Runner's bundle: an insert of a kind no worker handles fails fast
	pool    *db.DB
	clock   clock.Clock
	log     *slog.Logger
}

// DefaultFetchCooldown is the shortest gap between two fetches of the
// producer (the service's JOB_FETCH_COOLDOWN default). River's own default,
// 100ms, caps a client at MaxWorkers jobs per 100ms: 500 jobs/s for 50.
const DefaultFetchCooldown = 10 * time.Millisecond

// Queue is a named River queue worked with its own number of slots, for
// work that must not wait behind another kind's backlog (hand-overs to the
// carrier, status and inbound ingestion), or that holds a slot while it
// waits on something outside the process (a webhook receiver's answer). A
// job goes to it through its args' InsertOpts.
type Queue struct {
	Name       string
	MaxWorkers int
	// FetchPollInterval is how often the queue looks for jobs that became
	// due without a notification (snoozed pumps); 0: River's default (1s).
	FetchPollInterval time.Duration
}

// Options tunes the clients. New reads FetchCooldown only (it also spaces
// the insert client's notifications); the rest is the Runner's.
type Options struct {
	MaxWorkers      int           // slots of the default queue
	Queues          []Queue       // further queues, each with its own slots
	JobTimeout      time.Duration // 0: River's default
	RescueAfter     time.Duration // 0: River's default (JobTimeout + 1h)
	SoftStopTimeout time.Duration
	FetchCooldown   time.Duration // 0: DefaultFetchCooldown
	// RunWorkers: false builds a Runner that never works jobs (tests that
	// insert kinds without working them).
	RunWorkers bool
	// FinishedRetention is how long completed and cancelled jobs are kept
	// before River's cleaner (leader only, in batches) deletes them; 0:
	// River's default (24h). Discarded jobs keep River's 7 days.
	FinishedRetention time.Duration
	// Periodic jobs are enqueued by the elected leader only, so N nodes run each once.
	Periodic []*river.PeriodicJob
}

// New builds the insert client over the pool. Its kinds are those of the
// Runner built on it (NewRunner, before any insert).
func New(d *db.DB, clk clock.Clock, log *slog.Logger, opts Options) (*Jobs, error) {
	workers := river.NewWorkers()
	river.AddWorker(workers, &NoopWorker{})
	j := &Jobs{workers: workers, pool: d, clock: clk, log: log}
	client, err := river.NewClient(riverpgxv5.New(d.Pool), j.config(opts, nil))
	if err != nil {
		return nil, fmt.Errorf("river insert client: %w", err)
	}
	j.client = client
	return j, nil
}

// config is River's configuration shared by both clients, so that inserts
// behave alike whichever inserts (notifications, the test clock, kinds).
// With a test clock, River dates by it whatever it dates: inserts and
// scheduled jobs coming due and, since River v0.51, snoozes and its default
// retry backoff, so a pump snoozed until its next slot wakes by the same
// clock that named the slot. (River v0.41 dated both by the wall clock:
// under an advanced test clock a snoozed pump or a failed job came due at
// once, and a pump woke at every poll.)
func (j *Jobs) config(opts Options, m *metrics.Metrics) *river.Config {
	var timeGen rivertype.TimeGenerator
	if _, real := j.clock.(clock.Real); !real {
		timeGen = j.clock
	}
	cfg := &river.Config{
		Logger:                      j.log.With("component", "river"),
		Workers:                     j.workers,
		JobTimeout:                  opts.JobTimeout,
		FetchCooldown:               cmp.Or(opts.FetchCooldown, DefaultFetchCooldown),
		RescueStuckJobsAfter:        opts.RescueAfter,
		CompletedJobRetentionPeriod: opts.FinishedRetention,
		CancelledJobRetentionPeriod: opts.FinishedRetention,
		Test:                        river.TestConfig{Time: timeGen},
	}
	if m != nil {
		cfg.Middleware = []rivertype.Middleware{&attemptMiddleware{log: j.log, m: m}}
	}
	return cfg
}

// Runner is the worker client: built last, from every module's
// registrations (fx group "workers"), queues ("queues") and periodic jobs
// ("periodic"); the lifecycle starts and stops it.
type Runner struct {
	client *river.Client[pgx.Tx]
}

// NewRunner adds every registration's workers to j's bundle and builds the
// client that works them.
func NewRunner(j *Jobs, regs []Registration, m *metrics.Metrics, opts Options) (*Runner, error) {
	for _, r := range regs {
		r(j.workers)
	}
	cfg := j.config(opts, m)
	if opts.RunWorkers {
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: opts.MaxWorkers}}
		for _, q := range opts.Queues {
			if _, dup := cfg.Queues[q.Name]; dup {
				return nil, fmt.Errorf("river queue %q configured twice", q.Name)
			}
			cfg.Queues[q.Name] = river.QueueConfig{MaxWorkers: q.MaxWorkers, FetchPollInterval: q.FetchPollInterval}
		}
		cfg.SoftStopTimeout = opts.SoftStopTimeout
		cfg.PeriodicJobs = opts.Periodic
	}
	client, err := river.NewClient(riverpgxv5.New(j.pool.Pool), cfg)
	if err != nil {
		return nil, fmt.Errorf("river worker client: %w", err)
	}
	return &Runner{client: client}, nil
}

// Insert enqueues a job in the transaction carried by ctx. It refuses to
// run outside one: a job must commit or roll back with the data it is about.
func (j *Jobs) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	var res *rivertype.JobInsertResult
	err := db.PgxTx(ctx, func(tx pgx.Tx) error {
		var err error
		res, err = j.client.InsertTx(ctx, tx, args, opts)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("insert %s job: %w", args.Kind(), err)
	}
	return res, nil
}

// InsertMany enqueues a batch of jobs in the transaction carried by ctx.
func (j *Jobs) InsertMany(ctx context.Context, params []river.InsertManyParams) error {
	if len(params) == 0 {
		return nil
	}
	if len(params) == 1 { // one INSERT; the batch path's COPY takes two round trips
		_, err := j.Insert(ctx, params[0].Args, params[0].InsertOpts)
		return err
	}
	err := db.PgxTx(ctx, func(tx pgx.Tx) error {
		_, err := j.client.InsertManyFastTx(ctx, tx, params)
		return err
	})
	if err != nil {
		return fmt.Errorf("insert %d jobs: %w", len(params), err)
	}
	return nil
}

// Start starts working jobs. The context is detached from the caller's
// cancellation: fx cancels its start context, which would hard-stop River.
func (r *Runner) Start(ctx context.Context) error {
	if err := r.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start river: %w", err)
	}
	return nil
}

// Stop soft-stops River: no new jobs are fetched and running ones finish
// within SoftStopTimeout before their contexts are cancelled.
func (r *Runner) Stop(ctx context.Context) error {
	if err := r.client.Stop(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("stop river: %w", err)
	}
	return nil
}

// Client exposes the worker client for subscriptions in tests and tools.
func (r *Runner) Client() *river.Client[pgx.Tx] { return r.client }

// NoopArgs is a job that does nothing; it measures River's own throughput
// in the benchmark harness.
type NoopArgs struct{}

// Kind names the no-op job.
func (NoopArgs) Kind() string { return "platform.noop" }

// NoopWorker works NoopArgs.
type NoopWorker struct{ river.WorkerDefaults[NoopArgs] }

// Work does nothing.
func (*NoopWorker) Work(context.Context, *river.Job[NoopArgs]) error { return nil }

// attemptMiddleware logs one line per job attempt and records metrics. A
// snooze (a perpetual pump going back to wait for its next slot) is
// normal work: it logs at debug, never as a failure.
type attemptMiddleware struct {
	river.MiddlewareDefaults
	log *slog.Logger
	m   *metrics.Metrics
}

func (a *attemptMiddleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) (err error) {
	start := time.Now()
	outcome := "ok"
	defer func() {
		if r := recover(); r != nil {
			outcome = "panic"
			a.record(job, start, outcome, fmt.Errorf("panic: %v", r))
			panic(r)
		}
		a.record(job, start, outcome, err)
	}()
	err = doInner(ctx)
	var snooze *rivertype.JobSnoozeError
	switch {
	case errors.As(err, &snooze):
		outcome = "snoozed" // a pump waiting for its next slot: normal work
	case err != nil:
		outcome = "error"
	}
	return err
}

func (a *attemptMiddleware) record(job *rivertype.JobRow, start time.Time, outcome string, err error) {
	d := time.Since(start)
	a.m.JobAttempts.WithLabelValues(job.Kind, outcome).Inc()
	a.m.JobDuration.WithLabelValues(job.Kind).Observe(d.Seconds())
	level := slog.LevelInfo
	attrs := []any{"kind", job.Kind, "job_id", job.ID, "attempt", job.Attempt, "outcome", outcome, "duration_ms", float64(d.Microseconds()) / 1000}
	switch {
	case outcome == "snoozed":
		level = slog.LevelDebug
	case err != nil:
		level = slog.LevelWarn
		attrs = append(attrs, "err", err.Error())
	}
	a.log.Log(context.Background(), level, "job attempt", attrs...)
}
