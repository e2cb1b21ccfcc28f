package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/platform/loops"
)

// result is what one scenario measured.
type result struct {
	Name, Desc, Group string        // the scenario's; Desc is what one "request" is, for the table
	Requests          int           // requests completed (ok + errors)
	Concurrency       int           // workers
	Errors            int           // failed requests
	FirstError        string        // the first failure, for the log
	Elapsed           time.Duration // wall time of the measured run
	Truncated         bool          // stopped by -max-duration before all requests ran
	Stats             latencyStats  // over successful and failed requests alike
	Use               usage         // what the processes used during the measured run
	Acquires          float64       // pool acquires per unit, idle background taken out (valid if Use.HasAcq)

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

// usage is what the load generator (this process), the service process and
// the Postgres container used: CPU time, and connections acquired from the
// service's pool and from the bench's own pgx pool (one per statement outside
// a transaction, so about the statements sent). Has* is false when the
// platform or the service cannot tell.
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

type latencyStats struct {
	N                  int
	P50, P90, P99, Max time.Duration
}

// computeStats sorts lat in place and summarises it.
func computeStats(lat []time.Duration) latencyStats {
	if len(lat) == 0 {
		return latencyStats{}
	}
	slices.Sort(lat)
	return latencyStats{N: len(lat), P50: percentile(lat, 50), P90: percentile(lat, 90), P99: percentile(lat, 99), Max: lat[len(lat)-1]}
}

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of an
// ascending slice: the smallest value that at least p% of values do not exceed.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// runLoad calls do requests times (fewer if ctx ends or maxDuration
// passes) from workers goroutines and times each call. A non-nil error
// from do counts as a failed request.
func runLoad(ctx context.Context, requests, workers int, maxDuration time.Duration, do func(ctx context.Context) error) (result, error) {
	if requests <= 0 || workers <= 0 {
		return result{}, fmt.Errorf("requests (%d) and workers (%d) must be positive", requests, workers)
	}
	runCtx, cancel := context.WithTimeout(ctx, maxDuration)
	defer cancel()
	var (
		next atomic.Int64
		mu   sync.Mutex
		wg   sync.WaitGroup
		r    = result{Concurrency: workers}
		all  []time.Duration
	)
	start := time.Now()
	for range workers {
		wg.Go(func() {
			var lat []time.Duration
			for runCtx.Err() == nil && next.Add(1) <= int64(requests) {
				t0 := time.Now()
				err := do(runCtx)
				d := time.Since(t0)
				if err != nil && runCtx.Err() != nil {
					break // cut short by the deadline or ^C: not a server failure
				}
				lat = append(lat, d)
				if err != nil {
					mu.Lock()
					if r.Errors++; r.FirstError == "" {
						r.FirstError = err.Error()
					}
					mu.Unlock()
				}
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	r.Elapsed = time.Since(start)
	if err := ctx.Err(); err != nil {
		return result{}, err // interrupted: no figures
	}
	r.Requests, r.Truncated, r.Stats = len(all), len(all) < requests, computeStats(all)
	return r, nil
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

// measure warms up with warmup requests, then measures requests, each
// load bounded by -max-duration.
func measure(ctx context.Context, env *benchEnv, name string, warmup, requests, workers int, do func(ctx context.Context) error) (result, error) {
	if warmup > 0 {
		progress("scenario %s: warm-up, %d requests…", name, warmup)
		w, err := runLoad(ctx, warmup, workers, env.maxDuration, do)
		if err == nil && w.Errors > 0 {
			err = fmt.Errorf("%d of %d requests failed, first: %s", w.Errors, w.Requests, w.FirstError)
		}
		if err != nil {
			return result{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	progress("scenario %s: %d requests, %d workers…", name, requests, workers)
	m := env.meter(ctx)
	r, err := runLoad(ctx, requests, workers, env.maxDuration, do)
	if err != nil {
		return result{}, err
	}
	m.finish(ctx, &r, true)
	return r, nil
}

// timedRuns calls one warmup times unmeasured, then runs times measured,
// one after another (one worker). one returns the duration to count, its
// request's, so that its own checks of the answer stay out of the figures.
// With itemsPerRun > 0 the row counts items of unit (throughput, CPU and
// acquires per item). The row's CPU and acquires cover the measured calls.
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
	r := result{Requests: runs, Concurrency: 1, Elapsed: time.Since(m.start), Stats: computeStats(lat)}
	if itemsPerRun > 0 {
		r.Items, r.Unit = runs*itemsPerRun, unit
	}
	m.finish(ctx, &r, false)
	return r, nil
}

// timedCall sends a JSON request, times it to its answer, and decodes
// the answer, which must have status want, into out.
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

// curvePoint is one poll of a progress counter: at T, Done units were finished.
type curvePoint struct {
	T    time.Time
	Done int
}

// curveStats turns polls of a cumulative counter into per-unit latencies:
// each unit first seen finished at a poll is given that poll's time since
// start, so the figures are exact to one poll interval. A counter that
// goes down is treated as flat.
func curveStats(start time.Time, points []curvePoint) latencyStats {
	var lat []time.Duration
	done := 0
	for _, p := range points {
		for ; done < p.Done; done++ {
			lat = append(lat, p.T.Sub(start))
		}
	}
	return computeStats(lat)
}

// follow polls count every interval until it reaches total or timeout
// passes, and makes a one-request row of its readings: Elapsed from start
// to the last poll, Items the units done then, truncated if fewer than
// total; each unit's latency is from start to the first poll that counted
// it (curveStats).
func follow(ctx context.Context, start time.Time, every, timeout time.Duration, total int, unit string, count func() (int, error)) (result, error) {
	var curve []curvePoint
	_, err := waitFor(ctx, every, timeout, func() (bool, error) {
		n, err := count()
		curve = append(curve, curvePoint{time.Now(), n})
		return n == total, err
	})
	if err != nil {
		return result{}, err
	}
	last := curve[len(curve)-1]
	if last.Done == 0 {
		return result{}, fmt.Errorf("none of %d %s done within %s", total, unit, timeout)
	}
	return result{Requests: 1, Concurrency: 1, Elapsed: last.T.Sub(start), Items: last.Done, Unit: unit,
		Truncated: last.Done < total, Stats: curveStats(start, curve)}, nil
}

// parallel runs f(i) for i in [0, n) on workers goroutines, stopping at the first error.
func parallel(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range n {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return f(ctx, i)
		})
	}
	return g.Wait()
}

// waitFor calls done every interval until it reports true, fails, or
// timeout passes (then it returns false without an error).
func waitFor(ctx context.Context, every, timeout time.Duration, done func() (bool, error)) (bool, error) {
	deadline := time.Now().Add(timeout)
	for {
		if ok, err := done(); ok || err != nil {
			return ok, err
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		if !loops.Wait(ctx, every) {
			return false, ctx.Err()
		}
	}
}

// scalar runs a statement that returns one value. (Queries of many rows
// leave Query's error to pgx.ForEachRow or CollectRows, which return it.)
func scalar[T any](ctx context.Context, pool *pgxpool.Pool, sql string, args ...any) (T, error) {
	var v T
	err := pool.QueryRow(ctx, sql, args...).Scan(&v)
	return v, err
}

// waitQuiet waits up to a minute until no job is available or running, so
// that a row measures its own jobs only (scheduled ones, such as each
// send's 72-hour unconfirm job, do not count, nor the perpetual pumps,
// which are due every second); it returns the newest job's id, after which
// the row's own jobs come.
func waitQuiet(ctx context.Context, pool *pgxpool.Pool, name string) (int64, error) {
	quiet, err := waitFor(ctx, 200*time.Millisecond, time.Minute, func() (bool, error) {
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
