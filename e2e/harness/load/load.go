// Package load drives concurrent calls and summarises how long they took.
// It is the measuring kit that the load generator (e2e/bench) and the e2e
// package's benchmarks share: latency percentiles, a worker pool that
// times every call, polls of a progress counter turned into per-unit
// latencies, a keep-alive HTTP client, and what a process used of the CPU.
package load

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/teamtext/teamtext/platform/loops"
)

// Stats summarises latencies.
type Stats struct {
	N                  int
	P50, P90, P99, Max time.Duration
}

// Summarise sorts lat in place and summarises it.
func Summarise(lat []time.Duration) Stats {
	if len(lat) == 0 {
		return Stats{}
	}
	slices.Sort(lat)
	return Stats{N: len(lat), P50: Percentile(lat, 50), P90: Percentile(lat, 90), P99: Percentile(lat, 99), Max: lat[len(lat)-1]}
}

// Percentile is the nearest-rank p-th percentile (0 < p <= 100) of an
// ascending slice: the smallest value that at least p% of values do not exceed.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// Run is what Drive measured.
type Run struct {
	Requests   int           // calls completed (ok + errors)
	Errors     int           // calls that returned an error
	FirstError string        // the first error, for the log
	Elapsed    time.Duration // wall time of the run
	Truncated  bool          // stopped by its time bound before all calls ran
	Stats      Stats         // over successful and failed calls alike
}

// Drive calls do requests times (fewer if ctx ends or bound passes) from
// workers goroutines and times each call. A non-nil error from do counts
// as a failed call; a call cut short by the bound is not counted. It
// returns ctx's error, and no figures, when ctx ends first.
func Drive(ctx context.Context, requests, workers int, bound time.Duration, do func(ctx context.Context) error) (Run, error) {
	if requests <= 0 || workers <= 0 {
		return Run{}, fmt.Errorf("requests (%d) and workers (%d) must be positive", requests, workers)
	}
	runCtx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var (
		next atomic.Int64
		mu   sync.Mutex
		wg   sync.WaitGroup
		r    Run
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
					break // cut short by the bound or ^C: not a server failure
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
		return Run{}, err
	}
	r.Requests, r.Truncated, r.Stats = len(all), len(all) < requests, Summarise(all)
	return r, nil
}

// Parallel runs f(i) for i in [0, n) on workers goroutines, stopping at
// the first error, which it returns.
func Parallel(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error) error {
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

// WaitFor calls done every interval until it reports true, fails, or
// timeout passes (then it returns false without an error).
func WaitFor(ctx context.Context, every, timeout time.Duration, done func() (bool, error)) (bool, error) {
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

// Point is one poll of a progress counter: at T, Done units were finished.
type Point struct {
	T    time.Time
	Done int
}

// Curve turns polls of a cumulative counter into per-unit latencies: each
// unit first seen finished at a poll is given that poll's time since
// start, so the figures are exact to one poll interval. A counter that
// goes down is treated as flat.
func Curve(start time.Time, points []Point) Stats {
	var lat []time.Duration
	done := 0
	for _, p := range points {
		for ; done < p.Done; done++ {
			lat = append(lat, p.T.Sub(start))
		}
	}
	return Summarise(lat)
}

// Progress is what Follow saw: Done units by Elapsed since the start, and
// each unit's latency (Curve).
type Progress struct {
	Elapsed time.Duration
	Done    int
	Stats   Stats
}

// Follow polls count every interval until it reaches total or timeout
// passes. Elapsed runs from start to the last poll; it fails when no unit
// was done by then.
func Follow(ctx context.Context, start time.Time, every, timeout time.Duration, total int, count func() (int, error)) (Progress, error) {
	var curve []Point
	_, err := WaitFor(ctx, every, timeout, func() (bool, error) {
		n, err := count()
		curve = append(curve, Point{time.Now(), n})
		return n == total, err
	})
	if err != nil {
		return Progress{}, err
	}
	last := curve[len(curve)-1]
	if last.Done == 0 {
		return Progress{}, fmt.Errorf("none of %d done within %s", total, timeout)
	}
	return Progress{Elapsed: last.T.Sub(start), Done: last.Done, Stats: Curve(start, curve)}, nil
}

// Client is an HTTP client for conns concurrent workers that keeps a
// connection per worker alive between requests, as an API client does,
// its connections leaving from local (any address when nil). Go's default
// transport keeps 2 idle connections per host: with more workers, most
// requests would dial a new connection, and the figures would measure TCP
// set-ups.
func Client(conns int, local net.IP) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if local != nil {
		d.LocalAddr = &net.TCPAddr{IP: local}
	}
	tr := &http.Transport{
		DialContext:         d.DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: time.Minute}
}
