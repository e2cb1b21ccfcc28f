package service

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/fault"
)

// MessageView is a message with its delivery counts.
type MessageView struct {
	postgres.Message
	Counts postgres.Counts
}

// Messages lists a team's messages with counts (limit+1 rows).
func (s *Service) Messages(ctx context.Context, teamID string, limit, offset int) ([]MessageView, error) {
	ms, err := s.Repo.Messages(ctx, teamID, "", limit, offset)
	if err != nil {
		return nil, err
	}
	return s.withCounts(ctx, ms)
}

func (s *Service) withCounts(ctx context.Context, ms []postgres.Message) ([]MessageView, error) {
	ids := make([]string, len(ms))
	for i := range ms {
		ids[i] = ms[i].ID
	}
	counts, err := s.Repo.Counts(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]MessageView, len(ms))
	for i := range ms {
		out[i] = MessageView{Message: ms[i], Counts: counts[ms[i].ID]}
	}
	return out, nil
}

// Message returns one message with counts.
func (s *Service) Message(ctx context.Context, teamID, messageID string) (*MessageView, error) {
	m, err := s.Repo.Message(ctx, teamID, messageID, false)
	if err != nil {
		return nil, mapNotFound(err, errMessageNotFound)
	}
	vs, err := s.withCounts(ctx, []postgres.Message{*m})
	if err != nil {
		return nil, err
	}
	return &vs[0], nil
}

// Deliveries lists a message's deliveries (limit+1 rows).
func (s *Service) Deliveries(ctx context.Context, teamID, messageID string, limit, offset int) ([]postgres.Delivery, error) {
	if _, err := s.Repo.Message(ctx, teamID, messageID, false); err != nil {
		return nil, mapNotFound(err, errMessageNotFound)
	}
	return s.Repo.Deliveries(ctx, messageID, limit, offset)
}

// ScheduledList lists pending scheduled sends (limit+1 rows).
func (s *Service) ScheduledList(ctx context.Context, teamID string, limit, offset int) ([]postgres.Scheduled, error) {
	return s.Repo.PendingScheduled(ctx, teamID, limit, offset)
}

// CancelScheduled cancels a pending scheduled send; for a weekly series the
// series ends. Cancelling one that is no longer pending gives 404.
func (s *Service) CancelScheduled(ctx context.Context, teamID, scheduledID string) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		sch, err := s.Repo.Scheduled(ctx, teamID, scheduledID)
		if err != nil {
			return mapNotFound(err, errScheduledNotFound)
		}
		if sch.Status != "pending" {
			return fault.NotFoundf("scheduled message not found (it is %s)", sch.Status)
		}
		sch.Status, sch.StatusReason, sch.UpdatedAt = "cancelled", "cancelled", s.Clock.Now().UTC()
		return s.Repo.UpdateScheduled(ctx, sch)
	})
}
