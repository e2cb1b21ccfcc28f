// Package clock is the one source of "now" for the service, so that
// schedules, retries, limits and expiries can be driven by a test clock.
package clock

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Clock tells the current time. It also satisfies River's
// rivertype.TimeGenerator so that River's scheduler follows the same time.
type Clock interface {
	Now() time.Time
	// NowOrNil returns nil for the real clock (River then uses the database's
	// now()) and the shifted time for the test clock.
	NowOrNil() *time.Time
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NowOrNil returns nil: the real clock is not stubbed.
func (Real) NowOrNil() *time.Time { return nil }

// Test is wall-clock time plus an offset kept in the database
// (platform_clock), so that every node sharing the database agrees on it.
// It exists for tests and demos only.
//
// It reads through its own small pool: callers ask for the time while
// holding a connection of the main pool (inside transactions), and sharing
// that pool would let busy workers starve each other. A reading is reused
// for CacheFor; the node that advances the clock sees the change at once,
// other nodes within CacheFor.
type Test struct {
	pool    *pgxpool.Pool
	last    atomic.Int64 // offset in ns
	readAt  atomic.Int64 // monotonic ns since start of the last read; 0 = never
	started time.Time
}

// CacheFor is how long a test-clock reading is reused.
const CacheFor = 25 * time.Millisecond

// NewTest returns a test clock reading its offset through pool (a pool of its own).
func NewTest(pool *pgxpool.Pool) *Test { return &Test{pool: pool, started: time.Now()} }

// Now returns wall-clock time plus the stored offset.
func (c *Test) Now() time.Time {
	if r := c.readAt.Load(); r != 0 && time.Since(c.started)-time.Duration(r) < CacheFor {
		return time.Now().Add(time.Duration(c.last.Load()))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	off, err := c.Offset(ctx)
	if err != nil {
		off = time.Duration(c.last.Load())
	}
	return time.Now().Add(off)
}

// NowOrNil returns the shifted time, so River uses it in its queries.
func (c *Test) NowOrNil() *time.Time {
	t := c.Now().UTC()
	return &t
}

// Offset reads the current offset.
func (c *Test) Offset(ctx context.Context) (time.Duration, error) {
	var us int64
	err := c.pool.QueryRow(ctx, `SELECT offset_us FROM platform_clock WHERE id = 1`).Scan(&us)
	if err != nil {
		return 0, fmt.Errorf("read test clock offset: %w", err)
	}
	c.remember(time.Duration(us) * time.Microsecond)
	return time.Duration(us) * time.Microsecond, nil
}

func (c *Test) remember(off time.Duration) {
	c.last.Store(int64(off))
	c.readAt.Store(int64(max(time.Since(c.started), 1)))
}

// Advance adds d to the shared offset and returns the new time.
func (c *Test) Advance(ctx context.Context, d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, fmt.Errorf("advance test clock: negative duration %s", d)
	}
	var us int64
	err := c.pool.QueryRow(ctx,
		`UPDATE platform_clock SET offset_us = offset_us + $1 WHERE id = 1 RETURNING offset_us`,
		d.Microseconds()).Scan(&us)
	if err != nil {
		return time.Time{}, fmt.Errorf("advance test clock: %w", err)
	}
	off := time.Duration(us) * time.Microsecond
	c.remember(off)
	return time.Now().Add(off), nil
}
