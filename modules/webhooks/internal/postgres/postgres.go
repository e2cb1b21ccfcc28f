// Package postgres stores the webhooks module's subscriptions, event log,
// deliveries, attempts and e-mail notices through bun, and embeds the
// module's migrations. Every query that takes an id also takes the team id.
// Its rows are unexported (rows.go maps them): callers see the domain's
// types. Where a statement encodes a domain rule in SQL for speed, its
// constants come from the domain and rules_test.go holds it to the rule.
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

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

// The delivery states and the dashboard source as SQL literals, from the domain's constants (the
// statements stay constant text, prepared once per connection).
const (
	sqlPending   = "'" + domain.StatePending + "'"
	sqlSucceeded = "'" + domain.StateSucceeded + "'"
	sqlAbandoned = "'" + domain.StateAbandoned + "'"
	sqlCancelled = "'" + domain.StateCancelled + "'"
	sqlDashboard = "'" + domain.SourceDashboard + "'"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the webhooks module's schema history.
func Migrations() db.MigrationSet { return db.Embedded("webhooks", 50, migrationFiles, "migrations") }

// webhookRow is a webhooks row.
type webhookRow struct {
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

// eventRow is a webhook_events row.
type eventRow struct {
	bun.BaseModel `bun:"table:webhook_events"`
	ID            string    `bun:"id,pk"`
	TeamID        string    `bun:"team_id"`
	Type          string    `bun:"type"`
	CreatedAt     time.Time `bun:"created_at"`
	Body          string    `bun:"body"`
	Skipped       bool      `bun:"skipped"`
	WebhookID     *string   `bun:"webhook_id"`
}

// deliveryRow is a webhook_deliveries row.
type deliveryRow struct {
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

// attemptRow is a webhook_attempts row.
type attemptRow struct {
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

// notificationRow is a webhook_notifications row.
type notificationRow struct {
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

// Repo is the module's repository. The delivery path's set-based
// statements (Works, RecordSuccesses) take many calls' worth at once; the
// batch package gathers concurrent calls into them.
type Repo struct {
	db *db.DB
}

// NewRepo returns a repository over d.
func NewRepo(d *db.DB) *Repo { return &Repo{db: d} }

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

func notFound(err error, what string) error { return db.NotFound(err, domain.ErrNotFound, what) }

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
	n, err := r.db.IDB(ctx).NewSelect().Model((*webhookRow)(nil)).Where("team_id = ?", teamID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count webhooks: %w", err)
	}
	return int(n), nil
}

// InsertWebhook stores a new webhook.
func (r *Repo) InsertWebhook(ctx context.Context, w *domain.Webhook) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(fromWebhook(w)).Exec(ctx); err != nil {
		return fmt.Errorf("insert webhook: %w", err)
	}
	return nil
}

// Webhooks lists a team's webhooks, oldest first, limit+1 rows for pagination.
func (r *Repo) Webhooks(ctx context.Context, teamID string, limit, offset int) ([]domain.Webhook, error) {
	var ws []webhookRow
	err := r.db.IDB(ctx).NewSelect().Model(&ws).Where("team_id = ?", teamID).
		OrderExpr("created_at, id").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	return toWebhooks(ws), nil
}

// Webhook loads one of a team's webhooks.
func (r *Repo) Webhook(ctx context.Context, teamID, id string) (*domain.Webhook, error) {
	w := new(webhookRow)
	if err := r.selectWebhook(ctx, w, teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select webhook")
	}
	return toWebhook(w), nil
}

// LockWebhook is Webhook with the row locked (SELECT ... FOR UPDATE) for
// the rest of the caller's transaction.
func (r *Repo) LockWebhook(ctx context.Context, teamID, id string) (*domain.Webhook, error) {
	w := new(webhookRow)
	if err := r.selectWebhook(ctx, w, teamID, id).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, "select webhook")
	}
	return toWebhook(w), nil
}

// selectWebhook is the statement that reads one of a team's webhooks into w.
func (r *Repo) selectWebhook(ctx context.Context, w *webhookRow, teamID, id string) *bun.SelectQuery {
	return r.db.IDB(ctx).NewSelect().Model(w).Where("team_id = ? AND id = ?", teamID, id)
}

// DeleteWebhook deletes one of a team's webhooks with its deliveries (and
// so their attempts), and returns it.
func (r *Repo) DeleteWebhook(ctx context.Context, teamID, id string) (*domain.Webhook, error) {
	w := new(webhookRow)
	err := r.db.IDB(ctx).NewRaw(`
WITH w AS (DELETE FROM webhooks WHERE team_id = ? AND id = ? RETURNING *),
d AS (DELETE FROM webhook_deliveries WHERE team_id = ? AND webhook_id IN (SELECT id FROM w))
SELECT * FROM w`, teamID, id, teamID).Scan(ctx, w)
	if err != nil {
		return nil, notFound(err, "delete webhook")
	}
	return toWebhook(w), nil
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
	_, err := r.db.IDB(ctx).NewDelete().Model((*deliveryRow)(nil)).Where("team_id = ? AND id = ?", teamID, id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("delete delivery: %w", err)
	}
	return nil
}

// DisableDashboardOwnedBy turns off the enabled dashboard-made webhooks a
// member owns, with reason, and returns their ids: domain.Webhook.Disable
// over them, set-based (rules_test.go).
func (r *Repo) DisableDashboardOwnedBy(ctx context.Context, teamID, ownerID, reason string, now time.Time) ([]string, error) {
	var ids []string
	err := r.db.IDB(ctx).NewUpdate().Model((*webhookRow)(nil)).
		Set("enabled = false").Set("disabled_reason = ?", reason).Set("updated_at = ?", now).
		Where("team_id = ? AND owner_id = ? AND source = "+sqlDashboard+" AND enabled", teamID, ownerID).
		Returning("id").Scan(ctx, &ids)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("disable webhooks of owner: %w", err)
	}
	return ids, nil
}

// UpdateWebhook loads one of a team's webhooks locked, lets change alter
// it, and stores what change left (everything but its id, team, source,
// creator and creation time). When change fails nothing is written. It
// joins the transaction carried by ctx (and needs one).
func (r *Repo) UpdateWebhook(ctx context.Context, teamID, id string, change func(*domain.Webhook) error) (*domain.Webhook, error) {
	if _, err := db.MustTx(ctx); err != nil {
		return nil, fmt.Errorf("update webhook: %w", err)
	}
	w, err := r.LockWebhook(ctx, teamID, id)
	if err != nil {
		return nil, err
	}
	if err := change(w); err != nil {
		return nil, err
	}
	row := fromWebhook(w)
	err = r.db.IDB(ctx).NewUpdate().Model(row).
		Column("url", "events", "secret", "previous_secret", "previous_secret_until", "owner_id", "key_id", "enabled",
			"disabled_reason", "consecutive_failures", "max_per_second", "updated_at").
		Where("team_id = ? AND id = ?", teamID, id).Returning("*").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("update webhook: %w", err)
	}
	return toWebhook(row), nil
}

// InsertEvent stores an event and, unless it is skipped, one pending
// delivery per enabled webhook it goes to: those of the team subscribed to
// its type, oldest first, or only e.WebhookID when set (a test event).
// Deliveries take their ids from ids, in order; targets beyond len(ids) are
// returned without a delivery. One round trip. The targets are those
// domain.Webhook.Takes (rules_test.go holds the two together).
func (r *Repo) InsertEvent(ctx context.Context, e *domain.Event, ids []string) ([]domain.Target, error) {
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
    SELECT ($8::text[])[t.n], $2::text, ev.id, t.id, `+sqlPending+`, 0, $4::timestamptz, $4::timestamptz, $4::timestamptz
    FROM target t, ev
    WHERE t.n <= cardinality($8::text[])
    RETURNING id, webhook_id
)
SELECT t.id, coalesce(d.id, '') FROM target t LEFT JOIN dlv d ON d.webhook_id = t.id ORDER BY t.n`,
		e.ID, e.TeamID, e.Type, e.CreatedAt, e.Body, e.Skipped, e.WebhookID, ids)
	if err != nil {
		return nil, fmt.Errorf("insert event: %w", err)
	}
	var out []domain.Target
	err = rows.each(func(scan func(...any) error) error {
		var t domain.Target
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
func (r *Repo) InsertEvents(ctx context.Context, es []domain.Event) error {
	if len(es) == 0 {
		return nil
	}
	if len(es) >= copyEventsFrom {
		return copyEvents(ctx, es)
	}
	rows := make([]eventRow, len(es))
	for i := range es {
		rows[i] = fromEvent(&es[i])
	}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&rows).Exec(ctx); err != nil {
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

// eventCopyColumns are copyEvents' columns, in the order it fills a row.
var eventCopyColumns = []string{"id", "team_id", "type", "created_at", "body", "skipped", "webhook_id"}

// copyEvents writes es with COPY on the caller's transaction, filling one
// row buffer (db.CopyRows).
func copyEvents(ctx context.Context, es []domain.Event) error {
	err := db.PgxTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"webhook_events"}, eventCopyColumns,
			db.CopyRows(len(es), len(eventCopyColumns), func(row []any, i int) {
				e := &es[i]
				row[0], row[1], row[2], row[3], row[4], row[5], row[6] = e.ID, e.TeamID, e.Type, e.CreatedAt, e.Body, e.Skipped, e.WebhookID
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
// team → event type → the ids of its enabled webhooks that subscribe to it
// (those domain.Webhook.Takes an event of that type; rules_test.go).
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
func (r *Repo) InsertDeliveries(ctx context.Context, ds []domain.Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	rows := make([]deliveryRow, len(ds))
	for i := range ds {
		rows[i] = fromDelivery(&ds[i])
	}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&rows).Exec(ctx); err != nil {
		return fmt.Errorf("insert deliveries: %w", err)
	}
	return nil
}

// workColumns are what Work reads, from d (delivery), w (webhook, left
// joined) and e (event); scanWork scans them.
const workColumns = `d.id, d.team_id, d.event_id, d.webhook_id, d.state, d.attempts,
       w.id IS NOT NULL, coalesce(w.url, ''), coalesce(w.secret, ''), coalesce(w.previous_secret, ''), w.previous_secret_until,
       coalesce(w.enabled, false), e.type, e.body::text, d.round_from, d.queued, w.max_per_second`

func scanWork(scan func(dest ...any) error) (*domain.Work, error) {
	w := new(domain.Work)
	err := scan(&w.DeliveryID, &w.TeamID, &w.EventID, &w.WebhookID, &w.State, &w.Attempts,
		&w.WebhookExists, &w.URL, &w.Secret, &w.PreviousSecret, &w.PreviousUntil, &w.Enabled, &w.EventType, &w.Body,
		&w.RoundFrom, &w.Queued, &w.MaxPerSecond)
	return w, err
}

// Work loads a delivery with its webhook and event, in the transaction
// carried by ctx (or on the pool). A delivery whose webhook is gone comes
// back with WebhookExists false.
func (r *Repo) Work(ctx context.Context, teamID, deliveryID string) (*domain.Work, error) {
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

// workKey names a delivery Works reads.
type workKey struct{ teamID, deliveryID string }

// Works is Work for many deliveries (teamIDs[i], deliveryIDs[i]) in one
// statement; a delivery not found (for its team) gives nil.
func (r *Repo) Works(ctx context.Context, teamIDs, deliveryIDs []string) ([]*domain.Work, error) {
	n := padded(len(teamIDs))
	teams, ids := make([]*string, n), make([]*string, n)
	for i := range teamIDs {
		teams[i], ids[i] = &teamIDs[i], &deliveryIDs[i]
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
	found := make(map[workKey]*domain.Work, len(teamIDs))
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
	out := make([]*domain.Work, len(teamIDs))
	for i := range teamIDs {
		if w := found[workKey{teamID: teamIDs[i], deliveryID: deliveryIDs[i]}]; w != nil {
			c := *w // callers may hold the same delivery twice
			out[i] = &c
		}
	}
	return out, nil
}

// CancelDelivery ends a pending delivery whose webhook is off.
func (r *Repo) CancelDelivery(ctx context.Context, teamID, id string, now time.Time) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model((*deliveryRow)(nil)).
		Set("state = ?", domain.StateCancelled).Set("next_attempt_at = NULL").Set("queued = false").Set("updated_at = ?", now).
		Where("team_id = ? AND id = ? AND state = ?", teamID, id, domain.StatePending).Exec(ctx)
	if err != nil {
		return fmt.Errorf("cancel delivery: %w", err)
	}
	return nil
}

// success is one successful attempt to record, and when it was recorded.
type success struct {
	a   *domain.Attempt
	now time.Time
}

// RecordSuccesses records successful attempts (as[i], recorded at
// nows[i]), atomically without a transaction: each delivery moves from
// attempt-1 to attempt and succeeded (domain.Delivery.Succeeded), the
// attempt row is written, and the webhook's failure count is cleared
// (domain.Webhook.Succeeded) if it is not 0 (a webhook whose count is 0 is
// only read, so successes do not contend for its row). out[i] is false
// when the delivery was not pending at attempt-1 (already recorded): then
// nothing is written for it. One statement per round: a delivery named
// twice (a duplicated job) goes to a later round, so that each is judged
// against the state the other left, as one at a time would be.
func (r *Repo) RecordSuccesses(ctx context.Context, as []*domain.Attempt, nows []time.Time) ([]bool, error) {
	in := make([]*success, len(as))
	for i := range as {
		in[i] = &success{a: as[i], now: nows[i]}
	}
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
			return nil, fmt.Errorf("record success: %w", err)
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
    UPDATE webhook_deliveries d SET attempts = i.attempt, state = `+sqlSucceeded+`, next_attempt_at = NULL, updated_at = i.now,
        queued = false
    FROM i
    WHERE d.team_id = i.team_id AND d.id = i.delivery_id AND d.state = `+sqlPending+` AND d.attempts = i.attempt - 1
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

// RecordFailure records a failed attempt in one statement, in the
// caller's transaction. It is domain.Webhook.Failed and
// domain.Delivery.Failed in SQL (failure_test.go checks the two agree):
// the delivery moves from attempt-1 to attempt, pending until next (the
// domain's NextAttempt, or nil: abandoned); the webhook's consecutive
// failures grow, and reaching domain.DisableAfter while it is on turns it
// off (domain.DisabledConsecutiveFailures), which ends the delivery
// (cancelled) instead of retrying it; the attempt row is written with the
// next attempt's time. When the delivery was not pending at attempt-1
// nothing is written.
func (r *Repo) RecordFailure(ctx context.Context, a *domain.Attempt, next *time.Time, now time.Time) (domain.Failure, error) {
	// cur and old lock the delivery and the webhook as they are read, so
	// that "disabled" is true only for the failure that turned it off.
	var f domain.Failure
	var nextAt sql.NullTime
	err := r.queryRow(ctx, `
WITH cur AS (
    SELECT id FROM webhook_deliveries
    WHERE team_id = $1::text AND id = $3::text AND state = `+sqlPending+` AND attempts = $5::integer - 1
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
        state = CASE WHEN $11::timestamptz IS NULL THEN `+sqlAbandoned+`
                     WHEN coalesce((SELECT disabled FROM fail), false) THEN `+sqlCancelled+`
                     ELSE `+sqlPending+` END,
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
		next, domain.DisableAfter, domain.DisabledConsecutiveFailures).Scan(&nextAt, &f.Failures, &f.Disabled)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Failure{}, nil
	}
	if err != nil {
		return domain.Failure{}, fmt.Errorf("record failure: %w", err)
	}
	f.Recorded = true
	if nextAt.Valid {
		t := nextAt.Time
		f.NextAttemptAt = &t
	}
	return f, nil
}

// Attempts lists a webhook's attempts, newest first, limit+1 rows.
func (r *Repo) Attempts(ctx context.Context, teamID, webhookID string, limit, offset int) ([]domain.Attempt, error) {
	var as []attemptRow
	err := r.db.IDB(ctx).NewSelect().Model(&as).Where("team_id = ? AND webhook_id = ?", teamID, webhookID).
		OrderExpr("attempted_at DESC, id DESC").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list attempts: %w", err)
	}
	return toAttempts(as), nil
}

// InsertNotification records an e-mail.
func (r *Repo) InsertNotification(ctx context.Context, n *domain.Notification) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(fromNotification(n)).Exec(ctx); err != nil {
		return fmt.Errorf("insert notification: %w", err)
	}
	return nil
}

// Notification loads one of a team's notifications.
func (r *Repo) Notification(ctx context.Context, teamID, id string) (*domain.Notification, error) {
	n := new(notificationRow)
	if err := r.db.IDB(ctx).NewSelect().Model(n).Where("team_id = ? AND id = ?", teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select notification")
	}
	return toNotification(n), nil
}

// MarkNotification sets a notification's status (sent or failed).
func (r *Repo) MarkNotification(ctx context.Context, teamID, id, status string, errMsg *string, sentAt *time.Time) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model((*notificationRow)(nil)).
		Set("status = ?", status).Set("error = ?", errMsg).Set("sent_at = ?", sentAt).
		Where("team_id = ? AND id = ?", teamID, id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("mark notification: %w", err)
	}
	return nil
}

// Notifications lists a team's e-mails, newest first, limit+1 rows.
func (r *Repo) Notifications(ctx context.Context, teamID string, limit, offset int) ([]domain.Notification, error) {
	var ns []notificationRow
	err := r.db.IDB(ctx).NewSelect().Model(&ns).Where("team_id = ?", teamID).
		OrderExpr("created_at DESC, id DESC").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	out := make([]domain.Notification, len(ns))
	for i := range ns {
		out[i] = *toNotification(&ns[i])
	}
	return out, nil
}
