package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

// FanoutArgs hands a batch of a message's deliveries to the carrier.
type FanoutArgs struct {
	MessageID   string   `json:"message_id"`
	DeliveryIDs []string `json:"delivery_ids"`
}

// Kind names the job.
func (FanoutArgs) Kind() string { return "messaging.fanout" }

// UnconfirmArgs marks a message's deliveries still without a final status
// as delivery_unconfirmed once UnconfirmedAfter has passed.
type UnconfirmArgs struct {
	MessageID string `json:"message_id"`
}

// Kind names the job.
func (UnconfirmArgs) Kind() string { return "messaging.unconfirm" }

// ExpireArgs expires a message still awaiting approval.
type ExpireArgs struct {
	MessageID string `json:"message_id"`
}

// Kind names the job.
func (ExpireArgs) Kind() string { return "messaging.expire_approval" }

// ScheduledArgs runs one occurrence of a scheduled send. Run is the
// occurrence number; a job whose Run no longer matches is stale and does nothing.
type ScheduledArgs struct {
	ScheduledID string `json:"scheduled_id"`
	Run         int    `json:"run"`
}

// Kind names the job.
func (ScheduledArgs) Kind() string { return "messaging.scheduled" }

// Fanout hands queued deliveries to the carrier. It is safe to run again:
// deliveries no longer queued are skipped, and the carrier receives the
// delivery id as its idempotency key, so a crash between the carrier's
// acceptance and MarkSent does not text anyone twice where the carrier
// dedupes (the simulator does; see the Twilio adapter for its window).
func (s *Service) Fanout(ctx context.Context, a FanoutArgs) error {
	m, err := s.Repo.MessageByID(ctx, a.MessageID)
	if err != nil {
		return err
	}
	team, err := s.Teams.Team(ctx, m.TeamID)
	if err != nil {
		return err
	}
	ds, err := s.Repo.DeliveriesByID(ctx, a.DeliveryIDs)
	if err != nil {
		return err
	}
	var transient error
	for _, d := range ds {
		if d.Status != domain.DeliveryQueued {
			continue
		}
		rc, err := s.Carrier.Send(ctx, carrier.Message{DeliveryID: d.ID, TeamID: m.TeamID, From: team.Number, To: d.Phone,
			Body: m.Rendered, Segments: m.Segments})
		if pe, ok := carrier.IsPermanent(err); ok {
			if err := s.Ingest(ctx, carrier.StatusArgs{DeliveryID: d.ID, Status: domain.DeliveryFailed, CarrierStatus: "rejected",
				ErrorCode: pe.Code, ErrorMessage: pe.Message, At: s.Clock.Now().UTC()}); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			s.Log.Warn("carrier send failed; will retry", "delivery_id", d.ID, "to", phone.Mask(d.Phone), "err", err)
			transient = errors.Join(transient, err)
			continue
		}
		if err := s.Repo.MarkSent(ctx, d.ID, rc.ProviderMessageID, rc.Status, s.Clock.Now().UTC()); err != nil {
			return err
		}
	}
	if transient != nil {
		return fmt.Errorf("fan-out of %s: %w", a.MessageID, transient)
	}
	_, err = s.Repo.IDB(ctx).NewUpdate().Model((*postgres.Message)(nil)).Set("status = ?", domain.StatusSent).Set("sent_at = ?", s.Clock.Now().UTC()).
		Where("id = ? AND status = ?", a.MessageID, domain.StatusQueued).
		Where("NOT EXISTS (SELECT 1 FROM messaging_deliveries WHERE message_id = ? AND status = 'queued')", a.MessageID).Exec(ctx)
	return err
}

// rank orders delivery statuses: a status never moves backwards, and the
// first final status wins. Duplicate and out-of-order callbacks are no-ops.
func rank(status string) int {
	switch status {
	case domain.DeliveryQueued:
		return 0
	case domain.DeliverySent:
		return 1
	}
	return 2
}

// StatusPayload is the data of the message.status event.
type StatusPayload struct {
	MessageID         string `json:"message_id"`
	DeliveryID        string `json:"delivery_id"`
	ProviderMessageID string `json:"provider_message_id"`
	To                string `json:"to"`
	Status            string `json:"status"`
	CarrierStatus     string `json:"carrier_status"`
	ErrorCode         string `json:"error_code"`
	ErrorMessage      string `json:"error_message"`
	UpdatedAt         string `json:"updated_at"`
}

// Ingest applies a carrier status to its delivery in one transaction and,
// when the status is final, publishes message.status once.
func (s *Service) Ingest(ctx context.Context, a carrier.StatusArgs) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		d, err := s.Repo.Delivery(ctx, a.DeliveryID)
		if errors.Is(err, postgres.ErrNotFound) {
			// One-to-one texts (HELP answers, staff replies; ids "rpl_…") are
			// not broadcast deliveries: their carrier statuses are not tracked.
			level := slog.LevelWarn
			if strings.HasPrefix(a.DeliveryID, "rpl_") {
				level = slog.LevelDebug
			}
			s.Log.Log(ctx, level, "status for unknown delivery ignored", "delivery_id", a.DeliveryID)
			return nil
		}
		if err != nil {
			return err
		}
		if rank(a.Status) <= rank(d.Status) {
			return nil
		}
		d.Status, d.CarrierStatus, d.UpdatedAt = a.Status, a.CarrierStatus, a.At.UTC()
		if a.ProviderMessageID != "" {
			d.ProviderMessageID = a.ProviderMessageID
		}
		if a.Status == domain.DeliveryFailed {
			d.ErrorCode, d.ErrorMessage = a.ErrorCode, a.ErrorMessage
		}
		if d.SentAt == nil {
			d.SentAt = &d.UpdatedAt
		}
		if err := s.Repo.UpdateDelivery(ctx, d); err != nil {
			return err
		}
		if err := s.Repo.CountFinal(ctx, d); err != nil { // analytics: per-day counters (inbound package)
			return err
		}
		if !domain.IsFinal(d.Status) {
			return nil
		}
		return s.publishStatus(ctx, d)
	})
}

func (s *Service) publishStatus(ctx context.Context, d *postgres.Delivery) error {
	return s.Events.Publish(ctx, events.Event{TeamID: d.TeamID, Type: events.MessageStatus, Data: StatusPayload{
		MessageID: d.MessageID, DeliveryID: d.ID, ProviderMessageID: d.ProviderMessageID, To: d.Phone, Status: d.Status,
		CarrierStatus: d.CarrierStatus, ErrorCode: d.ErrorCode, ErrorMessage: d.ErrorMessage,
		UpdatedAt: d.UpdatedAt.UTC().Format(time.RFC3339Nano),
	}})
}

// Unconfirm marks deliveries of a message that never got a final status.
func (s *Service) Unconfirm(ctx context.Context, a UnconfirmArgs) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		ds, err := s.Repo.PendingDeliveries(ctx, a.MessageID)
		if err != nil {
			return err
		}
		now := s.Clock.Now().UTC()
		for i := range ds {
			d := &ds[i]
			d.Status, d.UpdatedAt = domain.DeliveryUnconfirmed, now
			if err := s.Repo.UpdateDelivery(ctx, d); err != nil {
				return err
			}
			if err := s.publishStatus(ctx, d); err != nil {
				return err
			}
		}
		return nil
	})
}

// Expire ends a message still awaiting approval: it will never be sent.
func (s *Service) Expire(ctx context.Context, a ExpireArgs) error {
	_, err := s.Repo.IDB(ctx).NewUpdate().Model((*postgres.Message)(nil)).Set("status = ?", domain.StatusExpired).
		Set("decided_at = ?", s.Clock.Now().UTC()).Where("id = ? AND status = ?", a.MessageID, domain.StatusPendingApproval).Exec(ctx)
	return err
}

// Approvals lists messages awaiting approval, oldest first (limit+1 rows).
func (s *Service) Approvals(ctx context.Context, teamID string, limit, offset int) ([]postgres.Message, error) {
	var ms []postgres.Message
	err := s.Repo.IDB(ctx).NewSelect().Model(&ms).Where("team_id = ? AND status = ?", teamID, domain.StatusPendingApproval).
		OrderExpr("created_at, id").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	return ms, err
}

// Decide approves or rejects a message awaiting approval. The approver
// must be a head coach or team director. Approving resolves the recipients
// now and sends; rejecting means it is never sent.
func (s *Service) Decide(ctx context.Context, teamID, messageID, approverID string, approve bool) (*postgres.Message, error) {
	var out *postgres.Message
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		approver, err := s.Members.Member(ctx, teamID, approverID)
		if err != nil {
			return err
		}
		if !approver.KeyOwner() {
			return fault.New(fault.Forbidden, fault.CodeForbidden, "only a head coach or team director can approve or reject sends")
		}
		m, err := s.Repo.Message(ctx, teamID, messageID, true)
		if err != nil {
			return mapNotFound(err, errMessageNotFound)
		}
		if m.Status != domain.StatusPendingApproval {
			return fault.Newf(fault.Conflict, fault.CodeConflict, "the message is %s, not pending_approval", m.Status)
		}
		now := s.Clock.Now().UTC()
		m.DecidedAt, m.DecidedBy = &now, approverID
		out = m
		if !approve {
			m.Status = domain.StatusRejected
			return s.Repo.UpdateMessage(ctx, m)
		}
		rs, err := s.Audience.Recipients(ctx, teamID, m.Audience, m.GroupID)
		if err != nil {
			return err
		}
		p := &Plan{}
		p.Phones, p.MemberIDs = dedupe(rs)
		m.Status, m.Recipients = domain.StatusQueued, len(p.Phones)
		if len(p.Phones) == 0 {
			m.Status = domain.StatusSent
		}
		if err := s.Repo.UpdateMessage(ctx, m); err != nil {
			return err
		}
		return s.dispatch(ctx, m, p)
	})
	return out, err
}

// RunScheduled sends one occurrence of a scheduled send, checked like a new
// send (gates and approval rules included). A refused occurrence stops the
// series; one that waits for approval counts as sent. A weekly series then
// schedules the next week at the same local time (DST-correct) in the same
// transaction.
func (s *Service) RunScheduled(ctx context.Context, a ScheduledArgs) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		sch, err := s.Repo.Scheduled(ctx, "", a.ScheduledID)
		if errors.Is(err, postgres.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if sch.Status != "pending" || sch.Runs != a.Run {
			return nil // cancelled, stopped, or a stale job
		}
		var in SendInput
		if err := json.Unmarshal(sch.Request, &in); err != nil {
			return fmt.Errorf("scheduled %s request: %w", sch.ID, err)
		}
		snd := Sender{TeamID: sch.TeamID, KeyID: sch.KeyID, MemberID: sch.MemberID, Source: "schedule"}
		now := s.Clock.Now().UTC()
		sch.Runs++
		sch.UpdatedAt = now
		err = s.DB.Tx(ctx, func(ctx context.Context) error {
			p, err := s.prepare(ctx, snd, in, true)
			if err != nil {
				return err
			}
			_, err = s.createMessage(ctx, snd, in, p, sch.ID)
			return err
		})
		var f *fault.Error
		if errors.As(err, &f) {
			s.Log.Info("scheduled send refused; series stops", "scheduled_id", sch.ID, "code", f.Code)
			sch.Status, sch.StatusReason = "stopped", f.Code
			return s.Repo.UpdateScheduled(ctx, sch)
		}
		if err != nil {
			return err
		}
		if sch.RepeatEvery == "week" {
			team, err := s.Teams.Team(ctx, sch.TeamID)
			if err != nil {
				return err
			}
			loc, err := time.LoadLocation(team.TimeZone)
			if err != nil {
				return err
			}
			next := domain.NextWeek(sch.ScheduledFor, loc)
			if sch.RepeatUntil != nil && domain.WithinUntil(next, *sch.RepeatUntil, loc) {
				sch.ScheduledFor = next.UTC()
				if err := s.Repo.UpdateScheduled(ctx, sch); err != nil {
					return err
				}
				_, err := s.Jobs.Insert(ctx, ScheduledArgs{ScheduledID: sch.ID, Run: sch.Runs}, &river.InsertOpts{ScheduledAt: sch.ScheduledFor})
				return err
			}
		}
		sch.Status = "completed"
		return s.Repo.UpdateScheduled(ctx, sch)
	})
}
