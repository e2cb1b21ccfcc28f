package postgres

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// The send use cases' messages (the service's MessageStore and
// IdempotencyStore are kept by the Repo itself): the repository's
// statements seen through domain messages.

// InsertMessage stores a message.
func (r *Repo) InsertMessage(ctx context.Context, m *domain.Message) error {
	return r.insertMessage(ctx, fromMessage(m))
}

// Message loads a team's message.
func (r *Repo) Message(ctx context.Context, teamID, id string) (*domain.Message, error) {
	m := new(messageRow)
	if err := r.selectMessage(ctx, m, teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select message")
	}
	return toMessage(m), nil
}

// LockMessage loads a team's message and locks its row (SELECT ... FOR
// UPDATE) for the rest of the caller's transaction.
func (r *Repo) LockMessage(ctx context.Context, teamID, id string) (*domain.Message, error) {
	m := new(messageRow)
	if err := r.selectMessage(ctx, m, teamID, id).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, "select message")
	}
	return toMessage(m), nil
}

// UpdateMessage loads a team's message locked, lets change alter it and
// writes every column back but its delivery counts (which the deliveries'
// statements move), in one transaction (the caller's, if ctx carries one).
// When change fails nothing is written. It answers the message as written.
func (r *Repo) UpdateMessage(ctx context.Context, teamID, id string, change func(*domain.Message) error) (*domain.Message, error) {
	var out *domain.Message
	err := r.db.Tx(ctx, func(ctx context.Context) error {
		m, err := r.LockMessage(ctx, teamID, id)
		if err != nil {
			return err
		}
		if err := change(m); err != nil {
			return err
		}
		if err := r.updateMessage(ctx, fromMessage(m)); err != nil {
			return err
		}
		out = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Messages lists a team's messages, newest first, limit+1 rows.
func (r *Repo) Messages(ctx context.Context, teamID string, limit, offset int) ([]domain.Message, error) {
	ms, err := r.messages(ctx, teamID, "", limit, offset)
	if err != nil {
		return nil, err
	}
	return toMessages(ms), nil
}

// Approvals lists a team's messages awaiting approval, oldest first, limit+1 rows.
func (r *Repo) Approvals(ctx context.Context, teamID string, limit, offset int) ([]domain.Message, error) {
	ms, err := r.approvals(ctx, teamID, limit, offset)
	if err != nil {
		return nil, err
	}
	return toMessages(ms), nil
}

// CountBroadcast adds a dispatched message to the analytics.
func (r *Repo) CountBroadcast(ctx context.Context, m *domain.Message, deliveries int, at time.Time) error {
	return r.countBroadcast(ctx, &messageRow{ID: m.ID, TeamID: m.TeamID}, deliveries, at)
}

func toMessage(r *messageRow) *domain.Message {
	return &domain.Message{ID: r.ID, TeamID: r.TeamID, KeyID: r.KeyID, MemberID: r.MemberID, Source: domain.Source(r.Source), Audience: r.Audience,
		GroupID: r.GroupID, TemplateID: r.TemplateID, ScheduledID: r.ScheduledID, Text: r.Text, Rendered: r.Rendered,
		Encoding: r.Encoding, Segments: r.Segments, Recipients: r.Recipients, Status: r.Status, Urgent: r.Urgent,
		CreatedAt: r.CreatedAt, DecidedAt: r.DecidedAt, DecidedBy: r.DecidedBy, SentAt: r.SentAt,
		EstimatedCompletion: r.EstimatedCompletion, SkippedUndeliverable: r.SkippedUndeliverable, ResendOf: r.ResendOf, Credits: r.Credits,
		QueuedCount: r.QueuedCount, SentCount: r.SentCount, DeliveredCount: r.DeliveredCount, FailedCount: r.FailedCount,
		UnconfirmedCount: r.UnconfirmedCount, SkippedCount: r.SkippedCount, HeldForQuietHours: r.HeldForQuietHours,
		ReplyOptions: r.ReplyOptions, ReplyUntil: r.ReplyUntil}
}

func fromMessage(m *domain.Message) *messageRow {
	return &messageRow{ID: m.ID, TeamID: m.TeamID, KeyID: m.KeyID, MemberID: m.MemberID, Source: string(m.Source), Audience: m.Audience,
		GroupID: m.GroupID, TemplateID: m.TemplateID, ScheduledID: m.ScheduledID, Text: m.Text, Rendered: m.Rendered,
		Encoding: m.Encoding, Segments: m.Segments, Recipients: m.Recipients, Status: m.Status, Urgent: m.Urgent,
		CreatedAt: m.CreatedAt, DecidedAt: m.DecidedAt, DecidedBy: m.DecidedBy, SentAt: m.SentAt,
		EstimatedCompletion: m.EstimatedCompletion, SkippedUndeliverable: m.SkippedUndeliverable, ResendOf: m.ResendOf, Credits: m.Credits,
		QueuedCount: m.QueuedCount, SentCount: m.SentCount, DeliveredCount: m.DeliveredCount, FailedCount: m.FailedCount,
		UnconfirmedCount: m.UnconfirmedCount, SkippedCount: m.SkippedCount, HeldForQuietHours: m.HeldForQuietHours,
		ReplyOptions: m.ReplyOptions, ReplyUntil: m.ReplyUntil}
}

func toMessages(rs []messageRow) []domain.Message {
	out := make([]domain.Message, len(rs))
	for i := range rs {
		out[i] = *toMessage(&rs[i])
	}
	return out
}
