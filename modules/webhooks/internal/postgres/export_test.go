package postgres

import (
	"context"
	"time"
)

const (
	timeout = 10 * time.Second
	tick    = time.Millisecond
)

// SuccessBatch exposes one success batch to the package's database tests.
func (r *Repo) SuccessBatch(ctx context.Context, as []*Attempt, now time.Time) ([]bool, error) {
	in := make([]*success, len(as))
	for i, a := range as {
		in[i] = &success{a: a, now: now}
	}
	return r.successBatch(ctx, in)
}
