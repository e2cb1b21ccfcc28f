package postgres

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/idempotency"
)

// SendStore is the send use cases' store of messages, their deliveries and
// Idempotency-Key records (the service's MessageStore and
// IdempotencyStore): the repository's statements, unchanged, seen through
// domain messages and deliveries.
type SendStore struct{ repo *Repo }

// NewSendStore returns the store.
func NewSendStore(r *Repo) *SendStore { return &SendStore{repo: r} }

// InsertMessage stores a message.
func (s *SendStore) InsertMessage(ctx context.Context, m *domain.Message) error {
	return s.repo.insertMessage(ctx, fromMessage(m))
}

// Message loads a team's message, locked when forUpdate.
func (s *SendStore) Message(ctx context.Context, teamID, id string, forUpdate bool) (*domain.Message, error) {
	m, err := s.repo.message(ctx, teamID, id, forUpdate)
	if err != nil {
		return nil, err
	}
	return toMessage(m), nil
}

// UpdateMessage writes every column of m but its delivery counts.
func (s *SendStore) UpdateMessage(ctx context.Context, m *domain.Message) error {
	return s.repo.updateMessage(ctx, fromMessage(m))
}

// Messages lists a team's messages, newest first, limit+1 rows.
func (s *SendStore) Messages(ctx context.Context, teamID string, limit, offset int) ([]domain.Message, error) {
	ms, err := s.repo.messages(ctx, teamID, "", limit, offset)
	if err != nil {
		return nil, err
	}
	return toMessages(ms), nil
}

// Approvals lists a team's messages awaiting approval, oldest first, limit+1 rows.
func (s *SendStore) Approvals(ctx context.Context, teamID string, limit, offset int) ([]domain.Message, error) {
	ms, err := s.repo.approvals(ctx, teamID, limit, offset)
	if err != nil {
		return nil, err
	}
	return toMessages(ms), nil
}

// ExpireApproval ends a message still awaiting approval.
func (s *SendStore) ExpireApproval(ctx context.Context, messageID string, at time.Time) error {
	return s.repo.ExpireApproval(ctx, messageID, at)
}

// LiveResend returns the id of a live resend of messageID, or "".
func (s *SendStore) LiveResend(ctx context.Context, teamID, messageID string) (string, error) {
	return s.repo.LiveResend(ctx, teamID, messageID)
}

// InsertQueued stores a message's queued deliveries and sets its counts
// and estimated completion (Repo.InsertQueued).
func (s *SendStore) InsertQueued(ctx context.Context, teamID, messageID string, at, done time.Time, ids id.Series, phones []string, memberIDs [][]string, texts []domain.Text, held []time.Time) error {
	return s.repo.InsertQueued(ctx, teamID, messageID, at, done, ids, phones, memberIDs, texts, held)
}

// HeldQueued counts a message's texts still held at now (Repo.HeldQueued).
func (s *SendStore) HeldQueued(ctx context.Context, messageID string, now time.Time) (int, error) {
	return s.repo.HeldQueued(ctx, messageID, now)
}

// CountBroadcast adds a dispatched message to the analytics.
func (s *SendStore) CountBroadcast(ctx context.Context, m *domain.Message, deliveries int, at time.Time) error {
	return s.repo.countBroadcast(ctx, &messageRow{ID: m.ID, TeamID: m.TeamID}, deliveries, at)
}

// Deliveries lists a team's message's deliveries in position order,
// limit+1 rows, or domain.ErrNotFound.
func (s *SendStore) Deliveries(ctx context.Context, teamID, messageID, status string, limit, offset int) ([]domain.Delivery, error) {
	return s.repo.Deliveries(ctx, teamID, messageID, status, limit, offset)
}

// FailedDeliveries returns a message's failed deliveries, in position order.
func (s *SendStore) FailedDeliveries(ctx context.Context, messageID string) ([]domain.FailedDelivery, error) {
	return s.repo.FailedDeliveries(ctx, messageID)
}

// ClaimIdempotencyKey claims an Idempotency-Key (Repo.ClaimIdempotencyKey).
func (s *SendStore) ClaimIdempotencyKey(ctx context.Context, keyID, idemKey string, fingerprint []byte, now, expired time.Time) (*idempotency.Record, error) {
	return s.repo.ClaimIdempotencyKey(ctx, keyID, idemKey, fingerprint, now, expired)
}

// StoreIdempotentAnswer records the answer of the request that claimed the key.
func (s *SendStore) StoreIdempotentAnswer(ctx context.Context, keyID, idemKey string, answer []byte) error {
	return s.repo.StoreIdempotentAnswer(ctx, keyID, idemKey, answer)
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
