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

	"github.com/jackc/pgx/v5"
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
	bun.BaseModel `bun:"table:webhooks"`
	ID            string   `bun:"id,pk"`
	TeamID        string   `bun:"team_id"`
	URL           string   `bun:"url"`
	Events        []string `bun:"events,array"`
	Secret        string   `bun:"secret"`
	// PreviousSecret is the secret the last rotation replaced; it signs
	// deliveries beside Secret until PreviousSecretUntil.
	PreviousSecret      *string    `bun:"previous_secret"`
	PreviousSecretUntil *time.Time `bun:"previous_secret_until"`
	Source              string     `bun:"source"`
	CreatedBy           string     `bun:"created_by"`
	OwnerID             string     `bun:"owner_id"`
	KeyID               *string    `bun:"key_id"`
	Enabled             bool       `bun:"enabled"`
	DisabledReason      *string    `bun:"disabled_reason"`
	ConsecutiveFailures int        `bun:"consecutive_failures"`
	// MaxPerSecond is the webhook's throttle; nil: no limit.
	MaxPerSecond *int      `bun:"max_per_second"`
	CreatedAt    time.Time `bun:"created_at"`
	UpdatedAt    time.Time `bun:"updated_at"`
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
	// RoundFrom is Attempts when the current round began (a retry or a
	// recovery starts a new one); Queued: waiting in the webhook's queue.
	RoundFrom int  `bun:"round_from"`
	Queued    bool `bun:"queued"`
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
	DeliveryID    string
	TeamID        string
	EventID       string
	WebhookID     string
	State         string
	Attempts      int
	WebhookExists bool // false: the webhook was deleted (URL, Secret and Enabled are zero)
	URL           string
	Secret        string
	// PreviousSecret ("" none) signs too until PreviousUntil (a rotation's overlap).
	PreviousSecret string
	PreviousUntil  *time.Time
	Enabled        bool
	EventType      string
	Body           string
	// RoundFrom is the attempts the delivery had when its round began;
	// Queued: it waits in the webhook's queue; MaxPerSecond: the throttle.
	RoundFrom    int
	Queued       bool
	MaxPerSecond *int
}

// Repo is the module's repository.
type Repo struct {
	db        *db.DB
	works     *batcher[workKey, *Work]
	successes *batcher[*success, bool]
}

// NewRepo returns a repository over d.
func NewRepo(d *db.DB) *Repo {
	r := &Repo{db: d}
	r.works = newBatcher(r.workBatch)
	r.successes = newBatcher(r.successBatch)
	return r
}

// The delivery path's statements (publishing, reading and recording an
// attempt) are written with $n placeholders and sent with their arguments
// apart, not formatted into the text as bun does: their text is then the
// same on every run, so the driver prepares each once per connection and
// every later run is a single round trip (a statement whose text changes
// is prepared anew each time: one more round trip, and evictions from the
// driver's statement cache).

// row is a single-row result (*sql.Row or pgx.Row).
type row interface{ Scan(dest ...any) error }

// queryRow runs a $n statement in the transaction carried by ctx, or on
// the pool outside one.
func (r *Repo) queryRow(ctx context.Context, query string, args ...any) row {
	if tx, ok := db.TxFrom(ctx); ok {
		return tx.Tx.QueryRowContext(ctx, query, args...)
	}
	return r.db.Pool.QueryRow(ctx, query, args...)
}

// rowSet is a multi-row result of query.
type rowSet struct {
	sql *sql.Rows
	pgx pgx.Rows
}

// query runs a $n statement in the transaction carried by ctx, or on the
// pool outside one.
func (r *Repo) query(ctx context.Context, query string, args ...any) (rowSet, error) {
	if tx, ok := db.TxFrom(ctx); ok {
		rows, err := tx.Tx.QueryContext(ctx, query, args...)
		return rowSet{sql: rows}, err
	}
	rows, err := r.db.Pool.Query(ctx, query, args...)
	return rowSet{pgx: rows}, err
}

// each calls fn with a scanner for every row, then closes the rows.
func (rs rowSet) each(fn func(scan func(dest ...any) error) error) error {
	if rs.pgx != nil {
		defer rs.pgx.Close()
		for rs.pgx.Next() {
			if err := fn(rs.pgx.Scan); err != nil {
				return err
			}
		}
		return rs.pgx.Err()
	}
	defer rs.sql.Close()
	for rs.sql.Next() {
		if err := fn(rs.sql.Scan); err != nil {
			return err
		}
	}
	if err := rs.sql.Err(); err != nil {
		return err
	}
	return rs.sql.Close()
}

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

// DeleteWebhook deletes one of a team's webhooks with its deliveries (and
// so their attempts), and returns it.
func (r *Repo) DeleteWebhook(ctx context.Context, teamID, id string) (*Webhook, error) {
	w := new(Webhook)
	err := r.db.IDB(ctx).NewRaw(`
WITH w AS (DELETE FROM webhooks WHERE team_id = ? AND id = ? RETURNING *),
d AS (DELETE FROM webhook_deliveries WHERE team_id = ? AND webhook_id IN (SELECT id FROM w))
SELECT * FROM w`, teamID, id, teamID).Scan(ctx, w)
	if err != nil {
		return nil, notFound(err, "delete webhook")
	}
	return w, nil
}

// DeleteByKey deletes the webhooks a team made with an API key, with their
// deliveries, and returns their ids.
func (r *Repo) DeleteByKey(ctx context.Context, teamID, keyID string) ([]string, error) {
	var ids []string
	err := r.db.IDB(ctx).NewRaw(`
WITH w AS (DELETE FROM webhooks WHERE team_id = ? AND key_id = ? RETURNING id),
d AS (DELETE FROM webhook_deliveries WHERE team_id = ? AND webhook_id IN (SELECT id FROM w))
SELECT id FROM w`, teamID, keyID, teamID).Scan(ctx, &ids)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("delete webhooks of key: %w", err)
	}
	return ids, nil
}

// DeleteDelivery deletes a delivery whose webhook is gone (stored by a
// publisher while the webhook was being deleted), with its attempts.
func (r *Repo) DeleteDelivery(ctx context.Context, teamID, id string) error {
	_, err := r.db.IDB(ctx).NewDelete().Model((*Delivery)(nil)).Where("team_id = ? AND id = ?", teamID, id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("delete delivery: %w", err)
	}
	return nil
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

// RotateSecret makes secret the webhook's signing secret; the one it
// replaces keeps signing beside it until until.
func (r *Repo) RotateSecret(ctx context.Context, teamID, id, secret string, until, now time.Time) (*Webhook, error) {
	w := new(Webhook)
	err := r.db.IDB(ctx).NewUpdate().Model(w).
		Set("previous_secret = secret").Set("previous_secret_until = ?", until).Set("secret = ?", secret).
		Set("updated_at = ?", now).
		Where("team_id = ? AND id = ?", teamID, id).Returning("*").Scan(ctx)
	if err != nil {
		return nil, notFound(err, "rotate webhook secret")
	}
	return w, nil
}

// Target is an enabled webhook an event goes to, with the delivery made
// for it; DeliveryID is "" when the statement ran out of the ids it was
// given (the caller then stores that delivery itself).
type Target struct {
	WebhookID  string
	DeliveryID string
}

// InsertEvent stores an event and, unless it is skipped, one pending
// delivery per enabled webhook it goes to: those of the team subscribed to
// its type, oldest first, or only e.WebhookID when set (a test event).
// Deliveries take their ids from ids, in order; targets beyond len(ids) are
// returned without a delivery. One round trip.
func (r *Repo) InsertEvent(ctx context.Context, e *Event, ids []string) ([]Target, error) {
	rows, err := r.query(ctx, `
WITH ev AS (
    INSERT INTO webhook_events (id, team_id, type, created_at, body, skipped, webhook_id)
    VALUES ($1::text, $2::text, $3::text, $4::timestamptz, $5::json, $6::boolean, $7::text)
    RETURNING id
), target AS (
    SELECT w.id, row_number() OVER (ORDER BY w.created_at, w.id) AS n
    FROM webhooks w
    WHERE NOT $6::boolean AND w.team_id = $2::text AND w.enabled
      AND CASE WHEN $7::text IS NULL THEN $3::text = ANY (w.events) ELSE w.id = $7::text END
), dlv AS (
    INSERT INTO webhook_deliveries (id, team_id, event_id, webhook_id, state, attempts, next_attempt_at, created_at, updated_at)
    SELECT ($8::text[])[t.n], $2::text, ev.id, t.id, 'pending', 0, $4::timestamptz, $4::timestamptz, $4::timestamptz
    FROM target t, ev
    WHERE t.n <= cardinality($8::text[])
    RETURNING id, webhook_id
)
SELECT t.id, coalesce(d.id, '') FROM target t LEFT JOIN dlv d ON d.webhook_id = t.id ORDER BY t.n`,
		e.ID, e.TeamID, e.Type, e.CreatedAt, e.Body, e.Skipped, e.WebhookID, ids)
	if err != nil {
		return nil, fmt.Errorf("insert event: %w", err)
	}
	var out []Target
	err = rows.each(func(scan func(...any) error) error {
		var t Target
		if err := scan(&t.WebhookID, &t.DeliveryID); err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("insert event: %w", err)
	}
	return out, nil
}

// InsertEvents stores events in one statement.
func (r *Repo) InsertEvents(ctx context.Context, es []Event) error {
	if len(es) == 0 {
		return nil
	}
	if len(es) >= copyEventsFrom {
		return copyEvents(ctx, es)
	}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&es).Exec(ctx); err != nil {
		return fmt.Errorf("insert %d events: %w", len(es), err)
	}
	return nil
}

// copyEventsFrom is the batch size from which events are written with COPY:
// a roster import publishes member.joined 2,000 at a time, where one
// multi-row INSERT with every body inlined cost twice the members' own
// COPY. COPY's extra round trip (pgx reads the columns' types first) is not
// worth it for a few events.
const copyEventsFrom = 64

// copyEvents writes es with COPY on the caller's transaction.
func copyEvents(ctx context.Context, es []Event) error {
	err := db.PgxTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"webhook_events"},
			[]string{"id", "team_id", "type", "created_at", "body", "skipped", "webhook_id"},
			pgx.CopyFromSlice(len(es), func(i int) ([]any, error) {
				e := &es[i]
				return []any{e.ID, e.TeamID, e.Type, e.CreatedAt, e.Body, e.Skipped, e.WebhookID}, nil
			}))
		return err
	})
	if err != nil {
		return fmt.Errorf("copy %d events: %w", len(es), err)
	}
	return nil
}

// Subscriptions maps each event type to the team's enabled webhooks
// subscribed to it, oldest first.
func (r *Repo) Subscriptions(ctx context.Context, teamID string) (map[string][]string, error) {
	rows, err := r.query(ctx, `SELECT id, unnest(events) FROM webhooks WHERE team_id = $1::text AND enabled ORDER BY created_at, id`, teamID)
	if err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	out := map[string][]string{}
	err = rows.each(func(scan func(...any) error) error {
		var id, typ string
		if err := scan(&id, &typ); err != nil {
			return err
		}
		out[typ] = append(out[typ], id)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	return out, nil
}

// SubscriptionsOf is Subscriptions for several teams in one statement:
// team → event type → the ids of its enabled webhooks that subscribe to it.
func (r *Repo) SubscriptionsOf(ctx context.Context, teamIDs []string) (map[string]map[string][]string, error) {
	out := map[string]map[string][]string{}
	if len(teamIDs) == 0 {
		return out, nil
	}
	rows, err := r.query(ctx, `SELECT team_id, id, unnest(events) FROM webhooks WHERE team_id = ANY($1::text[]) AND enabled
		ORDER BY team_id, created_at, id`, teamIDs)
	if err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	err = rows.each(func(scan func(...any) error) error {
		var team, id, typ string
		if err := scan(&team, &id, &typ); err != nil {
			return err
		}
		if out[team] == nil {
			out[team] = map[string][]string{}
		}
		out[team][typ] = append(out[team][typ], id)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
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

// workColumns are what Work reads, from d (delivery), w (webhook, left
// joined) and e (event); scanWork scans them.
const workColumns = `d.id, d.team_id, d.event_id, d.webhook_id, d.state, d.attempts,
       w.id IS NOT NULL, coalesce(w.url, ''), coalesce(w.secret, ''), coalesce(w.previous_secret, ''), w.previous_secret_until,
       coalesce(w.enabled, false), e.type, e.body::text, d.round_from, d.queued, w.max_per_second`

func scanWork(scan func(dest ...any) error) (*Work, error) {
	w := new(Work)
	err := scan(&w.DeliveryID, &w.TeamID, &w.EventID, &w.WebhookID, &w.State, &w.Attempts,
		&w.WebhookExists, &w.URL, &w.Secret, &w.PreviousSecret, &w.PreviousUntil, &w.Enabled, &w.EventType, &w.Body,
		&w.RoundFrom, &w.Queued, &w.MaxPerSecond)
	return w, err
}

// Work loads a delivery with its webhook and event. A delivery whose
// webhook is gone comes back with WebhookExists false. Outside a
// transaction, concurrent calls are read together (one statement a batch).
func (r *Repo) Work(ctx context.Context, teamID, deliveryID string) (*Work, error) {
	if _, ok := db.TxFrom(ctx); !ok {
		w, err := r.works.do(ctx, workKey{teamID: teamID, deliveryID: deliveryID})
		if err != nil {
			return nil, fmt.Errorf("select delivery: %w", err)
		}
		if w == nil {
			return nil, ErrNotFound
		}
		return w, nil
	}
	w, err := scanWork(r.queryRow(ctx, `
SELECT `+workColumns+`
FROM webhook_deliveries d
LEFT JOIN webhooks w ON w.id = d.webhook_id AND w.team_id = d.team_id
JOIN webhook_events e ON e.id = d.event_id AND e.team_id = d.team_id
WHERE d.team_id = $1::text AND d.id = $2::text`, teamID, deliveryID).Scan)
	if err != nil {
		return nil, notFound(err, "select delivery")
	}
	return w, nil
}

// workKey names a delivery Work reads.
type workKey struct{ teamID, deliveryID string }

// workBatch reads deliveries with their webhooks and events in one
// statement; a delivery not found (for its team) gives nil.
func (r *Repo) workBatch(ctx context.Context, keys []workKey) ([]*Work, error) {
	n := padded(len(keys))
	teams, ids := make([]*string, n), make([]*string, n)
	for i, k := range keys {
		teams[i], ids[i] = &k.teamID, &k.deliveryID
	}
	// LIMIT 1 keeps the lateral subquery a lookup per key (the planner
	// would otherwise join the whole tables when it guesses the key list
	// long, as it does for the plan it caches).
	rows, err := r.query(ctx, `
SELECT x.* FROM unnest($1::text[], $2::text[]) AS i (team_id, id)
CROSS JOIN LATERAL (
    SELECT `+workColumns+`
    FROM webhook_deliveries d
    LEFT JOIN webhooks w ON w.id = d.webhook_id AND w.team_id = d.team_id
    JOIN webhook_events e ON e.id = d.event_id AND e.team_id = d.team_id
    WHERE d.team_id = i.team_id AND d.id = i.id
    LIMIT 1
) x`, teams, ids)
	if err != nil {
		return nil, err
	}
	found := make(map[workKey]*Work, len(keys))
	err = rows.each(func(scan func(dest ...any) error) error {
		w, err := scanWork(scan)
		if err != nil {
			return err
		}
		found[workKey{teamID: w.TeamID, deliveryID: w.DeliveryID}] = w
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*Work, len(keys))
	for i, k := range keys {
		if w := found[k]; w != nil {
			c := *w // callers may hold the same delivery twice
			out[i] = &c
		}
	}
	return out, nil
}

// CancelDelivery ends a pending delivery whose webhook is off.
func (r *Repo) CancelDelivery(ctx context.Context, teamID, id string, now time.Time) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model((*Delivery)(nil)).
		Set("state = ?", StateCancelled).Set("next_attempt_at = NULL").Set("queued = false").Set("updated_at = ?", now).
		Where("team_id = ? AND id = ? AND state = 'pending'", teamID, id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("cancel delivery: %w", err)
	}
	return nil
}

// RecordSuccess records a successful attempt, atomically without a
// transaction: the delivery moves from attempt-1 to attempt and succeeded,
// the attempt row is written, and the webhook's failure count is cleared
// if it is not 0 (a webhook whose count is 0 is only read, so successes do
// not contend for its row). It reports false when the delivery was not
// pending at attempt-1 (already recorded): then nothing is written.
// Concurrent calls are recorded together, one statement a batch.
func (r *Repo) RecordSuccess(ctx context.Context, a *Attempt, now time.Time) (bool, error) {
	ok, err := r.successes.do(ctx, &success{a: a, now: now})
	if err != nil {
		return false, fmt.Errorf("record success: %w", err)
	}
	return ok, nil
}

// success is one RecordSuccess call.
type success struct {
	a   *Attempt
	now time.Time
}

// successBatch records successful attempts in one statement per round: a
// delivery named twice in a batch (a duplicated job) goes to a later round,
// so that each is judged against the state the other left, as one at a
// time would be.
func (r *Repo) successBatch(ctx context.Context, in []*success) ([]bool, error) {
	out := make([]bool, len(in))
	rest := make([]int, len(in))
	for i := range in {
		rest[i] = i
	}
	for len(rest) > 0 {
		var round, later []int
		seen := make(map[string]bool, len(rest))
		for _, i := range rest {
			if id := in[i].a.DeliveryID; seen[id] {
				later = append(later, i)
			} else {
				seen[id] = true
				round = append(round, i)
			}
		}
		recorded, err := r.recordSuccesses(ctx, in, round)
		if err != nil {
			return nil, err
		}
		for _, i := range round {
			out[i] = recorded[in[i].a.DeliveryID]
		}
		rest = later
	}
	return out, nil
}

// recordSuccesses runs the success statement for in[idx...] (distinct
// deliveries) and returns the ids of the deliveries it recorded.
func (r *Repo) recordSuccesses(ctx context.Context, in []*success, idx []int) (map[string]bool, error) {
	n := padded(len(idx))
	var (
		teams, hooks, dlvs, evs = make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
		attempts, codes         = make([]*int32, n), make([]*int32, n)
		nows, ats               = make([]*time.Time, n), make([]*time.Time, n)
		durs                    = make([]*int64, n)
	)
	for j, i := range idx {
		a, s := in[i].a, in[i]
		teams[j], hooks[j], dlvs[j], evs[j] = &a.TeamID, &a.WebhookID, &a.DeliveryID, &a.EventID
		att := int32(a.Attempt)
		attempts[j], nows[j], ats[j], durs[j] = &att, &s.now, &a.AttemptedAt, &a.DurationUS
		if a.StatusCode != nil {
			c := int32(*a.StatusCode)
			codes[j] = &c
		}
	}
	rows, err := r.query(ctx, `
WITH i AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::timestamptz[], $7::timestamptz[], $8::bigint[], $9::integer[])
        AS i (team_id, webhook_id, delivery_id, event_id, attempt, now, attempted_at, duration_us, status_code)
), adv AS (
    UPDATE webhook_deliveries d SET attempts = i.attempt, state = 'succeeded', next_attempt_at = NULL, updated_at = i.now,
        queued = false
    FROM i
    WHERE d.team_id = i.team_id AND d.id = i.delivery_id AND d.state = 'pending' AND d.attempts = i.attempt - 1
    RETURNING d.id
), att AS (
    INSERT INTO webhook_attempts (team_id, webhook_id, delivery_id, event_id, attempt, attempted_at, duration_us, status_code, error, success, next_attempt_at)
    SELECT i.team_id, i.webhook_id, i.delivery_id, i.event_id, i.attempt, i.attempted_at, i.duration_us, i.status_code, NULL, true, NULL
    FROM i JOIN adv ON adv.id = i.delivery_id
    RETURNING delivery_id
), rst AS (
    UPDATE webhooks w SET consecutive_failures = 0
    FROM (SELECT DISTINCT i.team_id, i.webhook_id FROM i JOIN adv ON adv.id = i.delivery_id) s
    WHERE w.team_id = s.team_id AND w.id = s.webhook_id AND w.consecutive_failures <> 0
)
SELECT delivery_id FROM att`, teams, hooks, dlvs, evs, attempts, nows, ats, durs, codes)
	if err != nil {
		return nil, err
	}
	recorded := make(map[string]bool, len(idx))
	err = rows.each(func(scan func(dest ...any) error) error {
		var id string
		if err := scan(&id); err != nil {
			return err
		}
		recorded[id] = true
		return nil
	})
	return recorded, err
}

// Failure is what RecordFailure did.
type Failure struct {
	Recorded      bool       // false: the delivery was not pending at attempt-1 (nothing written)
	NextAttemptAt *time.Time // when the next attempt is due; nil when the delivery ended
	Failures      int        // the webhook's consecutive failures, this one included
	Disabled      bool       // this failure turned the webhook off
}

// RecordFailure records a failed attempt in one statement, in the
// caller's transaction: the delivery moves from attempt-1 to attempt,
// pending until next (or abandoned when next is nil); the webhook's
// consecutive failures grow, and reaching threshold while it is on turns
// it off with reason, which ends the delivery (cancelled) instead of
// retrying it; the attempt row is written with the next attempt's time.
// When the delivery was not pending at attempt-1 nothing is written.
func (r *Repo) RecordFailure(ctx context.Context, a *Attempt, next *time.Time, threshold int, reason string, now time.Time) (Failure, error) {
	// cur and old lock the delivery and the webhook as they are read, so
	// that "disabled" is true only for the failure that turned it off.
	var f Failure
	var nextAt sql.NullTime
	err := r.queryRow(ctx, `
WITH cur AS (
    SELECT id FROM webhook_deliveries
    WHERE team_id = $1::text AND id = $3::text AND state = 'pending' AND attempts = $5::integer - 1
    FOR UPDATE
), old AS (
    SELECT enabled FROM webhooks
    WHERE team_id = $1::text AND id = $2::text AND EXISTS (SELECT 1 FROM cur)
    FOR UPDATE
), fail AS (
    UPDATE webhooks w SET
        consecutive_failures = w.consecutive_failures + 1,
        enabled = w.enabled AND w.consecutive_failures + 1 < $12::integer,
        disabled_reason = CASE WHEN w.enabled AND w.consecutive_failures + 1 >= $12::integer THEN $13::text ELSE w.disabled_reason END,
        updated_at = CASE WHEN w.enabled AND w.consecutive_failures + 1 >= $12::integer THEN $6::timestamptz ELSE w.updated_at END
    FROM old
    WHERE w.team_id = $1::text AND w.id = $2::text
    RETURNING w.consecutive_failures, old.enabled AND NOT w.enabled AS disabled
), adv AS (
    UPDATE webhook_deliveries d SET
        attempts = $5::integer,
        state = CASE WHEN $11::timestamptz IS NULL THEN 'abandoned'
                     WHEN coalesce((SELECT disabled FROM fail), false) THEN 'cancelled'
                     ELSE 'pending' END,
        next_attempt_at = CASE WHEN coalesce((SELECT disabled FROM fail), false) THEN NULL ELSE $11::timestamptz END,
        updated_at = $6::timestamptz,
        queued = false
    FROM cur
    WHERE d.id = cur.id
    RETURNING d.next_attempt_at
), att AS (
    INSERT INTO webhook_attempts (team_id, webhook_id, delivery_id, event_id, attempt, attempted_at, duration_us, status_code, error, success, next_attempt_at)
    SELECT $1::text, $2::text, $3::text, $4::text, $5::integer, $7::timestamptz, $8::bigint, $9::integer, $10::text, false, adv.next_attempt_at
    FROM adv
)
SELECT adv.next_attempt_at, coalesce(fail.consecutive_failures, 0), coalesce(fail.disabled, false)
FROM adv LEFT JOIN fail ON true`,
		a.TeamID, a.WebhookID, a.DeliveryID, a.EventID, a.Attempt, now, a.AttemptedAt, a.DurationUS, a.StatusCode, a.Error,
		next, threshold, reason).Scan(&nextAt, &f.Failures, &f.Disabled)
	if errors.Is(err, sql.ErrNoRows) {
		return Failure{}, nil
	}
	if err != nil {
		return Failure{}, fmt.Errorf("record failure: %w", err)
	}
	f.Recorded = true
	if nextAt.Valid {
		t := nextAt.Time
		f.NextAttemptAt = &t
	}
	return f, nil
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
