package postgres

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// DeliveryStore is status ingestion's store (ingest.Store): the
// repository's delivery statements, seen through domain deliveries.
type DeliveryStore struct{ repo *Repo }

// NewDeliveryStore returns the store.
func NewDeliveryStore(r *Repo) *DeliveryStore { return &DeliveryStore{repo: r} }

// LockDeliveries loads and locks deliveries by id, in id order.
func (s *DeliveryStore) LockDeliveries(ctx context.Context, ids []string) ([]domain.Delivery, error) {
	ds, err := s.repo.lockDeliveries(ctx, ids)
	return toDomainDeliveries(ds), err
}

// PendingDeliveries loads and locks a message's deliveries without a final status.
func (s *DeliveryStore) PendingDeliveries(ctx context.Context, messageID string) ([]domain.Delivery, error) {
	ds, err := s.repo.pendingDeliveries(ctx, messageID)
	return toDomainDeliveries(ds), err
}

// UpdateDeliveries writes the deliveries' status columns and moves their messages' counts.
func (s *DeliveryStore) UpdateDeliveries(ctx context.Context, ds []domain.Delivery, from []string) error {
	return s.repo.updateDeliveries(ctx, fromDomainDeliveries(ds), from)
}

// CountFinals adds newly final deliveries to the analytics.
func (s *DeliveryStore) CountFinals(ctx context.Context, ds []domain.Delivery) error {
	return s.repo.countFinals(ctx, fromDomainDeliveries(ds))
}

func toDomainDeliveries(ds []deliveryRow) []domain.Delivery {
	out := make([]domain.Delivery, len(ds))
	for i, d := range ds {
		out[i] = domain.Delivery{ID: d.ID, TeamID: d.TeamID, MessageID: d.MessageID, Phone: d.Phone, MemberIDs: d.MemberIDs, Seq: d.Seq, Status: d.Status,
			CarrierStatus: d.CarrierStatus, ProviderMessageID: d.ProviderMessageID, ErrorCode: d.ErrorCode,
			ErrorMessage: d.ErrorMessage, SentAt: d.SentAt, UpdatedAt: d.UpdatedAt}
	}
	return out
}

func fromDomainDeliveries(ds []domain.Delivery) []deliveryRow {
	out := make([]deliveryRow, len(ds))
	for i, d := range ds {
		out[i] = deliveryRow{ID: d.ID, TeamID: d.TeamID, MessageID: d.MessageID, Phone: d.Phone, MemberIDs: d.MemberIDs, Seq: d.Seq, Status: d.Status,
			CarrierStatus: d.CarrierStatus, ProviderMessageID: d.ProviderMessageID, ErrorCode: d.ErrorCode,
			ErrorMessage: d.ErrorMessage, SentAt: d.SentAt, UpdatedAt: d.UpdatedAt}
	}
	return out
}
