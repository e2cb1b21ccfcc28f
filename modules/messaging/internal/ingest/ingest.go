// Package ingest applies what is learnt about texts already sent: carrier
// status reports (in any order, any number of times), the carrier's refusal
// at hand-over, an opt-out that stopped a queued text, and the unconfirmed
// timeout. A delivery's status moves forward only (domain.Delivery.Apply),
// its message's counts follow in the same statement, and each delivery
// that reaches a final status publishes message.status exactly once.
package ingest

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
)

// Store is what ingestion needs of the database.
type Store interface {
	// LockDeliveries loads deliveries by id, locked, in id order (every
	// writer of several deliveries locks in that order, so none deadlocks).
	LockDeliveries(ctx context.Context, ids []string) ([]domain.Delivery, error)
	// PendingDeliveries loads, locked, a message's deliveries that have no
	// final status yet.
	PendingDeliveries(ctx context.Context, messageID string) ([]domain.Delivery, error)
	// UpdateDeliveries writes the status columns of ds, whose statuses were
	// from[i] when locked, and moves their messages' counts, in one statement.
	UpdateDeliveries(ctx context.Context, ds []domain.Delivery, from []string) error
	// CountFinals adds deliveries that just became final to the analytics.
	CountFinals(ctx context.Context, ds []domain.Delivery) error
	// LockMessages locks messages in id order (as a hand-over does).
	LockMessages(ctx context.Context, ids []string) error
}

// Service is the ingestion use case.
type Service struct {
	db    *db.DB
	store Store
	// staging, when set, holds the reports callbacks staged (staged.go).
	staging Staging
	events  events.Publisher
	clock   clock.Clock
	log     *slog.Logger
	lag     prometheus.Observer // seconds from a carrier's report to its ingestion
	// numbers, when set, keeps the numbers' failure streaks (numbers.go).
	numbers *Numbers
}

// New returns the service. lag may be nil.
func New(d *db.DB, s Store, pub events.Publisher, clk clock.Clock, log *slog.Logger, lag prometheus.Observer) *Service {
	return &Service{db: d, store: s, events: pub, clock: clk, log: log, lag: lag}
}

// Staged makes s ingest the reports staged in st (FileNext).
func (s *Service) Staged(st Staging) *Service {
	s.staging = st
	return s
}

// UnconfirmedAfter is how long a delivery may wait for the carrier's final
// word before it becomes delivery_unconfirmed (the spec allows up to 72 h).
const UnconfirmedAfter = 72 * time.Hour

// UnconfirmArgs marks a message's deliveries still without a final status
// as delivery_unconfirmed once UnconfirmedAfter has passed.
type UnconfirmArgs struct {
	MessageID string `json:"message_id"`
}

// Kind names the job.
func (UnconfirmArgs) Kind() string { return "messaging.unconfirm" }

// Ingest applies one carrier status (a status callback's job).
func (s *Service) Ingest(ctx context.Context, a carrier.StatusArgs) error {
	return s.Apply(ctx, []carrier.StatusArgs{a})
}

// IngestBatch applies a batch of carrier statuses (a batch report's job).
func (s *Service) IngestBatch(ctx context.Context, a carrier.StatusBatchArgs) error {
	return s.Apply(ctx, a.Statuses)
}

// Apply applies statuses to their deliveries in one transaction (the
// caller's, if ctx carries one): the deliveries are locked in id order,
// each status moves its delivery only forward (so duplicate and
// out-of-order reports are no-ops, within a batch too), the changes are
// written in one statement, and each delivery that reached a final status
// publishes message.status once.
func (s *Service) Apply(ctx context.Context, as []carrier.StatusArgs) error {
	if len(as) == 0 {
		return nil
	}
	return s.db.Tx(ctx, func(ctx context.Context) error {
		ids := make([]string, 0, len(as))
		for _, a := range as {
			ids = append(ids, a.DeliveryID)
		}
		ds, err := s.store.LockDeliveries(ctx, ids)
		if err != nil {
			return err
		}
		byID := make(map[string]*domain.Delivery, len(ds))
		for i := range ds {
			byID[ds[i].ID] = &ds[i]
		}
		from := map[string]string{} // the status each changed delivery was locked with
		var words []finalWord       // deliveries that became final, in order (numbers.go)
		now := s.clock.Now()
		for _, a := range as {
			d, ok := byID[a.DeliveryID]
			if !ok {
				// One-to-one texts (HELP answers, staff replies; ids "rpl_…") are
				// not broadcast deliveries: their carrier statuses are not tracked.
				level := slog.LevelWarn
				if strings.HasPrefix(a.DeliveryID, "rpl_") {
					level = slog.LevelDebug
				}
				s.log.Log(ctx, level, "status for unknown delivery ignored", "delivery_id", a.DeliveryID)
				continue
			}
			was := d.Status
			if !d.Apply(report(a)) {
				continue
			}
			if _, ok := from[d.ID]; !ok {
				from[d.ID] = was
			}
			if domain.IsFinal(d.Status) {
				words = append(words, finalWord{teamID: d.TeamID, phone: d.Phone, status: d.Status, code: d.ErrorCode, at: a.At})
			}
			if s.lag != nil && !a.At.IsZero() {
				s.lag.Observe(max(now.Sub(a.At), 0).Seconds())
			}
		}
		var upd, final []domain.Delivery
		var old []string
		for _, d := range ds {
			was, ok := from[d.ID]
			if !ok {
				continue
			}
			upd, old = append(upd, d), append(old, was)
			if domain.IsFinal(d.Status) {
				final = append(final, d)
			}
		}
		// The shared rows last, in the order every writer takes them: the
		// messages (in id order, as a hand-over locks them), then the day's
		// counter shard (a hand-over that refuses a text takes its messages,
		// then the shard). A batch of several messages' reports that took
		// them in the order its statement met them deadlocked with a
		// hand-over of the same messages.
		if err := s.lockMessages(ctx, upd); err != nil {
			return err
		}
		if err := s.publish(ctx, final); err != nil {
			return err
		}
		if err := s.store.CountFinals(ctx, final); err != nil {
			return err
		}
		if err := s.store.UpdateDeliveries(ctx, upd, old); err != nil {
			return err
		}
		// The numbers' streaks last of all: their rows are shared across
		// messages, and every writer takes them last, in (team, phone) order.
		return s.noteNumbers(ctx, words)
	})
}

// lockMessages locks the messages of ds (the statement takes them in id order).
func (s *Service) lockMessages(ctx context.Context, ds []domain.Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.MessageID
	}
	return s.store.LockMessages(ctx, ids)
}

func report(a carrier.StatusArgs) domain.Report {
	return domain.Report{Status: a.Status, CarrierStatus: a.CarrierStatus, ProviderMessageID: a.ProviderMessageID,
		ErrorCode: a.ErrorCode, ErrorMessage: a.ErrorMessage, At: a.At}
}

// Unconfirm marks deliveries of a message that never got a final status.
func (s *Service) Unconfirm(ctx context.Context, a UnconfirmArgs) error {
	return s.db.Tx(ctx, func(ctx context.Context) error {
		ds, err := s.store.PendingDeliveries(ctx, a.MessageID)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		old := make([]string, len(ds))
		for i := range ds {
			old[i] = ds[i].Status
			ds[i].Apply(domain.Report{Status: domain.DeliveryUnconfirmed, CarrierStatus: ds[i].CarrierStatus, At: now})
		}
		if err := s.publish(ctx, ds); err != nil {
			return err
		}
		return s.store.UpdateDeliveries(ctx, ds, old)
	})
}

// publish publishes message.status for each delivery, in one batch per team.
func (s *Service) publish(ctx context.Context, ds []domain.Delivery) error {
	evs := make([]events.Event, len(ds))
	for i, d := range ds {
		evs[i] = events.Event{TeamID: d.TeamID, Type: events.MessageStatus, Data: messagingapi.StatusPayload{
			MessageID: d.MessageID, DeliveryID: d.ID, ProviderMessageID: d.ProviderMessageID, To: d.Phone, Status: d.Status,
			CarrierStatus: d.CarrierStatus, ErrorCode: d.ErrorCode, ErrorMessage: d.ErrorMessage,
			UpdatedAt: d.UpdatedAt.UTC().Format(time.RFC3339Nano),
		}}
	}
	return events.PublishAcross(ctx, s.events, evs)
}
