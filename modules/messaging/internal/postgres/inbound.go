package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

// This file stores inbound texts, the replies sent in answer to them, the
// per-team messaging settings (the analytics counters are in analytics.go).

// inboundRow is a messaging_inbound row (domain.Inbound in storage).
type inboundRow struct {
	bun.BaseModel     `bun:"table:messaging_inbound,alias:i"`
	ID                string     `bun:"id,pk"`
	TeamID            string     `bun:"team_id"`
	ProviderMessageID string     `bun:"provider_message_id"`
	FromPhone         string     `bun:"from_phone"`
	ToPhone           string     `bun:"to_phone"`
	Body              string     `bun:"body"`
	Keyword           string     `bun:"keyword,nullzero"`
	GroupID           string     `bun:"group_id,nullzero"`
	MemberID          string     `bun:"member_id,nullzero"`
	MemberName        string     `bun:"member_name,nullzero"`
	MemberRole        string     `bun:"member_role,nullzero"`
	ReceivedAt        time.Time  `bun:"received_at"`
	Held              bool       `bun:"held"`
	ReleasedAt        *time.Time `bun:"released_at"`
	ReadAt            *time.Time `bun:"read_at"`
	RepliedAt         *time.Time `bun:"replied_at"`
	ReplyBody         string     `bun:"reply_body,nullzero"`
	ReplyMemberID     string     `bun:"reply_member_id,nullzero"`
	ReplySentAt       *time.Time `bun:"reply_sent_at"`
	ResponseTo        string     `bun:"response_to,nullzero"`
	CreatedAt         time.Time  `bun:"created_at"`
}

// toDomain maps a row to the text it stores.
func (r *inboundRow) toDomain() domain.Inbound {
	in := domain.Inbound{ID: r.ID, TeamID: r.TeamID, ProviderMessageID: r.ProviderMessageID, FromPhone: r.FromPhone, ToPhone: r.ToPhone,
		Body: r.Body, Keyword: domain.Keyword(r.Keyword), GroupID: r.GroupID,
		Member:     domain.InboundMember{ID: r.MemberID, Name: r.MemberName, Role: r.MemberRole},
		ReceivedAt: r.ReceivedAt, Held: r.Held, ReleasedAt: r.ReleasedAt, ReadAt: r.ReadAt, RepliedAt: r.RepliedAt, CreatedAt: r.CreatedAt,
		ResponseTo: r.ResponseTo}
	if r.ReplySentAt != nil {
		in.LatestReply = &domain.LatestReply{Body: r.ReplyBody, MemberID: r.ReplyMemberID, SentAt: *r.ReplySentAt}
	}
	return in
}

// replyRow is a messaging_replies row (domain.Reply in storage).
type replyRow struct {
	bun.BaseModel     `bun:"table:messaging_replies,alias:r"`
	ID                string     `bun:"id,pk"`
	TeamID            string     `bun:"team_id"`
	InboundID         string     `bun:"inbound_id,nullzero"` // none for a service text
	Kind              string     `bun:"kind"`
	MemberID          string     `bun:"member_id,nullzero"`
	ToPhone           string     `bun:"to_phone"`
	Body              string     `bun:"body"`
	Segments          int        `bun:"segments"`
	Status            string     `bun:"status"`
	ProviderMessageID string     `bun:"provider_message_id"`
	ErrorCode         string     `bun:"error_code"`
	CreatedAt         time.Time  `bun:"created_at"`
	SentAt            *time.Time `bun:"sent_at"`
}

// toDomain maps a row to the reply it stores.
func (r *replyRow) toDomain() domain.Reply {
	return domain.Reply{ID: r.ID, TeamID: r.TeamID, InboundID: r.InboundID, Kind: r.Kind, MemberID: r.MemberID, ToPhone: r.ToPhone,
		Body: r.Body, Segments: r.Segments, Status: r.Status, ProviderMessageID: r.ProviderMessageID, ErrorCode: r.ErrorCode,
		CreatedAt: r.CreatedAt, SentAt: r.SentAt}
}

// toReplyRow maps a reply to its row.
func toReplyRow(d *domain.Reply) *replyRow {
	return &replyRow{ID: d.ID, TeamID: d.TeamID, InboundID: d.InboundID, Kind: d.Kind, MemberID: d.MemberID, ToPhone: d.ToPhone,
		Body: d.Body, Segments: d.Segments, Status: d.Status, ProviderMessageID: d.ProviderMessageID, ErrorCode: d.ErrorCode,
		CreatedAt: d.CreatedAt, SentAt: d.SentAt}
}

// inboundRows maps rows to the texts they store.
func inboundRows(rs []inboundRow) []domain.Inbound {
	out := make([]domain.Inbound, len(rs))
	for i := range rs {
		out[i] = rs[i].toDomain()
	}
	return out
}

// inboxWhere is what makes a text an inbox item: visible (not held) and
// not a keyword the service handled itself.
const inboxWhere = "i.team_id = ? AND NOT i.held AND i.keyword IS NULL"

// InboundMessages lists a team's visible texts, newest first, limit+1 rows.
func (r *Repo) InboundMessages(ctx context.Context, teamID string, limit, offset int) ([]domain.Inbound, error) {
	var out []inboundRow
	err := r.db.IDB(ctx).NewSelect().Model(&out).Where("i.team_id = ? AND NOT i.held", teamID).
		OrderExpr("i.received_at DESC, i.id DESC").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list inbound: %w", err)
	}
	return inboundRows(out), nil
}

// Inbox lists a team's inbox items, newest first, limit+1 rows.
func (r *Repo) Inbox(ctx context.Context, teamID string, f domain.InboxFilter, limit, offset int) ([]domain.Inbound, error) {
	var out []inboundRow
	q := r.db.IDB(ctx).NewSelect().Model(&out).Where(inboxWhere, teamID)
	switch f {
	case domain.InboxUnread:
		q = q.Where("i.read_at IS NULL")
	case domain.InboxReplied:
		q = q.Where("i.replied_at IS NOT NULL")
	}
	if err := q.OrderExpr("i.received_at DESC, i.id DESC").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("list inbox: %w", err)
	}
	return inboundRows(out), nil
}

// InboxItem loads one of a team's inbox items (ErrNotFound for held,
// keyword and other teams' texts).
func (r *Repo) InboxItem(ctx context.Context, teamID, id string) (*domain.Inbound, error) {
	in := new(inboundRow)
	if err := r.selectInboxItem(ctx, in, teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select inbox item")
	}
	out := in.toDomain()
	return &out, nil
}

// LockInboxItem is InboxItem with the item locked (SELECT ... FOR UPDATE)
// for the rest of the caller's transaction.
func (r *Repo) LockInboxItem(ctx context.Context, teamID, id string) (*domain.Inbound, error) {
	in := new(inboundRow)
	if err := r.selectInboxItem(ctx, in, teamID, id).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, "select inbox item")
	}
	out := in.toDomain()
	return &out, nil
}

// selectInboxItem is the statement that reads one of a team's inbox items into in.
func (r *Repo) selectInboxItem(ctx context.Context, in *inboundRow, teamID, id string) *bun.SelectQuery {
	return r.db.IDB(ctx).NewSelect().Model(in).Where(inboxWhere, teamID).Where("i.id = ?", id)
}

// UnreadCount counts a team's unread inbox items.
func (r *Repo) UnreadCount(ctx context.Context, teamID string) (int, error) {
	n, err := r.db.IDB(ctx).NewSelect().Model((*inboundRow)(nil)).Where(inboxWhere, teamID).Where("i.read_at IS NULL").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count unread: %w", err)
	}
	return int(n), nil
}

// MarkRead marks one inbox item read (keeping an earlier read_at) and returns it.
func (r *Repo) MarkRead(ctx context.Context, teamID, id string, at time.Time) (*domain.Inbound, error) {
	in := new(inboundRow)
	err := r.db.IDB(ctx).NewUpdate().Model(in).Set("read_at = coalesce(i.read_at, ?)", at).
		Where(inboxWhere, teamID).Where("i.id = ?", id).Returning("*").Scan(ctx)
	if err != nil {
		return nil, notFound(err, "mark read")
	}
	out := in.toDomain()
	return &out, nil
}

// MarkAllRead marks every unread inbox item of a team read; it returns how many.
func (r *Repo) MarkAllRead(ctx context.Context, teamID string, at time.Time) (int, error) {
	res, err := r.db.IDB(ctx).NewUpdate().Model((*inboundRow)(nil)).Set("read_at = ?", at).
		Where(inboxWhere, teamID).Where("i.read_at IS NULL").Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("mark all read: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// SetLatestReply records a staff reply on its inbox item: replied_at keeps
// the first reply's time; the latest reply's body, author and time replace
// the previous ones; replying also marks the item read.
func (r *Repo) SetLatestReply(ctx context.Context, teamID, id string, rp *domain.Reply) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model((*inboundRow)(nil)).
		Set("replied_at = coalesce(i.replied_at, ?)", rp.CreatedAt).Set("read_at = coalesce(i.read_at, ?)", rp.CreatedAt).
		Set("reply_body = ?", rp.Body).Set("reply_member_id = ?", rp.MemberID).Set("reply_sent_at = ?", rp.CreatedAt).
		Where("i.team_id = ? AND i.id = ?", teamID, id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("set latest reply: %w", err)
	}
	return nil
}

// HeldInbound returns a team's held texts in arrival order, locked.
func (r *Repo) HeldInbound(ctx context.Context, teamID string) ([]domain.Inbound, error) {
	var out []inboundRow
	err := r.db.IDB(ctx).NewSelect().Model(&out).Where("i.team_id = ? AND i.held", teamID).
		OrderExpr("i.received_at, i.id").For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("held inbound: %w", err)
	}
	return inboundRows(out), nil
}

// ReleaseInbound makes a team's held texts with ids visible.
func (r *Repo) ReleaseInbound(ctx context.Context, teamID string, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := r.db.IDB(ctx).NewUpdate().Model((*inboundRow)(nil)).Set("held = false").Set("released_at = ?", at).
		Where("i.team_id = ? AND i.id IN (?) AND i.held", teamID, bun.In(ids)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("release inbound: %w", err)
	}
	return nil
}

// InsertReply stores a reply.
func (r *Repo) InsertReply(ctx context.Context, rp *domain.Reply) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(toReplyRow(rp)).Exec(ctx); err != nil {
		return fmt.Errorf("insert reply: %w", err)
	}
	return nil
}

// ReplyForSend loads a team's reply, locked.
func (r *Repo) ReplyForSend(ctx context.Context, teamID, id string) (*domain.Reply, error) {
	rp := new(replyRow)
	if err := r.db.IDB(ctx).NewSelect().Model(rp).Where("r.team_id = ? AND r.id = ?", teamID, id).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, "select reply")
	}
	out := rp.toDomain()
	return &out, nil
}

// UpdateReply writes every column of rp.
func (r *Repo) UpdateReply(ctx context.Context, rp *domain.Reply) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(toReplyRow(rp)).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update reply: %w", err)
	}
	return nil
}

// HelpText returns a team's configured HELP reply ("" when it uses the default).
func (r *Repo) HelpText(ctx context.Context, teamID string) (string, error) {
	var text sql.NullString
	err := r.db.IDB(ctx).QueryRowContext(ctx, `SELECT help_text FROM messaging_settings WHERE team_id = ?`, teamID).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("select help text: %w", err)
	}
	return text.String, nil
}

// SetHelpText stores a team's HELP reply; "" goes back to the default.
func (r *Repo) SetHelpText(ctx context.Context, teamID, text string, at time.Time) error {
	_, err := r.db.IDB(ctx).ExecContext(ctx, `INSERT INTO messaging_settings (team_id, help_text, updated_at) VALUES (?, NULLIF(?, ''), ?)
ON CONFLICT (team_id) DO UPDATE SET help_text = EXCLUDED.help_text, updated_at = EXCLUDED.updated_at`, teamID, text, at)
	if err != nil {
		return fmt.Errorf("set help text: %w", err)
	}
	return nil
}

// LockHold takes the team's hold lock for the transaction: shared while a
// text is received, exclusive while held texts are released. So a text
// either is stored before a release looks for held texts, or sees the
// account the release's transaction made current; none stays held by a race.
func (r *Repo) LockHold(ctx context.Context, teamID string, exclusive bool) error {
	fn := "pg_advisory_xact_lock_shared"
	if exclusive {
		fn = "pg_advisory_xact_lock"
	}
	if _, err := r.db.IDB(ctx).ExecContext(ctx, `SELECT `+fn+`(hashtextextended(?, 0))`, "messaging_hold:"+teamID); err != nil {
		return fmt.Errorf("lock hold: %w", err)
	}
	return nil
}

// LockHolds takes the hold locks of several teams, shared, in team order
// (one statement): a batch of texts to many teams.
func (r *Repo) LockHolds(ctx context.Context, teamIDs []string) error {
	ids := append([]string(nil), teamIDs...)
	sort.Strings(ids)
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock_shared(hashtextextended('messaging_hold:' || t, 0))
FROM (SELECT t FROM unnest($1::text[]) WITH ORDINALITY AS v(t, ord) ORDER BY ord) x`, ids)
		return err
	})
	if err != nil {
		return fmt.Errorf("lock holds: %w", err)
	}
	return nil
}
