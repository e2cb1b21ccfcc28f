package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// result is what one scenario measured.
type result struct {
	Name        string        // scenario name (filled in by the runner)
	Desc        string        // what one "request" is, for the table
	Group       string        // -out section it belongs to
	Requests    int           // requests completed (ok + errors)
	Concurrency int           // workers
	Errors      int           // failed requests
	FirstError  string        // the first failure, for the log
	Elapsed     time.Duration // wall time of the measured run
	Truncated   bool          // stopped by -max-duration before all requests ran
	Stats       latencyStats  // over successful and failed requests alike
	Use         usage         // what the processes used during the measured run
	Acquires    float64       // pool acquires per unit, idle background taken out (valid if Use.HasAcq)

	// Rows whose work is not one unit per request (an import of 1,000
	// rows, a send to 10,000 recipients) count Items of Unit: throughput,
	// CPU and acquires are then per item, latencies still per request
	// unless the row's description says otherwise.
	Unit  string // what throughput counts; "" is "req"
	Items int    // units done; 0: one per request
	// Target is the goal for the row ("" if none) and Met whether
	// the run reached it.
	Target string
	Met    bool
	Note   string // a fact of this run shown after the description
}

// units is how many units of work the row did (requests unless Items is set).
func (r result) units() int {
	if r.Items > 0 {
		return r.Items
	}
	return r.Requests
}

// unit names what units counts.
func (r result) unit() string {
	if r.Unit == "" {
		return "req"
	}
	return r.Unit
}

// Throughput is completed units (requests unless Items is set) per second
// of wall time.
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

// latencyStats summarises a set of latencies.
type latencyStats struct {
	N                  int
	Min, Mean          time.Duration
	P50, P90, P99, Max time.Duration
}

// computeStats sorts lat in place and summarises it.
func computeStats(lat []time.Duration) latencyStats {
	if len(lat) == 0 {
		return latencyStats{}
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	return latencyStats{
		N:    len(lat),
		Min:  lat[0],
		Mean: sum / time.Duration(len(lat)),
		P50:  percentile(lat, 50),
		P90:  percentile(lat, 90),
		P99:  percentile(lat, 99),
		Max:  lat[len(lat)-1],
	}
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of an
// ascending slice: the smallest value that at least p% of values do not exceed.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// loadSpec bounds one load run in count and time.
type loadSpec struct {
	Requests    int
	Concurrency int
	MaxDuration time.Duration
}

// runLoad calls do exactly spec.Requests times (fewer if ctx ends or
// spec.MaxDuration passes) from spec.Concurrency goroutines and times each
// call. A non-nil error from do counts as a failed request.
func runLoad(ctx context.Context, spec loadSpec, do func(ctx context.Context) error) (result, error) {
	if spec.Requests <= 0 || spec.Concurrency <= 0 {
		return result{}, fmt.Errorf("requests (%d) and concurrency (%d) must be positive", spec.Requests, spec.Concurrency)
	}
	runCtx, cancel := context.WithCancel(ctx)
	if spec.MaxDuration > 0 {
		runCtx, cancel = context.WithTimeout(ctx, spec.MaxDuration)
	}
	defer cancel()
	var (
		next atomic.Int64
		mu   sync.Mutex
		wg   sync.WaitGroup
		r    = result{Concurrency: spec.Concurrency}
		all  []time.Duration
	)
	start := time.Now()
	for range spec.Concurrency {
		wg.Go(func() {
			var lat []time.Duration
			for runCtx.Err() == nil && next.Add(1) <= int64(spec.Requests) {
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
	r.Requests, r.Truncated, r.Stats = len(all), len(all) < spec.Requests, computeStats(all)
	return r, nil
}

// fmtDur renders a latency in milliseconds with sensible precision.
func fmtDur(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 1:
		return fmt.Sprintf("%.3f ms", ms)
	case ms < 100:
		return fmt.Sprintf("%.2f ms", ms)
	default:
		return fmt.Sprintf("%.0f ms", ms)
	}
}

// curvePoint is one poll of a progress counter: at T, Done units were finished.
type curvePoint struct {
	T    time.Time
	Done int
}

// curveStats turns polls of a cumulative counter into per-unit latencies:
// each unit first seen finished at a poll is given that poll's time since
// start, so the figures are exact to one poll interval. Points must be in
// time order; a counter that goes down is treated as flat.
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
