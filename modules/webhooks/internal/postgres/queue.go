package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

// isNoRows reports an empty single-row result from either driver.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows) }

// statusWhere is the SQL condition (on d) of an API delivery status ("":
// every status): domain.Delivery.Status in SQL, so that the filter runs on
// the index (status_test.go checks the two agree).
func statusWhere(status string) (string, error) {
	switch status {
	case "":
		return "true", nil
	case domain.StatusPending:
		return "d.state = " + sqlPending + " AND d.attempts <= d.round_from", nil
	case domain.StatusFailed:
		return "d.state = " + sqlPending + " AND d.attempts > d.round_from", nil
	case domain.StatusDelivered:
		return "d.state = " + sqlSucceeded, nil
	case domain.StatusAbandoned:
		return "d.state = " + sqlAbandoned, nil
	case domain.StatusCancelled:
		return "d.state = " + sqlCancelled, nil
	}
	return "", fmt.Errorf("unknown delivery status %q", status)
}

// Deliveries lists a webhook's deliveries, newest first, limit+1 rows,
// only those of status (an API status; "" for all).
func (r *Repo) Deliveries(ctx context.Context, teamID, webhookID, status string, limit, offset int) ([]domain.Listed, error) {
	cond, err := statusWhere(status)
	if err != nil {
		return nil, err
	}
	rows, err := r.query(ctx, `
SELECT d.id, d.team_id, d.event_id, d.webhook_id, d.state, d.attempts, d.next_attempt_at, d.created_at, d.updated_at,
       d.round_from, d.queued, coalesce(e.type, '')
FROM webhook_deliveries d
LEFT JOIN webhook_events e ON e.id = d.event_id AND e.team_id = d.team_id
WHERE d.webhook_id = $2::text AND d.team_id = $1::text AND `+cond+`
ORDER BY d.created_at DESC, d.id DESC
LIMIT $3::integer OFFSET $4::integer`, teamID, webhookID, limit+1, offset)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	var out []domain.Listed
	err = rows.each(func(scan func(...any) error) error {
		var l domain.Listed
		d := &l.Delivery
		if err := scan(&d.ID, &d.TeamID, &d.EventID, &d.WebhookID, &d.State, &d.Attempts, &d.NextAttemptAt, &d.CreatedAt,
			&d.UpdatedAt, &d.RoundFrom, &d.Queued, &l.EventType); err != nil {
			return err
		}
		out = append(out, l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	return out, nil
}

// AttemptsOf returns the attempts of a team's deliveries, oldest first per delivery.
func (r *Repo) AttemptsOf(ctx context.Context, teamID string, deliveryIDs []string) (map[string][]domain.Attempt, error) {
	out := make(map[string][]domain.Attempt, len(deliveryIDs))
	if len(deliveryIDs) == 0 {
		return out, nil
	}
	var as []attemptRow
	err := r.db.IDB(ctx).NewSelect().Model(&as).
		Where("team_id = ? AND delivery_id IN (?)", teamID, bun.In(deliveryIDs)).
		OrderExpr("delivery_id, attempt").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list attempts of deliveries: %w", err)
	}
	for i := range as {
		out[as[i].DeliveryID] = append(out[as[i].DeliveryID], toAttempt(&as[i]))
	}
	return out, nil
}

// Delivery loads one of a webhook's deliveries (for the team).
func (r *Repo) Delivery(ctx context.Context, teamID, webhookID, id string) (*domain.Delivery, error) {
	d := new(deliveryRow)
	if err := r.selectDelivery(ctx, d, teamID, webhookID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select delivery")
	}
	return toDelivery(d), nil
}

// selectDelivery is the statement that reads one of a webhook's deliveries (for the team) into d.
func (r *Repo) selectDelivery(ctx context.Context, d *deliveryRow, teamID, webhookID, id string) *bun.SelectQuery {
	return r.db.IDB(ctx).NewSelect().Model(d).Where("team_id = ? AND webhook_id = ? AND id = ?", teamID, webhookID, id)
}

// UpdateDelivery loads one of a webhook's deliveries locked, lets change
// alter it, and stores what change left (state, attempts, round, next
// attempt, queue flag). When change fails nothing is written. It joins
// the transaction carried by ctx (and needs one).
func (r *Repo) UpdateDelivery(ctx context.Context, teamID, webhookID, id string, change func(*domain.Delivery) error) (*domain.Delivery, error) {
	if _, err := db.MustTx(ctx); err != nil {
		return nil, fmt.Errorf("update delivery: %w", err)
	}
	locked := new(deliveryRow)
	if err := r.selectDelivery(ctx, locked, teamID, webhookID, id).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, "select delivery")
	}
	d := toDelivery(locked)
	if err := change(d); err != nil {
		return nil, err
	}
	row := fromDelivery(d)
	err := r.db.IDB(ctx).NewUpdate().Model(&row).
		Column("state", "attempts", "round_from", "next_attempt_at", "queued", "updated_at").
		Where("team_id = ? AND id = ?", teamID, id).Returning("*").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("update delivery: %w", err)
	}
	return toDelivery(&row), nil
}

// recoverSQL is Recover's statement: team $1, webhook $2, since $3, now $4.
const recoverSQL = `
WITH r AS (
    UPDATE webhook_deliveries SET state = ` + sqlPending + `, round_from = attempts, next_attempt_at = NULL, queued = true,
        updated_at = $4::timestamptz
    WHERE webhook_id = $2::text AND team_id = $1::text AND created_at >= $3::timestamptz
      AND state IN (` + sqlAbandoned + `, ` + sqlCancelled + `)
    RETURNING 1
)
SELECT count(*) FROM r`

// Recover puts every delivery of a webhook created at or after since that
// ended unsent (abandoned, or cancelled when the webhook turned off) back
// in the webhook's queue, each starting a new round, and returns how many:
// domain.Delivery.Recoverable and Recover, set-based.
// One statement; the queue sends them in their original order.
func (r *Repo) Recover(ctx context.Context, teamID, webhookID string, since, now time.Time) (int, error) {
	var n int
	err := r.queryRow(ctx, recoverSQL, teamID, webhookID, since, now).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("recover deliveries: %w", err)
	}
	return n, nil
}

// Enqueue puts a pending delivery whose next attempt is attempt into its
// webhook's queue; false when it is not pending at attempt-1 (recorded
// already, or ended) or is queued already: domain.Delivery.Enqueue in one
// statement (rules_test.go holds it to the domain).
func (r *Repo) Enqueue(ctx context.Context, teamID, id string, attempt int, now time.Time) (bool, error) {
	res, err := r.db.IDB(ctx).NewUpdate().Model((*deliveryRow)(nil)).
		Set("queued = true").Set("next_attempt_at = NULL").Set("updated_at = ?", now).
		Where("team_id = ? AND id = ? AND state = ? AND attempts = ? AND NOT queued", teamID, id, domain.StatePending, attempt-1).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("enqueue delivery: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("enqueue delivery: %w", err)
	}
	return n == 1, nil
}

// claimPumpSQL is ClaimPump's statement: team $1, webhook $2.
const claimPumpSQL = `
INSERT INTO webhook_queues AS q (webhook_id, team_id, pump) VALUES ($2::text, $1::text, true)
ON CONFLICT (webhook_id) DO UPDATE SET pump = true WHERE NOT q.pump
RETURNING true`

// ClaimPump records that a webhook's queue needs its pump, in the
// caller's transaction (after the deliveries were queued). It reports true
// when no pump job exists: the caller then inserts one. The row lock it
// takes (held until commit) orders it with FinishPump, so a pump never
// ends while a delivery is being queued unseen.
func (r *Repo) ClaimPump(ctx context.Context, teamID, webhookID string) (bool, error) {
	var claimed bool
	err := r.queryRow(ctx, claimPumpSQL, teamID, webhookID).Scan(&claimed)
	if isNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim pump: %w", err)
	}
	return claimed, nil
}

// FinishPump ends a webhook's pump if its queue is empty, in its own
// transaction: the queue row is locked first (waiting for anyone queueing
// a delivery), then the queue is looked at afresh. It reports whether the
// pump ended (false: deliveries are queued; the pump goes on).
func (r *Repo) FinishPump(ctx context.Context, teamID, webhookID string) (bool, error) {
	var done bool
	err := r.db.Tx(ctx, func(ctx context.Context) error {
		var one int
		err := r.queryRow(ctx, `SELECT 1 FROM webhook_queues WHERE webhook_id = $1::text AND team_id = $2::text FOR UPDATE`,
			webhookID, teamID).Scan(&one)
		if isNoRows(err) {
			done = true // never claimed: nothing to end
			return nil
		}
		if err != nil {
			return err
		}
		var queued bool
		err = r.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1::text AND queued)`, webhookID).Scan(&queued)
		if err != nil || queued {
			return err
		}
		tx, err := db.MustTx(ctx)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE webhook_queues SET pump = false WHERE webhook_id = ?`, webhookID)
		done = err == nil
		return err
	})
	if err != nil {
		return false, fmt.Errorf("finish pump: %w", err)
	}
	return done, nil
}

// QueueSlot returns a webhook's stored next slot (nil: none yet).
func (r *Repo) QueueSlot(ctx context.Context, webhookID string) (*time.Time, error) {
	var t sql.NullTime
	err := r.queryRow(ctx, `SELECT next_slot_at FROM webhook_queues WHERE webhook_id = $1::text`, webhookID).Scan(&t)
	if err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("read queue slot: %w", err)
	}
	if !t.Valid {
		return nil, nil
	}
	return &t.Time, nil
}

// SaveSlot stores a webhook's next slot.
func (r *Repo) SaveSlot(ctx context.Context, webhookID string, at time.Time) error {
	if _, err := r.db.Pool.Exec(ctx, `UPDATE webhook_queues SET next_slot_at = $2 WHERE webhook_id = $1`, webhookID, at); err != nil {
		return fmt.Errorf("save queue slot: %w", err)
	}
	return nil
}

// queuedSQL is Queued's statement: team $1, webhook $2, limit $3. The
// deliveries are taken first, limit of them in the queue's order (its
// partial index), and only they are joined to their events: planned as
// one join, a queue filled faster than autovacuum analyzes (a recovery
// of 10,000, a team's events grown by an import) was read from the
// team's events, every one of them each pass (60,000 rows, a second).
const queuedSQL = `
WITH d AS MATERIALIZED (
    SELECT * FROM webhook_deliveries
    WHERE webhook_id = $2::text AND team_id = $1::text AND queued AND state = ` + sqlPending + `
    ORDER BY created_at, id
    LIMIT $3::integer
)
SELECT ` + workColumns + `
FROM d
LEFT JOIN webhooks w ON w.id = d.webhook_id AND w.team_id = d.team_id
JOIN webhook_events e ON e.id = d.event_id AND e.team_id = d.team_id
ORDER BY d.created_at, d.id`

// Queued reads up to limit of a webhook's queued deliveries, in order.
func (r *Repo) Queued(ctx context.Context, teamID, webhookID string, limit int) ([]*domain.Work, error) {
	rows, err := r.query(ctx, queuedSQL, teamID, webhookID, limit)
	if err != nil {
		return nil, fmt.Errorf("read queue: %w", err)
	}
	var out []*domain.Work
	err = rows.each(func(scan func(...any) error) error {
		w, err := scanWork(scan)
		if err != nil {
			return err
		}
		out = append(out, w)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read queue: %w", err)
	}
	return out, nil
}

// CancelQueued ends every queued delivery of a webhook that is off, and
// returns how many: domain.Delivery.Cancel over the queue, set-based (a
// queued delivery is pending; the state is checked as Cancel and Queued
// do). rules_test.go holds it to Cancel.
func (r *Repo) CancelQueued(ctx context.Context, teamID, webhookID string, now time.Time) (int64, error) {
	res, err := r.db.IDB(ctx).NewUpdate().Model((*deliveryRow)(nil)).
		Set("state = ?", domain.StateCancelled).Set("next_attempt_at = NULL").Set("queued = false").Set("updated_at = ?", now).
		Where("webhook_id = ? AND team_id = ? AND queued AND state = ?", webhookID, teamID, domain.StatePending).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("cancel queued deliveries: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// QueuedCount counts the deliveries waiting in every queue (the backlog metric).
func (r *Repo) QueuedCount(ctx context.Context) (int64, error) {
	var n int64
	if err := r.queryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE queued`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count queued deliveries: %w", err)
	}
	return n, nil
}
