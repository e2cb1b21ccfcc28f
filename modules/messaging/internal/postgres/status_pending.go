package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/text"
)

// This file is status ingestion in batches: the staging table carrier
// status callbacks write to, and the filers' claim of a lane's statuses.
// The batch itself is ingested by ingest.Service.Apply.

// StatusChannel is the notification channel a staged status wakes the
// status filers with (sent after the callback's commit).
const StatusChannel = "teamtext_statuses"

// stageStatusSQL is StageStatus' statement: the lane is a hash of the
// delivery's message, found by the delivery's primary key (of the
// delivery id itself when there is no such delivery: a one-to-one text's
// report, which ingestion ignores, or one for a delivery that is gone).
const stageStatusSQL = `INSERT INTO messaging_status_pending (lane, delivery_id, provider_message_id, status, carrier_status,
  error_code, error_message, reported_at, staged_at)
SELECT hashtext(coalesce((SELECT message_id FROM messaging_deliveries WHERE id = $1), $1)) & ($9::int - 1),
  $1, $2, $3, $4, $5, $6, $7, $8`

// StageStatus stages a carrier's status report in one statement, and
// wakes the status filers once the transaction (ctx's or the statement's
// own) commits, with a NOTIFY of its own (db.Notifier).
func (r *Repo) StageStatus(ctx context.Context, p domain.PendingStatus, at time.Time) error {
	var reported *time.Time
	if !p.ReportedAt.IsZero() {
		reported = &p.ReportedAt
	}
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, stageStatusSQL, p.DeliveryID, p.ProviderMessageID, p.Status, p.CarrierStatus,
			p.ErrorCode, p.ErrorMessage, reported, at, domain.StatusLanes)
		return err
	})
	if err != nil {
		return fmt.Errorf("stage delivery status: %w", err)
	}
	db.AfterCommit(ctx, r.reported.Notify)
	return nil
}

// lockStatusLaneSQL is LockStatusLane's statement: lanes $1, first $2, attempts below $3.
const lockStatusLaneSQL = `SELECT l FROM (
  SELECT l FROM generate_series(0, $1::int - 1) AS l
  WHERE EXISTS (SELECT 1 FROM messaging_status_pending p WHERE p.lane = l AND p.attempts < $3)
  ORDER BY (l - $2::int + $1::int) % $1::int) x
WHERE pg_try_advisory_xact_lock(hashtextextended('messaging_status_lane:' || l, 0)) LIMIT 1`

// LockStatusLane takes, for the transaction, a lane that has staged
// statuses and that no other filer holds, trying the lanes from first on;
// -1 when there is none.
func (r *Repo) LockStatusLane(ctx context.Context, first int) (int, error) {
	return r.lockLane(ctx, "status", lockStatusLaneSQL, domain.StatusLanes, first, domain.StatusMaxAttempts)
}

// takeStatusesSQL is TakeStatuses' statement: lane $1, limit $2, attempts below $3.
// The chosen rows are deleted by key (= ANY of their ids): as a join to
// the chosen set, the delete read the whole table each batch, whatever
// the statistics (21,000 rows to take 500 of a lane of 20,000).
const takeStatusesSQL = `DELETE FROM messaging_status_pending
WHERE id = ANY (ARRAY(SELECT id FROM messaging_status_pending WHERE lane = $1 AND attempts < $3 ORDER BY id LIMIT $2))
RETURNING id, delivery_id, provider_message_id, status, carrier_status, error_code, error_message, reported_at, staged_at`

// TakeStatuses removes up to limit staged statuses of a lane (locked by
// the caller), the oldest first, and returns them in staging order.
func (r *Repo) TakeStatuses(ctx context.Context, lane, limit int) ([]domain.PendingStatus, error) {
	var out []domain.PendingStatus
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, takeStatusesSQL, lane, limit, domain.StatusMaxAttempts)
		if err != nil {
			return err
		}
		var p domain.PendingStatus
		var reported *time.Time
		_, err = pgx.ForEachRow(rows, []any{&p.ID, &p.DeliveryID, &p.ProviderMessageID, &p.Status, &p.CarrierStatus,
			&p.ErrorCode, &p.ErrorMessage, &reported, &p.StagedAt}, func() error {
			p.ReportedAt = time.Time{}
			if reported != nil {
				p.ReportedAt = *reported
			}
			out = append(out, p)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("take delivery statuses of lane %d: %w", lane, err)
	}
	slices.SortFunc(out, func(a, b domain.PendingStatus) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// NoteStatusFailure counts a failed attempt to ingest a staged status on
// its own and keeps the error.
func (r *Repo) NoteStatusFailure(ctx context.Context, id int64, cause string) error {
	return r.noteStagedFailure(ctx, "messaging_status_pending", id, cause)
}

// PendingStatusStats are the staged statuses' count and the oldest one's staging.
func (r *Repo) PendingStatusStats(ctx context.Context) (int64, *time.Time, error) {
	return r.stagedStats(ctx, "messaging_status_pending", "staged_at")
}

// lockLane runs a staging table's lane statement (lockInboundLaneSQL,
// lockStatusLaneSQL: lanes, first, attempts below) in ctx's transaction,
// which holds the lane it returns; -1 when there is none. The lock is
// tried lane after lane in the statement's subquery order, and the scan
// stops at the first it gets (a volatile qual is never pushed into the
// ordered subquery).
func (r *Repo) lockLane(ctx context.Context, what, sql string, lanes, first, attempts int) (int, error) {
	if _, err := db.MustTx(ctx); err != nil {
		return 0, err
	}
	lane := -1
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		err := q.QueryRow(ctx, sql, lanes, first, attempts).Scan(&lane)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // lane stays -1
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("lock %s lane: %w", what, err)
	}
	return lane, nil
}

// noteStagedFailure counts a failed attempt on a row of a staging table
// (a constant name) and keeps the error, truncated.
func (r *Repo) noteStagedFailure(ctx context.Context, table string, id int64, cause string) error {
	if len(cause) > 1000 {
		cause = cause[:1000]
	}
	return r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		if _, err := q.Exec(ctx, `UPDATE `+table+` SET attempts = attempts + 1, last_error = $2 WHERE id = $1`,
			id, text.Storable(cause)); err != nil {
			return fmt.Errorf("note failure in %s: %w", table, err)
		}
		return nil
	})
}

// stagedStats counts a staging table's rows (a constant name) and reads
// the oldest one's time column.
func (r *Repo) stagedStats(ctx context.Context, table, column string) (int64, *time.Time, error) {
	var n int64
	var oldest *time.Time
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		return q.QueryRow(ctx, `SELECT count(*), min(`+column+`) FROM `+table).Scan(&n, &oldest)
	})
	if err != nil {
		return 0, nil, fmt.Errorf("%s backlog: %w", table, err)
	}
	return n, oldest, nil
}
