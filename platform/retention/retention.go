// Package retention deletes rows that have outlived their retention period,
// in small batches, from a periodic job River enqueues on its leader only.
//
// Tables it prunes have ids made by platform/id (a prefix and a UUIDv7 in
// hex), whose first 12 hex digits are the creation time in milliseconds: a
// row is older than t exactly when its id sorts below prefix_<t in hex>. So
// a batch is a range scan of the primary key from the oldest row, never a
// scan of the table, and each batch is its own short transaction that skips
// rows another transaction holds (FOR UPDATE SKIP LOCKED): a hot table is
// never locked for long.
package retention

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/platform/clock"
)

// Target is one table pruned by age.
type Target struct {
	Table    string        // table name, trusted (from code, never from input)
	IDPrefix string        // the platform/id prefix of its primary key "id", e.g. "dlv"
	Keep     time.Duration // rows older than this go; 0 keeps them forever
}

// DefaultBatch is how many rows one DELETE removes.
const DefaultBatch = 1000

// Args is the periodic retention job.
type Args struct{}

// Kind names the job.
func (Args) Kind() string { return "platform.retention" }

// Worker prunes every target. It stops early (the next run goes on) when
// its budget is spent, so an attempt never nears JOB_TIMEOUT.
type Worker struct {
	river.WorkerDefaults[Args]
	Pool    *pgxpool.Pool
	Clock   clock.Clock
	Targets []Target
	Batch   int           // rows per DELETE; DefaultBatch when 0
	Budget  time.Duration // time one run may spend; 0: until done
	Log     *slog.Logger
}

// Work runs one pass over the targets.
func (w *Worker) Work(ctx context.Context, _ *river.Job[Args]) error {
	_, err := w.Prune(ctx)
	return err
}

// Prune deletes what is past retention and returns the rows deleted per table.
func (w *Worker) Prune(ctx context.Context) (map[string]int64, error) {
	batch := w.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	start := time.Now()
	now := w.Clock.Now()
	deleted := map[string]int64{}
	for _, t := range w.Targets {
		if t.Keep <= 0 {
			continue
		}
		bound := CutoffID(t.IDPrefix, now.Add(-t.Keep))
		q := fmt.Sprintf(`DELETE FROM %s WHERE id IN (
    SELECT id FROM %[1]s WHERE id < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`, pgx.Identifier{t.Table}.Sanitize())
		for {
			tag, err := w.Pool.Exec(ctx, q, bound, batch)
			if err != nil {
				return deleted, fmt.Errorf("retention: prune %s: %w", t.Table, err)
			}
			deleted[t.Table] += tag.RowsAffected()
			if tag.RowsAffected() < int64(batch) {
				break
			}
			if w.Budget > 0 && time.Since(start) > w.Budget {
				w.log().Info("retention budget spent; the next run goes on", "table", t.Table, "deleted", deleted[t.Table])
				return deleted, nil
			}
		}
		if deleted[t.Table] > 0 {
			w.log().Info("retention pruned", "table", t.Table, "deleted", deleted[t.Table], "older_than", now.Add(-t.Keep).Format(time.RFC3339))
		}
	}
	return deleted, nil
}

func (w *Worker) log() *slog.Logger {
	if w.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Log
}

// CutoffID is the smallest id prefix makes at t: every id made before t's
// millisecond sorts below it, every id made at or after it does not.
func CutoffID(prefix string, t time.Time) string {
	ms := t.UnixMilli()
	if ms < 0 {
		ms = 0
	}
	return fmt.Sprintf("%s_%012x", prefix, ms&(1<<48-1))
}

// Schedule runs the job every hour (and once at start), enqueued by
// River's leader only.
func Schedule() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return Args{}, nil },
		&river.PeriodicJobOpts{ID: "platform.retention", RunOnStart: true})
}
