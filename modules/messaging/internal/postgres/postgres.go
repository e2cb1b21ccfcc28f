// Package postgres stores messaging's templates, messages, deliveries,
// schedules and idempotency records, and embeds messaging's migrations.
package postgres

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/platform/db"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is messaging's schema history.
func Migrations() db.MigrationSet { return db.Embedded("messaging", 30, migrationFiles, "migrations") }

// ErrNotFound means no row matched (for this team).
var ErrNotFound = errors.New("messaging: not found")

func notFound(err error, what string) error { return db.NotFound(err, ErrNotFound, what) }

// Template is a messaging_templates row.
type Template struct {
	bun.BaseModel `bun:"table:messaging_templates,alias:t"`
	ID            string     `bun:"id,pk"`
	TeamID        string     `bun:"team_id"`
	Name          string     `bun:"name"`
	Body          string     `bun:"body"`
	MessageType   string     `bun:"message_type"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
	DeletedAt     *time.Time `bun:"deleted_at"`
}

// Message is a messaging_messages row.
type Message struct {
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
}

// Delivery is a messaging_deliveries row.
type Delivery struct {
	bun.BaseModel     `bun:"table:messaging_deliveries,alias:d"`
	ID                string     `bun:"id,pk"`
	TeamID            string     `bun:"team_id"`
	MessageID         string     `bun:"message_id"`
	Phone             string     `bun:"phone"`
	MemberIDs         []string   `bun:"member_ids,array"`
	Status            string     `bun:"status"`
	ProviderMessageID string     `bun:"provider_message_id"`
	CarrierStatus     string     `bun:"carrier_status"`
	ErrorCode         string     `bun:"error_code"`
	ErrorMessage      string     `bun:"error_message"`
	SentAt            *time.Time `bun:"sent_at"`
	UpdatedAt         time.Time  `bun:"updated_at"`
}

// Scheduled is a messaging_scheduled row.
type Scheduled struct {
	bun.BaseModel `bun:"table:messaging_scheduled,alias:s"`
	ID            string          `bun:"id,pk"`
	TeamID        string          `bun:"team_id"`
	KeyID         string          `bun:"key_id"`
	MemberID      string          `bun:"member_id"`
	Request       json.RawMessage `bun:"request,type:jsonb"`
	ScheduledFor  time.Time       `bun:"scheduled_for"`
	RepeatEvery   string          `bun:"repeat_every"`
	RepeatUntil   *time.Time      `bun:"repeat_until,type:date"`
	Status        string          `bun:"status"`
	StatusReason  string          `bun:"status_reason"`
	Runs          int             `bun:"runs"`
	CreatedAt     time.Time       `bun:"created_at"`
	UpdatedAt     time.Time       `bun:"updated_at"`
}

// Counts are a message's deliveries by status.
type Counts struct {
	Total, Queued, Sent, Delivered, Failed, Unconfirmed int
}

// Repo is messaging's repository. Reads by id always take the team id.
type Repo struct{ db *db.DB }

// NewRepo returns the repository.
func NewRepo(d *db.DB) *Repo { return &Repo{db: d} }

// IDB exposes the handle for the few statements the service composes itself.
func (r *Repo) IDB(ctx context.Context) bun.IDB { return r.db.IDB(ctx) }

// Templates lists a team's live templates by name, limit+1 rows.
func (r *Repo) Templates(ctx context.Context, teamID string, limit, offset int) ([]Template, error) {
	var ts []Template
	err := r.db.IDB(ctx).NewSelect().Model(&ts).Where("team_id = ? AND deleted_at IS NULL", teamID).
		OrderExpr("lower(name), id").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list templates: %w", err)
	}
	return ts, nil
}

// CountTemplates counts a team's live templates.
func (r *Repo) CountTemplates(ctx context.Context, teamID string) (int, error) {
	n, err := r.db.IDB(ctx).NewSelect().Model((*Template)(nil)).Where("team_id = ? AND deleted_at IS NULL", teamID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count templates: %w", err)
	}
	return int(n), nil
}

// Template loads a team's template; deleted ones only when withDeleted.
func (r *Repo) Template(ctx context.Context, teamID, id string, withDeleted, forUpdate bool) (*Template, error) {
	t := new(Template)
	q := r.db.IDB(ctx).NewSelect().Model(t).Where("team_id = ? AND id = ?", teamID, id)
	if !withDeleted {
		q = q.Where("deleted_at IS NULL")
	}
	if forUpdate {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, notFound(err, "select template")
	}
	return t, nil
}

// TemplateByName loads a team's template by name (deleted included), locked.
func (r *Repo) TemplateByName(ctx context.Context, teamID, name string) (*Template, error) {
	t := new(Template)
	if err := r.db.IDB(ctx).NewSelect().Model(t).Where("team_id = ? AND lower(name) = lower(?)", teamID, name).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, "select template by name")
	}
	return t, nil
}

// InsertTemplate stores a template.
func (r *Repo) InsertTemplate(ctx context.Context, t *Template) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(t).Exec(ctx); err != nil {
		return fmt.Errorf("insert template: %w", err)
	}
	return nil
}

// UpdateTemplate writes every column of t.
func (r *Repo) UpdateTemplate(ctx context.Context, t *Template) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(t).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update template: %w", err)
	}
	return nil
}

// InsertMessage stores a message.
func (r *Repo) InsertMessage(ctx context.Context, m *Message) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(m).Exec(ctx); err != nil {
		return fmt.Errorf("insert message: %w", err)
	}
	return nil
}

// Message loads a team's message.
func (r *Repo) Message(ctx context.Context, teamID, id string, forUpdate bool) (*Message, error) {
	m := new(Message)
	q := r.db.IDB(ctx).NewSelect().Model(m).Where("team_id = ? AND id = ?", teamID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, notFound(err, "select message")
	}
	return m, nil
}

// MessageByID loads a message by id alone (workers, which carry the id).
func (r *Repo) MessageByID(ctx context.Context, id string) (*Message, error) {
	m := new(Message)
	if err := r.db.IDB(ctx).NewSelect().Model(m).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err, "select message")
	}
	return m, nil
}

// UpdateMessage writes every column of m.
func (r *Repo) UpdateMessage(ctx context.Context, m *Message) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(m).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update message: %w", err)
	}
	return nil
}

// Messages lists a team's messages (all statuses), newest first, limit+1 rows.
func (r *Repo) Messages(ctx context.Context, teamID, status string, limit, offset int) ([]Message, error) {
	var ms []Message
	q := r.db.IDB(ctx).NewSelect().Model(&ms).Where("team_id = ?", teamID)
	if status != "" {
		q = q.Where("status = ?", status)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("list messages: %w", err)
	}
	return ms, nil
}

// Counts returns delivery counts for messages.
func (r *Repo) Counts(ctx context.Context, messageIDs []string) (map[string]Counts, error) {
	out := make(map[string]Counts, len(messageIDs))
	if len(messageIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		MessageID string `bun:"message_id"`
		Status    string `bun:"status"`
		N         int    `bun:"n"`
	}
	err := r.db.IDB(ctx).NewSelect().Table("messaging_deliveries").ColumnExpr("message_id, status, count(*) AS n").
		Where("message_id IN (?)", bun.In(messageIDs)).GroupExpr("message_id, status").Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("delivery counts: %w", err)
	}
	for _, row := range rows {
		c := out[row.MessageID]
		c.Total += row.N
		switch row.Status {
		case "queued":
			c.Queued += row.N
		case "sent":
			c.Sent += row.N
		case "delivered":
			c.Delivered += row.N
		case "failed":
			c.Failed += row.N
		case "delivery_unconfirmed":
			c.Unconfirmed += row.N
		}
		out[row.MessageID] = c
	}
	return out, nil
}

// InsertDeliveries stores deliveries in one statement.
func (r *Repo) InsertDeliveries(ctx context.Context, ds []Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	if _, err := r.db.IDB(ctx).NewInsert().Model(&ds).Exec(ctx); err != nil {
		return fmt.Errorf("insert %d deliveries: %w", len(ds), err)
	}
	return nil
}

// Deliveries lists a message's deliveries, limit+1 rows.
func (r *Repo) Deliveries(ctx context.Context, messageID string, limit, offset int) ([]Delivery, error) {
	var ds []Delivery
	err := r.db.IDB(ctx).NewSelect().Model(&ds).Where("message_id = ?", messageID).OrderExpr("id").
		Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	return ds, nil
}

// DeliveriesByID loads deliveries by id.
func (r *Repo) DeliveriesByID(ctx context.Context, ids []string) ([]Delivery, error) {
	var ds []Delivery
	if err := r.db.IDB(ctx).NewSelect().Model(&ds).Where("id IN (?)", bun.In(ids)).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("select deliveries: %w", err)
	}
	return ds, nil
}

// Delivery loads one delivery by id, locked.
func (r *Repo) Delivery(ctx context.Context, id string) (*Delivery, error) {
	d := new(Delivery)
	if err := r.db.IDB(ctx).NewSelect().Model(d).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, "select delivery")
	}
	return d, nil
}

// UpdateDelivery writes every column of d.
func (r *Repo) UpdateDelivery(ctx context.Context, d *Delivery) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(d).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update delivery: %w", err)
	}
	return nil
}

// MarkSent records the carrier's acceptance unless a status already moved on.
func (r *Repo) MarkSent(ctx context.Context, id, providerID, carrierStatus string, at time.Time) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model((*Delivery)(nil)).
		Set("status = 'sent'").Set("provider_message_id = ?", providerID).Set("carrier_status = ?", carrierStatus).
		Set("sent_at = ?", at).Set("updated_at = ?", at).
		Where("id = ? AND status = 'queued'", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("mark sent: %w", err)
	}
	return nil
}

// PendingDeliveries returns a message's deliveries still without a final status.
func (r *Repo) PendingDeliveries(ctx context.Context, messageID string) ([]Delivery, error) {
	var ds []Delivery
	err := r.db.IDB(ctx).NewSelect().Model(&ds).Where("message_id = ? AND status IN ('queued', 'sent')", messageID).For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("pending deliveries: %w", err)
	}
	return ds, nil
}

// InsertScheduled stores a scheduled send.
func (r *Repo) InsertScheduled(ctx context.Context, s *Scheduled) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(s).Exec(ctx); err != nil {
		return fmt.Errorf("insert scheduled: %w", err)
	}
	return nil
}

// Scheduled loads a scheduled send by id (and team, if given), locked.
func (r *Repo) Scheduled(ctx context.Context, teamID, id string) (*Scheduled, error) {
	s := new(Scheduled)
	q := r.db.IDB(ctx).NewSelect().Model(s).Where("id = ?", id)
	if teamID != "" {
		q = q.Where("team_id = ?", teamID)
	}
	if err := q.For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, "select scheduled")
	}
	return s, nil
}

// UpdateScheduled writes every column of s.
func (r *Repo) UpdateScheduled(ctx context.Context, s *Scheduled) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(s).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update scheduled: %w", err)
	}
	return nil
}

// PendingScheduled lists a team's pending scheduled sends, soonest first, limit+1 rows.
func (r *Repo) PendingScheduled(ctx context.Context, teamID string, limit, offset int) ([]Scheduled, error) {
	var ss []Scheduled
	err := r.db.IDB(ctx).NewSelect().Model(&ss).Where("team_id = ? AND status = 'pending'", teamID).
		OrderExpr("scheduled_for, id").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list scheduled: %w", err)
	}
	return ss, nil
}

// CountPendingScheduled counts a team's pending scheduled sends.
func (r *Repo) CountPendingScheduled(ctx context.Context, teamID string) (int, error) {
	n, err := r.db.IDB(ctx).NewSelect().Model((*Scheduled)(nil)).Where("team_id = ? AND status = 'pending'", teamID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count scheduled: %w", err)
	}
	return int(n), nil
}

// StopKeyScheduled stops every pending scheduled send of a revoked key.
func (r *Repo) StopKeyScheduled(ctx context.Context, keyID, reason string, at time.Time) (int, error) {
	res, err := r.db.IDB(ctx).NewUpdate().Model((*Scheduled)(nil)).Set("status = 'stopped'").Set("status_reason = ?", reason).
		Set("updated_at = ?", at).Where("key_id = ? AND status = 'pending'", keyID).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("stop key scheduled: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
