package main

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"
)

const quietTimeout = time.Minute // longest a row waits for the queue to drain before it starts

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

func sleepUntil(ctx context.Context, t time.Time) error {
	select {
	case <-time.After(time.Until(t)):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitFor calls done every interval until it reports true, fails, or
// timeout passes (then it returns false without an error).
func waitFor(ctx context.Context, every, timeout time.Duration, done func() (bool, error)) (bool, error) {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := done()
		if ok || err != nil {
			return ok, err
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		if err := sleepUntil(ctx, time.Now().Add(every)); err != nil {
			return false, err
		}
	}
}

// follow polls count every interval until it reaches total or timeout
// passes, and returns its readings.
func follow(ctx context.Context, every, timeout time.Duration, total int, count func() (int, error)) ([]curvePoint, error) {
	var curve []curvePoint
	_, err := waitFor(ctx, every, timeout, func() (bool, error) {
		n, err := count()
		curve = append(curve, curvePoint{time.Now(), n})
		return n == total, err
	})
	return curve, err
}

// scalar runs a statement that returns one value.
func scalar[T any](ctx context.Context, pool *pgxpool.Pool, sql string, args ...any) (T, error) {
	var v T
	err := pool.QueryRow(ctx, sql, args...).Scan(&v)
	return v, err
}

// waitQuiet waits until no job is available or running, so that a row
// measures its own jobs only (scheduled ones, such as each send's 72-hour
// unconfirm job, do not count, nor the perpetual pumps, which are due every
// second).
func waitQuiet(ctx context.Context, pool *pgxpool.Pool, name string) error {
	quiet, err := waitFor(ctx, 200*time.Millisecond, quietTimeout, func() (bool, error) {
		n, err := scalar[int](ctx, pool, `SELECT count(*) FROM river_job WHERE state IN ('available', 'running') AND scheduled_at <= now()
  AND kind NOT IN ('messaging.pump', 'messaging.sim_reports')`)
		return n == 0, err
	})
	if err == nil && !quiet {
		progress("scenario %s: jobs still pending after %s; starting anyway", name, quietTimeout)
	}
	return err
}

func ptr[T any](v T) *T { return &v }
