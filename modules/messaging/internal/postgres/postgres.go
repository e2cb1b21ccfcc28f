// Package postgres stores messaging's templates, messages, deliveries,
// schedules and idempotency records, and embeds messaging's migrations.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/id"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is messaging's schema history.
func Migrations() db.MigrationSet { return db.Embedded("messaging", 30, migrationFiles, "migrations") }

// ErrNotFound means no row matched (for this team): the domain's sentinel.
var ErrNotFound = domain.ErrNotFound

func notFound(err error, what string) error { return db.NotFound(err, ErrNotFound, what) }

// messageRow is a messaging_messages row.
type messageRow struct {
	bun.BaseModel `bun:"table:messaging_messages,alias:m"`
	ID            string     `bun:"id,pk"`
	TeamID        string     `bun:"team_id"`
	KeyID         string     `bun:"key_id"`
	MemberID      string     `bun:"member_id"`
	Source        string     `bun:"source"`
	Audience      string     `bun:"audience"`
	GroupID       string     `bun:"group_id"`
	TemplateID    string     `bun:"template_id"`
	ScheduledID   string     `bun:"scheduled_id"`
	Text          string     `bun:"text"`
	Rendered      string     `bun:"rendered"`
	Encoding      string     `bun:"encoding"`
	Segments      int        `bun:"segments"`
	Recipients    int        `bun:"recipients"`
	Status        string     `bun:"status"`
	Urgent        bool       `bun:"urgent"`
	CreatedAt     time.Time  `bun:"created_at"`
	DecidedAt     *time.Time `bun:"decided_at"`
	DecidedBy     string     `bun:"decided_by"`
	SentAt        *time.Time `bun:"sent_at"`
	// EstimatedCompletion is when the last text was planned to reach the
	// carrier (null until the send is dispatched).
	EstimatedCompletion *time.Time `bun:"estimated_completion"`
	// SkippedUndeliverable counts the audience's numbers left out because
	// they are marked undeliverable; ResendOf is the message this one
	// resends to its failed recipients.
	SkippedUndeliverable int    `bun:"skipped_undeliverable"`
	ResendOf             string `bun:"resend_of"`
	// Credits is the send's exact cost when its texts differ per recipient
	// (merge tags); NULL (0) means recipients × segments.
	Credits int `bun:"credits,nullzero"`
	// HeldForQuietHours counts the texts quiet hours held when the send
	// was planned; written by HoldTexts only.
	HeldForQuietHours int `bun:"held_for_quiet_hours"`
	// ReplyOptions and ReplyUntil make the message a poll;
	// NULL for every other message.
	ReplyOptions []string   `bun:"reply_options,array,nullzero"`
	ReplyUntil   *time.Time `bun:"reply_until"`
	// Delivery counts, kept by the statements that move deliveries between
	// statuses; UpdateMessage never writes them from a loaded row.
	QueuedCount      int `bun:"queued_count"`
	SentCount        int `bun:"sent_count"`
	DeliveredCount   int `bun:"delivered_count"`
	FailedCount      int `bun:"failed_count"`
	UnconfirmedCount int `bun:"unconfirmed_count"`
	// SkippedCount counts deliveries never handed over: the recipient
	// opted out before the text's turn (they are among FailedCount).
	SkippedCount int `bun:"skipped_count"`
}

// countColumns are the message's delivery counts' columns.
func countColumns() []string {
	return []string{"queued_count", "sent_count", "delivered_count", "failed_count", "unconfirmed_count", "skipped_count"}
}

// deliveryRow is a messaging_deliveries row.
type deliveryRow struct {
	bun.BaseModel     `bun:"table:messaging_deliveries,alias:d"`
	ID                string     `bun:"id,pk"`
	TeamID            string     `bun:"team_id"`
	MessageID         string     `bun:"message_id"`
	Phone             string     `bun:"phone"`
	MemberIDs         []string   `bun:"member_ids,array"`
	Seq               int        `bun:"seq"` // position in the message, 1..n
	Status            string     `bun:"status"`
	ProviderMessageID string     `bun:"provider_message_id"`
	CarrierStatus     string     `bun:"carrier_status"`
	ErrorCode         string     `bun:"error_code"`
	ErrorMessage      string     `bun:"error_message"`
	SentAt            *time.Time `bun:"sent_at"`
	UpdatedAt         time.Time  `bun:"updated_at"`
}

// Repo is messaging's repository. Reads by id always take the team id.
type Repo struct {
	db *db.DB
	// staged wakes the inbound filers (InboundChannel) after a staged
	// text commits, reported the status filers (StatusChannel) after a
	// staged status does.
	staged, reported *db.Notifier
}

// NewRepo returns the repository; log (may be nil) is where a failed
// wakeup of the filers is logged.
func NewRepo(d *db.DB, log *slog.Logger) *Repo {
	return &Repo{db: d, staged: db.NewNotifier(d, InboundChannel, log), reported: db.NewNotifier(d, StatusChannel, log)}
}

// insertMessage stores a message.
func (r *Repo) insertMessage(ctx context.Context, m *messageRow) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(m).Exec(ctx); err != nil {
		return fmt.Errorf("insert message: %w", err)
	}
	return nil
}

// selectMessage is the statement that reads a team's message into m.
func (r *Repo) selectMessage(ctx context.Context, m *messageRow, teamID, id string) *bun.SelectQuery {
	return r.db.IDB(ctx).NewSelect().Model(m).Where("team_id = ? AND id = ?", teamID, id)
}

// messageByID loads a message by id alone (workers, which carry the id).
func (r *Repo) messageByID(ctx context.Context, id string) (*messageRow, error) {
	m := new(messageRow)
	if err := r.db.IDB(ctx).NewSelect().Model(m).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err, "select message")
	}
	return m, nil
}

// updateMessage writes every column of m.
func (r *Repo) updateMessage(ctx context.Context, m *messageRow) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(m).ExcludeColumn(countColumns()...).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update message: %w", err)
	}
	return nil
}

// messages lists a team's messages (all statuses), newest first, limit+1 rows.
func (r *Repo) messages(ctx context.Context, teamID, status string, limit, offset int) ([]messageRow, error) {
	var ms []messageRow
	q := r.db.IDB(ctx).NewSelect().Model(&ms).Where("team_id = ?", teamID)
	if status != "" {
		q = q.Where("status = ?", status)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("list messages: %w", err)
	}
	return ms, nil
}

// textArray renders ss as one Postgres array literal, every element quoted
// and escaped. For arrays of thousands of strings, building the literal and
// letting the server parse it costs a fraction of pgx's element-by-element
// binary encoding.
func textArray(ss []string) string {
	n := 2
	for _, s := range ss {
		n += len(s) + 3
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('{')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for j := 0; j < len(s); j++ {
			if c := s[j]; c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(s[j])
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// nullableTextArray is textArray(ss), or NULL when ss is nil.
func nullableTextArray(ss []string) any {
	if ss == nil {
		return nil
	}
	return textArray(ss)
}

// nullableTimeArray is ts as a timestamptz array literal, a zero time as
// NULL, or NULL when ts is nil.
func nullableTimeArray(ts []time.Time) any {
	if ts == nil {
		return nil
	}
	b := make([]byte, 0, 2+40*len(ts))
	b = append(b, '{')
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		if t.IsZero() {
			b = append(b, "NULL"...)
			continue
		}
		b = append(b, '"')
		b = t.UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	return string(append(b, '}'))
}

// nullableIntArray is ns as an array literal, or NULL when ns is nil.
func nullableIntArray(ns []int32) any {
	if ns == nil {
		return nil
	}
	b := make([]byte, 0, 2+4*len(ns))
	b = append(b, '{')
	for i, n := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return string(append(b, '}'))
}

// InsertQueued stores a message's queued deliveries (phones and roster
// entries side by side; positions 1..n in that order, position n's id
// ids.At(n), built by the statement), counts them on the message and sets
// its estimated completion, in one statement with bind parameters: a fixed
// text, prepared once per connection, and two arrays, however large the
// audience.
func (r *Repo) InsertQueued(ctx context.Context, teamID, messageID string, at, done time.Time, ids id.Series, phones []string, memberIDs [][]string, texts []domain.Text, held []time.Time) error {
	if len(phones) == 0 {
		return nil
	}
	tx, err := db.MustTx(ctx)
	if err != nil {
		return fmt.Errorf("insert deliveries: %w", err)
	}
	members := make([]string, len(memberIDs))
	for i, ms := range memberIDs {
		members[i] = strings.Join(ms, ",") // member ids are "mem_…": no commas
	}
	// Per-recipient texts (merge tags) go in two more arrays, unnested with
	// the others (a subscript into a text array walks it: quadratic);
	// without them the arrays are NULL, unnest pads them with NULLs, and
	// the hand-over reads the message's text.
	var bodies []string
	var segments []int32
	if texts != nil {
		bodies, segments = make([]string, len(texts)), make([]int32, len(texts))
		for i, t := range texts {
			bodies[i], segments[i] = t.Body, int32(t.Segments)
		}
	}
	// Texts held for quiet hours carry held_until in one more array (NULL
	// when none is held), and the message counts them in the same statement.
	_, err = tx.Tx.ExecContext(ctx, `WITH ins AS (
  INSERT INTO messaging_deliveries (id, team_id, message_id, seq, phone, member_ids, status, updated_at, body, segments, held_until)
  SELECT $4 || lpad(to_hex(v.n), 8, '0'), $1, $2, v.n, v.phone, string_to_array(v.members, ','), `+sqlQueued+`, $3, v.body, v.segments, v.held
  FROM unnest($5::text[], $6::text[], $8::text[], $9::int[], $10::timestamptz[]) WITH ORDINALITY AS v(phone, members, body, segments, held, n)
  RETURNING held_until)
UPDATE messaging_messages SET queued_count = queued_count + (SELECT count(*) FROM ins), estimated_completion = $7,
  held_for_quiet_hours = (SELECT count(held_until) FROM ins) WHERE id = $2`,
		teamID, messageID, at, ids.Head(), textArray(phones), textArray(members), done, nullableTextArray(bodies), nullableIntArray(segments),
		nullableTimeArray(held))
	if err != nil {
		return fmt.Errorf("insert %d deliveries: %w", len(phones), err)
	}
	return nil
}

// MessageOwnedSQL finds message $1 among team $2's: a deliveries page
// answers 404 without it.
const MessageOwnedSQL = `SELECT EXISTS (SELECT 1 FROM messaging_messages WHERE id = $1 AND team_id = $2)`

// DeliveriesPageSQL is a page of a message's deliveries ($1), in position
// order, $2 rows from $3 on: a fixed text with bind parameters (pgx prepares
// it once per connection), read along the (message_id, seq) index.
const DeliveriesPageSQL = `SELECT id, team_id, message_id, phone, member_ids, seq, status, provider_message_id,
  carrier_status, error_code, error_message, sent_at, updated_at, held_until
FROM messaging_deliveries WHERE message_id = $1 AND ($4 = '' OR status = $4) ORDER BY seq LIMIT $2 OFFSET $3`

// Deliveries lists the deliveries of team teamID's message messageID
// (those in status, when it is not empty), limit+1 rows, or ErrNotFound if the team has no such message: the
// ownership check and the page go to Postgres together, one round trip of
// two prepared statements.
func (r *Repo) Deliveries(ctx context.Context, teamID, messageID, status string, limit, offset int) ([]domain.Delivery, error) {
	var ds []domain.Delivery
	owned := false
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		b := &pgx.Batch{}
		b.Queue(MessageOwnedSQL, messageID, teamID).QueryRow(func(row pgx.Row) error { return row.Scan(&owned) })
		b.Queue(DeliveriesPageSQL, messageID, limit+1, offset, status).Query(func(rows pgx.Rows) error {
			var d domain.Delivery
			_, err := pgx.ForEachRow(rows, []any{&d.ID, &d.TeamID, &d.MessageID, &d.Phone, &d.MemberIDs, &d.Seq, &d.Status,
				&d.ProviderMessageID, &d.CarrierStatus, &d.ErrorCode, &d.ErrorMessage, &d.SentAt, &d.UpdatedAt, &d.HeldUntil}, func() error {
				ds = append(ds, d)
				d.MemberIDs, d.SentAt, d.HeldUntil = nil, nil, nil
				return nil
			})
			return err
		})
		return q.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	if !owned {
		return nil, ErrNotFound
	}
	return ds, nil
}

// queuedDeliveries returns a message's deliveries at positions from..to
// that are still queued, in position order, with the columns a fan-out
// needs (id, phone, status).
func (r *Repo) queuedDeliveries(ctx context.Context, messageID string, from, to int) ([]deliveryRow, error) {
	var ds []deliveryRow
	err := r.db.IDB(ctx).NewSelect().Model(&ds).Column("id", "phone", "status").
		Where("message_id = ? AND seq BETWEEN ? AND ? AND status = "+sqlQueued, messageID, from, to).OrderExpr("seq").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("select queued deliveries: %w", err)
	}
	return ds, nil
}

// lockDeliveries loads deliveries by id and locks them, in id order (every
// writer of several deliveries locks in that order, so none deadlocks).
func (r *Repo) lockDeliveries(ctx context.Context, ids []string) ([]deliveryRow, error) {
	var ds []deliveryRow
	err := r.db.IDB(ctx).NewSelect().Model(&ds).Where("id = ANY(?)", pgdialect.Array(ids)).OrderExpr("id").For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock deliveries: %w", err)
	}
	return ds, nil
}

// The delivery statuses as SQL literals, from the domain's constants (the
// statements stay constant text).
const (
	sqlQueued      = "'" + domain.DeliveryQueued + "'"
	sqlSent        = "'" + domain.DeliverySent + "'"
	sqlDelivered   = "'" + domain.DeliveryDelivered + "'"
	sqlFailed      = "'" + domain.DeliveryFailed + "'"
	sqlUnconfirmed = "'" + domain.DeliveryUnconfirmed + "'"
)

// moveCounts is the tail of the statements that move deliveries between
// statuses: from a CTE "u" of (message_id, old, st) rows it adds each
// status's arrivals and takes away its departures on the message's counts,
// so that each count stays the number of the message's deliveries in that
// status (counts_test.go holds it to the domain's Delivery.Apply).
const moveCounts = `,
c AS (
  SELECT message_id,
    count(*) FILTER (WHERE st = ` + sqlQueued + `) - count(*) FILTER (WHERE old = ` + sqlQueued + `) AS queued,
    count(*) FILTER (WHERE st = ` + sqlSent + `) - count(*) FILTER (WHERE old = ` + sqlSent + `) AS sent,
    count(*) FILTER (WHERE st = ` + sqlDelivered + `) - count(*) FILTER (WHERE old = ` + sqlDelivered + `) AS delivered,
    count(*) FILTER (WHERE st = ` + sqlFailed + `) - count(*) FILTER (WHERE old = ` + sqlFailed + `) AS failed,
    count(*) FILTER (WHERE st = ` + sqlUnconfirmed + `) - count(*) FILTER (WHERE old = ` + sqlUnconfirmed + `) AS unconfirmed
  FROM u GROUP BY message_id)
UPDATE messaging_messages AS m SET queued_count = m.queued_count + c.queued, sent_count = m.sent_count + c.sent,
  delivered_count = m.delivered_count + c.delivered, failed_count = m.failed_count + c.failed,
  unconfirmed_count = m.unconfirmed_count + c.unconfirmed
FROM c WHERE m.id = c.message_id`

// updateDeliveries writes the status columns of ds, whose statuses were
// from[i] when they were locked, and moves their messages' counts
// accordingly, in one statement. The caller holds the rows' locks.
func (r *Repo) updateDeliveries(ctx context.Context, ds []deliveryRow, from []string) error {
	if len(ds) == 0 {
		return nil
	}
	n := len(ds)
	ids, st, cs, pid, ec, em := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	sent, upd := make([]*time.Time, n), make([]time.Time, n)
	for i, d := range ds {
		ids[i], st[i], cs[i], pid[i], ec[i], em[i], sent[i], upd[i] = d.ID, d.Status, d.CarrierStatus, d.ProviderMessageID, d.ErrorCode, d.ErrorMessage, d.SentAt, d.UpdatedAt
	}
	_, err := r.db.SQL(ctx).ExecContext(ctx, `WITH v AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::timestamptz[])
    AS v(id, old, st, cs, pid, ec, em, sent, upd)),
u AS (
  UPDATE messaging_deliveries AS d SET status = v.st, carrier_status = v.cs, provider_message_id = v.pid,
    error_code = v.ec, error_message = v.em, sent_at = v.sent, updated_at = v.upd
  FROM v WHERE d.id = v.id
  RETURNING d.message_id, v.old, v.st)`+moveCounts, ids, from, st, cs, pid, ec, em, sent, upd)
	if err != nil {
		return fmt.Errorf("update %d deliveries: %w", n, err)
	}
	return nil
}

// Sent is the carrier's acceptance of one delivery.
type Sent struct {
	DeliveryID, ProviderMessageID, CarrierStatus string
}

// MarkSent records the carrier's acceptance of deliveries still queued (a
// status that already moved on is kept: a carrier's report can come before
// the hand-over commits) and
// moves their messages' counts,
// in one statement that locks the rows in id order.
func (r *Repo) MarkSent(ctx context.Context, ss []Sent, at time.Time) error {
	if len(ss) == 0 {
		return nil
	}
	ids, pids, css := make([]string, len(ss)), make([]string, len(ss)), make([]string, len(ss))
	for i, x := range ss {
		ids[i], pids[i], css[i] = x.DeliveryID, x.ProviderMessageID, x.CarrierStatus
	}
	_, err := r.db.SQL(ctx).ExecContext(ctx, `WITH v AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS v(id, pid, cs)),
l AS (SELECT d.id FROM messaging_deliveries d WHERE d.id = ANY($1::text[]) AND d.status = `+sqlQueued+` ORDER BY d.id FOR UPDATE),
u AS (
  UPDATE messaging_deliveries AS d SET status = `+sqlSent+`, provider_message_id = v.pid, carrier_status = v.cs, sent_at = $4, updated_at = $4
  FROM v, l WHERE d.id = v.id AND d.id = l.id
  RETURNING d.message_id, `+sqlQueued+`::text AS old, `+sqlSent+`::text AS st)`+moveCounts, ids, pids, css, at)
	if err != nil {
		return fmt.Errorf("mark %d deliveries sent: %w", len(ss), err)
	}
	return nil
}

// pendingDeliveries returns a message's deliveries still without a final status.
func (r *Repo) pendingDeliveries(ctx context.Context, messageID string) ([]deliveryRow, error) {
	var ds []deliveryRow
	err := r.db.IDB(ctx).NewSelect().Model(&ds).Where("message_id = ? AND status IN ("+sqlQueued+", "+sqlSent+")", messageID).OrderExpr("id").For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("pending deliveries: %w", err)
	}
	return ds, nil
}

// HeldByTeam counts, per team, the texts still queued and held past now
// (the partial index messaging_deliveries_held).
func (r *Repo) HeldByTeam(ctx context.Context, now time.Time) (map[string]int, error) {
	out := map[string]int{}
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT team_id, count(*) FROM messaging_deliveries
WHERE held_until > $1 AND status = 'queued' GROUP BY team_id`, now)
		if err != nil {
			return err
		}
		var team string
		var n int
		_, err = pgx.ForEachRow(rows, []any{&team, &n}, func() error {
			out[team] = n
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("held texts by team: %w", err)
	}
	return out, nil
}

// HeldQueued counts a message's texts still queued and held past now.
func (r *Repo) HeldQueued(ctx context.Context, messageID string, now time.Time) (int, error) {
	var n int
	err := r.db.IDB(ctx).QueryRowContext(ctx, `SELECT count(*) FROM messaging_deliveries
WHERE message_id = ? AND status = 'queued' AND held_until > ?`, messageID, now).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("held texts: %w", err)
	}
	return n, nil
}
