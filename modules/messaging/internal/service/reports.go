package service

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
)

// Messages lists a team's messages, delivery counts included (limit+1 rows).
func (s *Service) Messages(ctx context.Context, teamID string, limit, offset int) ([]domain.Message, error) {
	return s.MessageStore.Messages(ctx, teamID, limit, offset)
}

// Message returns one message, delivery counts included.
func (s *Service) Message(ctx context.Context, teamID, messageID string) (*domain.Message, error) {
	m, err := s.MessageStore.Message(ctx, teamID, messageID)
	if err != nil {
		return nil, mapNotFound(err, errMessageNotFound)
	}
	if m.HeldForQuietHours > 0 && m.QueuedCount > 0 {
		if m.HeldNow, err = s.MessageStore.HeldQueued(ctx, m.ID, s.Clock.Now().UTC()); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Deliveries lists a message's deliveries, or only those in status when it
// is not empty (limit+1 rows). 400 for a status deliveries never have.
func (s *Service) Deliveries(ctx context.Context, teamID, messageID, status string, limit, offset int) ([]domain.Delivery, error) {
	if status != "" && !domain.DeliveryStatus(status) {
		return nil, fault.Invalidf("status must be queued, sent, delivered, failed or delivery_unconfirmed")
	}
	ds, err := s.MessageStore.Deliveries(ctx, teamID, messageID, status, limit, offset)
	return ds, mapNotFound(err, errMessageNotFound)
}

// ScheduledList lists pending scheduled sends (limit+1 rows).
func (s *Service) ScheduledList(ctx context.Context, teamID string, limit, offset int) ([]domain.Scheduled, error) {
	return s.ScheduledStore.PendingScheduled(ctx, teamID, limit, offset)
}

// CancelScheduled cancels a pending scheduled send; for a weekly series the
// series ends. Cancelling one that is no longer pending gives 404.
func (s *Service) CancelScheduled(ctx context.Context, teamID, scheduledID string) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		_, err := s.ScheduledStore.UpdateScheduled(ctx, teamID, scheduledID, func(sch *domain.Scheduled) error {
			return sch.Cancel(s.Clock.Now().UTC())
		})
		return mapNotFound(err, errScheduledNotFound)
	})
}
