package batch

import (
	"context"
	"fmt"
	"time"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

// Store is the delivery path's storage (postgres.Repo): one read in the
// caller's transaction, and the set-based statements a batch runs.
type Store interface {
	// Work reads one delivery with its webhook and event (domain.ErrNotFound
	// for another team's id), in the transaction carried by ctx.
	Work(ctx context.Context, teamID, deliveryID string) (*domain.Work, error)
	// Works reads many (teamIDs[i], deliveryIDs[i]) in one statement; nil
	// where a delivery is not found.
	Works(ctx context.Context, teamIDs, deliveryIDs []string) ([]*domain.Work, error)
	// RecordSuccesses records successful attempts (as[i] at nows[i]) in one
	// statement per round; false where the attempt was recorded already.
	RecordSuccesses(ctx context.Context, as []*domain.Attempt, nows []time.Time) ([]bool, error)
}

// Deliveries is the delivery worker's read and record, with concurrent
// calls gathered into one statement each (River runs up to WEBHOOK_WORKERS
// attempts at once). A read inside a transaction is not batched: it must
// see that transaction.
type Deliveries struct {
	store     Store
	works     *Batcher[workKey, *domain.Work]
	successes *Batcher[success, bool]
}

type workKey struct{ teamID, deliveryID string }

type success struct {
	a   *domain.Attempt
	now time.Time
}

// NewDeliveries returns the batched delivery path over s.
func NewDeliveries(s Store) *Deliveries {
	d := &Deliveries{store: s}
	d.works = New(func(ctx context.Context, keys []workKey) ([]*domain.Work, error) {
		teams, ids := make([]string, len(keys)), make([]string, len(keys))
		for i, k := range keys {
			teams[i], ids[i] = k.teamID, k.deliveryID
		}
		return s.Works(ctx, teams, ids)
	})
	d.successes = New(func(ctx context.Context, in []success) ([]bool, error) {
		as, nows := make([]*domain.Attempt, len(in)), make([]time.Time, len(in))
		for i, c := range in {
			as[i], nows[i] = c.a, c.now
		}
		return s.RecordSuccesses(ctx, as, nows)
	})
	return d
}

// Work loads a delivery with its webhook and event. A delivery whose
// webhook is gone comes back with WebhookExists false; an unknown one (or
// another team's) is domain.ErrNotFound. Outside a transaction,
// concurrent calls are read together.
func (d *Deliveries) Work(ctx context.Context, teamID, deliveryID string) (*domain.Work, error) {
	if _, ok := db.TxFrom(ctx); ok {
		return d.store.Work(ctx, teamID, deliveryID)
	}
	w, err := d.works.Do(ctx, workKey{teamID: teamID, deliveryID: deliveryID})
	if err != nil {
		return nil, fmt.Errorf("select delivery: %w", err)
	}
	if w == nil {
		return nil, domain.ErrNotFound
	}
	return w, nil
}

// RecordSuccess records a successful attempt, atomically without a
// transaction (postgres.Repo.RecordSuccesses); false when the delivery was
// not pending at attempt-1 (recorded already): then nothing is written.
// Concurrent calls are recorded together.
func (d *Deliveries) RecordSuccess(ctx context.Context, a *domain.Attempt, now time.Time) (bool, error) {
	return d.successes.Do(ctx, success{a: a, now: now})
}
