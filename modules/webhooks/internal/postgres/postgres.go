// Package postgres stores the webhooks module's subscriptions, event log,
// deliveries, attempts and e-mail notices through bun, and embeds the
// module's migrations. Every query that takes an id also takes the team id.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/platform/db"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the webhooks module's schema history.
func Migrations() db.MigrationSet { return db.Embedded("webhooks", 50, migrationFiles, "migrations") }

// ErrNotFound means no row matched (for this team).
var ErrNotFound = errors.New("webhooks: not found")

// Delivery states.
const (
	StatePending   = "pending"
	StateSucceeded = "succeeded"
	StateAbandoned = "abandoned"
	StateCancelled = "cancelled"
)

// Webhook is a webhooks row.
type Webhook struct {
	bun.BaseModel       `bun:"table:webhooks"`
	ID                  string    `bun:"id,pk"`
	TeamID              string    `bun:"team_id"`
	URL                 string    `bun:"url"`
	Events              []string  `bun:"events,array"`
	Secret              string    `bun:"secret"`
	Source              string    `bun:"source"`
	CreatedBy           string    `bun:"created_by"`
	OwnerID             string    `bun:"owner_id"`
	KeyID               *string   `bun:"key_id"`
	Enabled             bool      `bun:"enabled"`
	DisabledReason      *string   `bun:"disabled_reason"`
	ConsecutiveFailures int       `bun:"consecutive_failures"`
	CreatedAt           time.Time `bun:"created_at"`
	UpdatedAt           time.Time `bun:"updated_at"`
}

// Event is a webhook_events row: the envelope exactly as it is sent.
type Event struct {
	bun.BaseModel `bun:"table:webhook_events"`
	ID            string    `bun:"id,pk"`
	TeamID        string    `bun:"team_id"`
	Type          string    `bun:"type"`
	CreatedAt     time.Time `bun:"created_at"`
	Body          string    `bun:"body"`
	Skipped       bool      `bun:"skipped"`
	WebhookID     *string   `bun:"webhook_id"`
}

// Delivery is a webhook_deliveries row.
type Delivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`
	ID            string     `bun:"id,pk"`
	TeamID        string     `bun:"team_id"`
	EventID       string     `bun:"event_id"`
	WebhookID     string     `bun:"webhook_id"`
	State         string     `bun:"state"`
	Attempts      int        `bun:"attempts"`
	NextAttemptAt *time.Time `bun:"next_attempt_at"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
}

// Attempt is a webhook_attempts row.
type Attempt struct {
	bun.BaseModel `bun:"table:webhook_attempts"`
	ID            int64      `bun:"id,pk,autoincrement"`
	TeamID        string     `bun:"team_id"`
	WebhookID     string     `bun:"webhook_id"`
	DeliveryID    string     `bun:"delivery_id"`
	EventID       string     `bun:"event_id"`
	Attempt       int        `bun:"attempt"`
	AttemptedAt   time.Time  `bun:"attempted_at"`
	DurationUS    int64      `bun:"duration_us"`
	StatusCode    *int       `bun:"status_code"`
	Error         *string    `bun:"error"`
	Success       bool       `bun:"success"`
	NextAttemptAt *time.Time `bun:"next_attempt_at"`
}

// Notification is a webhook_notifications row: one e-mail to one person.
type Notification struct {
	bun.BaseModel `bun:"table:webhook_notifications"`
	ID            string     `bun:"id,pk"`
	TeamID        string     `bun:"team_id"`
	MemberID      string     `bun:"member_id"`
	To            string     `bun:"to_address"`
	Subject       string     `bun:"subject"`
	Body          string     `bun:"body"`
	Status        string     `bun:"status"`
	Error         *string    `bun:"error"`
	CreatedAt     time.Time  `bun:"created_at"`
	SentAt        *time.Time `bun:"sent_at"`
}

// Work is what a delivery attempt needs, read in one query.
type Work struct {
	DeliveryID string `bun:"delivery_id"`
	TeamID     string `bun:"team_id"`
	EventID    string `bun:"event_id"`
	WebhookID  string `bun:"webhook_id"`
	State      string `bun:"state"`
	Attempts   int    `bun:"attempts"`
	URL        string `bun:"url"`
	Secret     string `bun:"secret"`
	Enabled    bool   `bun:"enabled"`
	EventType  string `bun:"event_type"`
	Body       string `bun:"body"`
	Failures   int    `bun:"consecutive_failures"`
}

// Repo is the module's repository.
type Repo struct{ db *db.DB }

// NewRepo returns a repository over d.
func NewRepo(d *db.DB) *Repo { return &Repo{db: d} }

func notFound(err error, what string) error { return db.NotFound(err, ErrNotFound, what) }

// LockTeam serialises webhook creation for a team until the transaction
// ends, so that two concurrent creations cannot both pass the limit.
func (r *Repo) LockTeam(ctx context.Context, teamID string) error {
	tx, err := db.MustTx(ctx)
	if err != nil {
		return fmt.Errorf("lock team webhooks: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('webhooks:' || ?, 0))`, teamID); err != nil {
		return fmt.Errorf("lock team webhooks: %w", err)
	}
	return nil
}

// CountWebhooks counts a team's webhooks, enabled or not.
func (r *Repo) CountWebhooks(ctx context.Context, teamID string) (int, error) {
	n, err := r.db.IDB(ctx).NewSelect().Model((*Webhook)(nil)).Where("team_id = ?", teamID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count webhooks: %w", err)
	}
	return int(n), nil
}

// InsertWebhook stores a new webhook.
func (r *Repo) InsertWebhook(ctx context.Context, w *Webhook) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(w).Exec(ctx); err != nil {
		return fmt.Errorf("insert webhook: %w", err)
	}
	return nil
}

// Webhooks lists a team's webhooks, oldest first, limit+1 rows for pagination.
func (r *Repo) Webhooks(ctx context.Context, teamID string, limit, offset int) ([]Webhook, error) {
	var ws []Webhook
	err := r.db.IDB(ctx).NewSelect().Model(&ws).Where("team_id = ?", teamID).
		OrderExpr("created_at, id").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	return ws, nil
}

// Webhook loads one of a team's webhooks; forUpdate locks the row.
func (r *Repo) Webhook(ctx context.Context, teamID, id string, forUpdate bool) (*Webhook, error) {
	w := new(Webhook)
	q := r.db.IDB(ctx).NewSelect().Model(w).Where("team_id = ? AND id = ?", teamID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, notFound(err, "select webhook")
	}
	return w, nil
}

// DeleteWebhook deletes one of a team's webhooks with its deliveries and
// attempts, and returns it.
func (r *Repo) DeleteWebhook(ctx context.Context, teamID, id string) (*Webhook, error) {
	w := new(Webhook)
	err := r.db.IDB(ctx).NewDelete().Model(w).Where("team_id = ? AND id = ?", teamID, id).Returning("*").Scan(ctx)
	if err != nil {
		return nil, notFound(err, "delete webhook")
	}
	return w, nil
}

// DeleteByKey deletes the webhooks a team made with an API key and returns their ids.
func (r *Repo) DeleteByKey(ctx context.Context, teamID, keyID string) ([]string, error) {
	var ids []string
	err := r.db.IDB(ctx).NewDelete().Model((*Webhook)(nil)).Where("team_id = ? AND key_id = ?", teamID, keyID).
		Returning("id").Scan(ctx, &ids)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("delete webhooks of key: %w", err)
	}
	return ids, nil
}

// DisableDashboardOwnedBy turns off the enabled dashboard-made webhooks a
// member owns, with reason, and returns their ids.
func (r *Repo) DisableDashboardOwnedBy(ctx context.Context, teamID, ownerID, reason string, now time.Time) ([]string, error) {
	var ids []string
	err := r.db.IDB(ctx).NewUpdate().Model((*Webhook)(nil)).
		Set("enabled = false").Set("disabled_reason = ?", reason).Set("updated_at = ?", now).
		Where("team_id = ? AND owner_id = ? AND source = 'dashboard' AND enabled", teamID, ownerID).
		Returning("id").Scan(ctx, &ids)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("disable webhooks of owner: %w", err)
	}
	return ids, nil
}

// Enable turns a webhook on for owner: the reason is cleared and the
// failure count starts again.
func (r *Repo) Enable(ctx context.Context, teamID, id, ownerID string, now time.Time) (*Webhook, error) {
	w := new(Webhook)
	err := r.db.IDB(ctx).NewUpdate().Model(w).
		Set("enabled = true").Set("disabled_reason = NULL").Set("consecutive_failures = 0").
		Set("owner_id = ?", ownerID).Set("updated_at = ?", now).
		Where("team_id = ? AND id = ?", teamID, id).Returning("*").Scan(ctx)
	if err != nil {
		return nil, notFound(err, "enable webhook")
	}
	return w, nil
}

// InsertEvent stores an event and, unless it is skipped, returns the ids
// of the enabled webhooks it goes to: those of the team subscribed to its
// type, or only e.WebhookID when set (a test event). One round trip.
func (r *Repo) InsertEvent(ctx context.Context, e *Event) ([]string, error) {
	var ids []string
	err := r.db.IDB(ctx).NewRaw(`
WITH ev AS (
    INSERT INTO webhook_events (id, team_id, type, created_at, body, skipped, webhook_id)
    VALUES (?, ?, ?, ?, ?, ?, ?)
    RETURNING skipped
)
SELECT w.id FROM webhooks w, ev
WHERE NOT ev.skipped AND w.team_id = ? AND w.enabled
  AND (CASE WHEN ?::text IS NULL THEN ? = ANY(w.events) ELSE w.id = ? END)
ORDER BY w.created_at, w.id`,
		e.ID, e.TeamID, e.Type, e.CreatedAt, e.Body, e.Skipped, e.WebhookID,
		e.TeamID, e.WebhookID, e.Type, e.WebhookID).Scan(ctx, &ids)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("insert event: %w", err)
	}
	return ids, nil
}

// InsertEvents stores events in one statement.
func (r *Repo) InsertEvents(ctx context.Context, es []Event) error {
	if len(es) == 0 {
		return nil
	}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&es).Exec(ctx); err != nil {
		return fmt.Errorf("insert %d events: %w", len(es), err)
	}
	return nil
}

// Subscriptions maps each event type to the team's enabled webhooks
// subscribed to it, oldest first.
func (r *Repo) Subscriptions(ctx context.Context, teamID string) (map[string][]string, error) {
	var rows []struct {
		ID     string   `bun:"id"`
		Events []string `bun:"events,array"`
	}
	err := r.db.IDB(ctx).NewRaw(`SELECT id, events FROM webhooks WHERE team_id = ? AND enabled ORDER BY created_at, id`, teamID).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	out := map[string][]string{}
	for _, w := range rows {
		for _, t := range w.Events {
			out[t] = append(out[t], w.ID)
		}
	}
	return out, nil
}

// InsertDeliveries stores new deliveries.
func (r *Repo) InsertDeliveries(ctx context.Context, ds []Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&ds).Exec(ctx); err != nil {
		return fmt.Errorf("insert deliveries: %w", err)
	}
	return nil
}

// Work loads a delivery with its webhook and event.
func (r *Repo) Work(ctx context.Context, teamID, deliveryID string) (*Work, error) {
	w := new(Work)
	err := r.db.IDB(ctx).NewRaw(`
SELECT d.id AS delivery_id, d.team_id, d.event_id, d.webhook_id, d.state, d.attempts,
       w.url, w.secret, w.enabled, w.consecutive_failures, e.type AS event_type, e.body::text AS body
FROM webhook_deliveries d
JOIN webhooks w ON w.id = d.webhook_id AND w.team_id = d.team_id
JOIN webhook_events e ON e.id = d.event_id AND e.team_id = d.team_id
WHERE d.team_id = ? AND d.id = ?`, teamID, deliveryID).Scan(ctx, w)
	if err != nil {
		return nil, notFound(err, "select delivery")
	}
	return w, nil
}

// AdvanceDelivery moves a delivery from attempt-1 recorded attempts to
// attempt, with its new state and next attempt time. It reports false when
// the delivery is no longer pending at attempt-1 (another worker recorded
// this attempt, or the delivery ended): the caller then records nothing.
func (r *Repo) AdvanceDelivery(ctx context.Context, teamID, id string, attempt int, state string, next *time.Time, now time.Time) (bool, error) {
	res, err := r.db.IDB(ctx).NewUpdate().Model((*Delivery)(nil)).
		Set("attempts = ?", attempt).Set("state = ?", state).Set("next_attempt_at = ?", next).Set("updated_at = ?", now).
		Where("team_id = ? AND id = ? AND state = 'pending' AND attempts = ?", teamID, id, attempt-1).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("advance delivery: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("advance delivery: %w", err)
	}
	return n == 1, nil
}

// CancelDelivery ends a pending delivery whose webhook is off.
func (r *Repo) CancelDelivery(ctx context.Context, teamID, id string, now time.Time) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model((*Delivery)(nil)).
		Set("state = ?", StateCancelled).Set("next_attempt_at = NULL").Set("updated_at = ?", now).
		Where("team_id = ? AND id = ? AND state = 'pending'", teamID, id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("cancel delivery: %w", err)
	}
	return nil
}

// InsertAttempt records an attempt.
func (r *Repo) InsertAttempt(ctx context.Context, a *Attempt) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(a).Exec(ctx); err != nil {
		return fmt.Errorf("insert attempt: %w", err)
	}
	return nil
}

// RecordSuccess records a successful attempt in one statement (atomic on
// its own, so no transaction is needed): the delivery moves from attempt-1
// to attempt and succeeded, the attempt row is written, and the webhook's
// failure count is cleared when resetFailures. It reports false when the
// delivery was not pending at attempt-1 (already recorded): then nothing
// is written.
func (r *Repo) RecordSuccess(ctx context.Context, a *Attempt, resetFailures bool, now time.Time) (bool, error) {
	var n int
	err := r.db.IDB(ctx).NewRaw(`
WITH adv AS (
    UPDATE webhook_deliveries SET attempts = ?, state = 'succeeded', next_attempt_at = NULL, updated_at = ?
    WHERE team_id = ? AND id = ? AND state = 'pending' AND attempts = ?
    RETURNING id
), att AS (
    INSERT INTO webhook_attempts (team_id, webhook_id, delivery_id, event_id, attempt, attempted_at, duration_us, status_code, error, success, next_attempt_at)
    SELECT ?, ?, id, ?, ?, ?, ?, ?, NULL, true, NULL FROM adv
    RETURNING 1
), rst AS (
    UPDATE webhooks SET consecutive_failures = 0
    WHERE ? AND team_id = ? AND id = ? AND consecutive_failures <> 0 AND EXISTS (SELECT 1 FROM adv)
    RETURNING 1
)
SELECT count(*) FROM att`,
		a.Attempt, now, a.TeamID, a.DeliveryID, a.Attempt-1,
		a.TeamID, a.WebhookID, a.EventID, a.Attempt, a.AttemptedAt, a.DurationUS, a.StatusCode,
		resetFailures, a.TeamID, a.WebhookID).Scan(ctx, &n)
	if err != nil {
		return false, fmt.Errorf("record success: %w", err)
	}
	return n == 1, nil
}

// AddFailure counts a failed attempt and, when the count reaches
// threshold while the webhook is on, turns it off with reason. It returns
// the new count and whether this call turned the webhook off.
func (r *Repo) AddFailure(ctx context.Context, teamID, id string, threshold int, reason string, now time.Time) (count int, disabled bool, err error) {
	var row struct {
		Count    int  `bun:"consecutive_failures"`
		Disabled bool `bun:"disabled"`
	}
	// The CTE reads the row before the update, so "disabled" is true only
	// for the update that switched it off.
	err = r.db.IDB(ctx).NewRaw(`
WITH old AS (SELECT enabled FROM webhooks WHERE team_id = ? AND id = ? FOR UPDATE)
UPDATE webhooks w SET
    consecutive_failures = w.consecutive_failures + 1,
    enabled = w.enabled AND w.consecutive_failures + 1 < ?,
    disabled_reason = CASE WHEN w.enabled AND w.consecutive_failures + 1 >= ? THEN ? ELSE w.disabled_reason END,
    updated_at = CASE WHEN w.enabled AND w.consecutive_failures + 1 >= ? THEN ? ELSE w.updated_at END
FROM old
WHERE w.team_id = ? AND w.id = ?
RETURNING w.consecutive_failures, (old.enabled AND NOT w.enabled) AS disabled`,
		teamID, id, threshold, threshold, reason, threshold, now, teamID, id).Scan(ctx, &row)
	if err != nil {
		return 0, false, notFound(err, "count webhook failure")
	}
	return row.Count, row.Disabled, nil
}

// Attempts lists a webhook's attempts, newest first, limit+1 rows.
func (r *Repo) Attempts(ctx context.Context, teamID, webhookID string, limit, offset int) ([]Attempt, error) {
	var as []Attempt
	err := r.db.IDB(ctx).NewSelect().Model(&as).Where("team_id = ? AND webhook_id = ?", teamID, webhookID).
		OrderExpr("attempted_at DESC, id DESC").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list attempts: %w", err)
	}
	return as, nil
}

// InsertNotification records an e-mail.
func (r *Repo) InsertNotification(ctx context.Context, n *Notification) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(n).Exec(ctx); err != nil {
		return fmt.Errorf("insert notification: %w", err)
	}
	return nil
}

// Notification loads one of a team's notifications.
func (r *Repo) Notification(ctx context.Context, teamID, id string) (*Notification, error) {
	n := new(Notification)
	if err := r.db.IDB(ctx).NewSelect().Model(n).Where("team_id = ? AND id = ?", teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select notification")
	}
	return n, nil
}

// MarkNotification sets a notification's status (sent or failed).
func (r *Repo) MarkNotification(ctx context.Context, teamID, id, status string, errMsg *string, sentAt *time.Time) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model((*Notification)(nil)).
		Set("status = ?", status).Set("error = ?", errMsg).Set("sent_at = ?", sentAt).
		Where("team_id = ? AND id = ?", teamID, id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("mark notification: %w", err)
	}
	return nil
}

// Notifications lists a team's e-mails, newest first, limit+1 rows.
func (r *Repo) Notifications(ctx context.Context, teamID string, limit, offset int) ([]Notification, error) {
	var ns []Notification
	err := r.db.IDB(ctx).NewSelect().Model(&ns).Where("team_id = ?", teamID).
		OrderExpr("created_at DESC, id DESC").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	return ns, nil
}
