package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
)

// result is one scenario's row: its load.Run and what the table shows beside it.
type result struct {
	Name, Desc, Group string // the scenario's; Desc is what one "request" is, for the table
	load.Run
	Concurrency int     // workers
	Use         usage   // what the processes used during the measured run
	Acquires    float64 // pool acquires per unit, idle background taken out (valid if Use.HasAcq)

	// Rows whose work is not one unit per request (an import of 1,000
	// rows, a send to 10,000 recipients) count Items of Unit: throughput,
	// CPU and acquires are then per item, latencies still per request
	// unless the row's description says otherwise.
	Unit   string // what throughput counts; "" is "req"
	Items  int    // units done; 0: one per request
	Target string // the goal for the row ("" if none)
	Met    bool   // whether the run reached Target
	Note   string // a fact of this run shown after the description
}

func (r result) units() int {
	if r.Items > 0 {
		return r.Items
	}
	return r.Requests
}

func (r result) unit() string {
	if r.Unit == "" {
		return "req"
	}
	return r.Unit
}

func (r result) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.units()) / r.Elapsed.Seconds()
}

// usage is the CPU time the bench, the service and the Postgres container
// used, and the connections acquired from the service's pool and the
// bench's (one per statement outside a transaction, so about the
// statements sent). Has* is false when the platform or service cannot tell.
type usage struct {
	Bench, Service, Postgres        time.Duration
	ServiceAcquires, BenchAcquires  int64
	HasService, HasPostgres, HasAcq bool
}

func (a usage) sub(b usage) usage {
	return usage{Bench: a.Bench - b.Bench, Service: a.Service - b.Service, Postgres: a.Postgres - b.Postgres,
		ServiceAcquires: a.ServiceAcquires - b.ServiceAcquires, BenchAcquires: a.BenchAcquires - b.BenchAcquires,
		HasService: a.HasService && b.HasService, HasPostgres: a.HasPostgres && b.HasPostgres, HasAcq: a.HasAcq && b.HasAcq}
}

// meter reads what the processes used from its start on.
type meter struct {
	env   *benchEnv
	cpu0  usage
	start time.Time
}

func (e *benchEnv) meter(ctx context.Context) meter {
	return meter{env: e, cpu0: e.sample(ctx), start: time.Now()}
}

// finish sets r's Use and its Acquires per unit over r.Elapsed, which it
// sets to the time since the start when it is zero. Without bench the
// bench's own acquires (its bookkeeping statements and polls) are left
// out: they are not the service's work.
func (m meter) finish(ctx context.Context, r *result, bench bool) {
	if r.Elapsed == 0 {
		r.Elapsed = time.Since(m.start)
	}
	r.Use = m.env.sample(ctx).sub(m.cpu0)
	if !bench {
		r.Use.BenchAcquires = 0
	}
	r.Acquires = m.env.acquiresPerRequest(r.Use, r.Elapsed, r.units())
}

// measure drives warmup requests unmeasured, then requests, each load
// bounded by -max-duration.
func measure(ctx context.Context, env *benchEnv, name string, warmup, requests, workers int, do func(ctx context.Context) error) (result, error) {
	if warmup > 0 {
		progress("scenario %s: warm-up, %d requests…", name, warmup)
		w, err := load.Drive(ctx, warmup, workers, env.maxDuration, do)
		if err == nil && w.Errors > 0 {
			err = fmt.Errorf("%d of %d requests failed, first: %s", w.Errors, w.Requests, w.FirstError)
		}
		if err != nil {
			return result{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	progress("scenario %s: %d requests, %d workers…", name, requests, workers)
	m := env.meter(ctx)
	run, err := load.Drive(ctx, requests, workers, env.maxDuration, do)
	if err != nil {
		return result{}, err
	}
	r := result{Run: run, Concurrency: workers}
	m.finish(ctx, &r, true)
	return r, nil
}

// timedRuns calls one warmup times unmeasured, then runs times measured,
// one after another. one returns its request's duration, so that its own
// checks of the answer stay out of the figures. With itemsPerRun > 0 the
// row counts items of unit (throughput, CPU and acquires per item).
func timedRuns(ctx context.Context, env *benchEnv, name string, warmup, runs, itemsPerRun int, unit string,
	one func(ctx context.Context, i int) (time.Duration, error)) (result, error) {
	for i := range warmup {
		progress("scenario %s: warm-up %d of %d…", name, i+1, warmup)
		if _, err := one(ctx, i); err != nil {
			return result{}, fmt.Errorf("warm-up %d: %w", i+1, err)
		}
	}
	progress("scenario %s: %d runs…", name, runs)
	m := env.meter(ctx)
	lat := make([]time.Duration, 0, runs)
	for i := range runs {
		d, err := one(ctx, warmup+i)
		if err != nil {
			return result{}, fmt.Errorf("run %d of %d: %w", i+1, runs, err)
		}
		lat = append(lat, d)
	}
	r := result{Run: load.Run{Requests: runs, Elapsed: time.Since(m.start), Stats: load.Summarise(lat)}, Concurrency: 1}
	if itemsPerRun > 0 {
		r.Items, r.Unit = runs*itemsPerRun, unit
	}
	m.finish(ctx, &r, false)
	return r, nil
}

// timedCall times a JSON request to its answer, which must have status
// want, and decodes the answer into out.
func timedCall(ctx context.Context, c *harness.Client, want int, method, path string, body, out any) (time.Duration, error) {
	t0 := time.Now()
	resp, err := c.Do(ctx, method, path, body)
	d := time.Since(t0)
	if err == nil && resp.Status != want {
		err = fmt.Errorf("%s %s: status %d: %.300s", method, path, resp.Status, resp.Body)
	}
	if err == nil {
		err = resp.JSON(out)
	}
	return d, err
}

// follow is a one-request row of load.Follow's polls: Items the units
// done, truncated if fewer than total.
func follow(ctx context.Context, start time.Time, every, timeout time.Duration, total int, unit string, count func() (int, error)) (result, error) {
	p, err := load.Follow(ctx, start, every, timeout, total, count)
	if err != nil {
		return result{}, fmt.Errorf("%s: %w", unit, err)
	}
	return result{Run: load.Run{Requests: 1, Elapsed: p.Elapsed, Truncated: p.Done < total, Stats: p.Stats}, Concurrency: 1, Items: p.Done, Unit: unit}, nil
}

// scalar runs a statement that returns one value. (Queries of many rows
// leave Query's error to pgx.ForEachRow or CollectRows, which return it.)
func scalar[T any](ctx context.Context, pool *pgxpool.Pool, sql string, args ...any) (T, error) {
	var v T
	err := pool.QueryRow(ctx, sql, args...).Scan(&v)
	return v, err
}

// waitQuiet waits up to a minute until no job is available or running, so
// that a row measures its own jobs only (not scheduled ones, such as each
// send's 72-hour unconfirm job, nor the pumps, due every second); it
// returns the newest job's id, after which the row's own jobs come.
func waitQuiet(ctx context.Context, pool *pgxpool.Pool, name string) (int64, error) {
	quiet, err := load.WaitFor(ctx, 200*time.Millisecond, time.Minute, func() (bool, error) {
		n, err := scalar[int](ctx, pool, `SELECT count(*) FROM river_job WHERE state IN ('available', 'running') AND scheduled_at <= now()
  AND kind NOT IN ('messaging.pump', 'messaging.sim_reports')`)
		return n == 0, err
	})
	if err != nil {
		return 0, err
	}
	if !quiet {
		progress("scenario %s: jobs still pending after %s; starting anyway", name, time.Minute)
	}
	return maxJobID(ctx, pool)
}

func maxJobID(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	return scalar[int64](ctx, pool, `SELECT coalesce(max(id), 0) FROM river_job`)
}
