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

// FanoutArgs hands a batch of a message's deliveries to the carrier: those
// at positions From..To (inclusive; a message's deliveries are numbered 1..n).
type FanoutArgs struct {
	MessageID string `json:"message_id"`
	From      int    `json:"from"`
	To        int    `json:"to"`
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

// Fanout hands queued deliveries to the carrier, after recording the
// message as their numbers' latest broadcast (which inbound replies are
// filed under). It is safe to run again:
// deliveries no longer queued are skipped, and the carrier receives the
// delivery id as its idempotency key, so a crash between the carrier's
// acceptance and MarkSent does not text anyone twice where the carrier
// dedupes (the simulator does; see the Twilio adapter for its window).
// A carrier that takes batches (carrier.BatchSender) gets the whole batch
// in one call and the acceptances are recorded in one statement; any other
// carrier gets one call per text, each acceptance recorded at once so that
// a crash leaves at most one text in doubt.
func (s *Service) Fanout(ctx context.Context, a FanoutArgs) error {
	m, err := s.Repo.MessageByID(ctx, a.MessageID)
	if err != nil {
		return err
	}
	team, err := s.Teams.Team(ctx, m.TeamID)
	if err != nil {
		return err
	}
	ds, err := s.Repo.QueuedDeliveries(ctx, a.MessageID, a.From, a.To)
	if err != nil {
		return err
	}
	msgs := make([]carrier.Message, len(ds))
	phones := make([]string, len(ds))
	for i, d := range ds {
		msgs[i] = carrier.Message{DeliveryID: d.ID, TeamID: m.TeamID, From: team.Number, To: d.Phone, Body: m.Rendered, Segments: m.Segments}
		phones[i] = d.Phone
	}
	// Before the texts leave: a reply to one must find this broadcast.
	if err := s.Repo.RecordBroadcast(ctx, m, phones); err != nil {
		return err
	}
	var transient error
	if bs, ok := s.Carrier.(carrier.BatchSender); ok && len(msgs) > 0 {
		rs, err := bs.SendMany(ctx, msgs)
		if err != nil {
			return fmt.Errorf("fan-out of %s: %w", a.MessageID, err)
		}
		if transient, err = s.accepted(ctx, msgs, rs); err != nil {
			return err
		}
	} else {
		for _, msg := range msgs {
			rc, err := s.Carrier.Send(ctx, msg)
			t, err := s.accepted(ctx, []carrier.Message{msg}, []carrier.Result{{Receipt: rc, Err: err}})
			if err != nil {
				return err
			}
			transient = errors.Join(transient, t)
		}
	}
	if transient != nil {
		return fmt.Errorf("fan-out of %s: %w", a.MessageID, transient)
	}
	_, err = s.Repo.IDB(ctx).NewUpdate().Model((*postgres.Message)(nil)).Set("status = ?", domain.StatusSent).Set("sent_at = ?", s.Clock.Now().UTC()).
		Where("id = ? AND status = ? AND queued_count = 0", a.MessageID, domain.StatusQueued).Exec(ctx)
	return err
}

// accepted records the carrier's answers: acceptances mark their
// deliveries sent, permanent refusals fail them at once (through
// ingestion, so message.status is published), and transient errors are
// returned joined, for the job to retry.
func (s *Service) accepted(ctx context.Context, msgs []carrier.Message, rs []carrier.Result) (transient, err error) {
	now := s.Clock.Now().UTC()
	var sent []postgres.Sent
	var refused []carrier.StatusArgs
	for i, r := range rs {
		d := msgs[i]
		if pe, ok := carrier.IsPermanent(r.Err); ok {
			refused = append(refused, carrier.StatusArgs{DeliveryID: d.DeliveryID, Status: domain.DeliveryFailed, CarrierStatus: "rejected",
				ErrorCode: pe.Code, ErrorMessage: pe.Message, At: now})
			continue
		}
		if r.Err != nil {
			s.Log.Warn("carrier send failed; will retry", "delivery_id", d.DeliveryID, "to", phone.Mask(d.To), "err", r.Err)
			transient = errors.Join(transient, r.Err)
			continue
		}
		sent = append(sent, postgres.Sent{DeliveryID: d.DeliveryID, ProviderMessageID: r.Receipt.ProviderMessageID, CarrierStatus: r.Receipt.Status})
	}
	if err := s.Repo.MarkSent(ctx, sent, now); err != nil {
		return nil, err
	}
	if len(refused) > 0 {
		if err := s.IngestMany(ctx, refused); err != nil {
			return nil, err
		}
	}
	return transient, nil
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

// Ingest applies one carrier status (a status callback's job).
func (s *Service) Ingest(ctx context.Context, a carrier.StatusArgs) error {
	return s.IngestMany(ctx, []carrier.StatusArgs{a})
}

// IngestBatch applies a batch of carrier statuses (a batch report's job).
func (s *Service) IngestBatch(ctx context.Context, a carrier.StatusBatchArgs) error {
	return s.IngestMany(ctx, a.Statuses)
}

// IngestMany applies carrier statuses to their deliveries in one
// transaction: the deliveries are locked in id order, each status is
// applied only if it moves its delivery forward (so duplicate and
// out-of-order reports are no-ops, within a batch too), the changes are
// written in one statement, and each delivery that reached a final status
// publishes message.status once.
func (s *Service) IngestMany(ctx context.Context, as []carrier.StatusArgs) error {
	if len(as) == 0 {
		return nil
	}
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		ids := make([]string, 0, len(as))
		for _, a := range as {
			ids = append(ids, a.DeliveryID)
		}
		ds, err := s.Repo.LockDeliveries(ctx, ids)
		if err != nil {
			return err
		}
		byID := make(map[string]*postgres.Delivery, len(ds))
		for i := range ds {
			byID[ds[i].ID] = &ds[i]
		}
		from := map[string]string{} // the status each changed delivery was locked with
		for _, a := range as {
			d, ok := byID[a.DeliveryID]
			if !ok {
				// One-to-one texts (HELP answers, staff replies; ids "rpl_…") are
				// not broadcast deliveries: their carrier statuses are not tracked.
				level := slog.LevelWarn
				if strings.HasPrefix(a.DeliveryID, "rpl_") {
					level = slog.LevelDebug
				}
				s.Log.Log(ctx, level, "status for unknown delivery ignored", "delivery_id", a.DeliveryID)
				continue
			}
			if rank(a.Status) <= rank(d.Status) {
				continue
			}
			if _, ok := from[d.ID]; !ok {
				from[d.ID] = d.Status
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
		}
		var upd, final []postgres.Delivery
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
		// The shared rows last (the day's counter shard, then the message's
		// counts), so concurrent batches of one broadcast wait on them only
		// for the commit.
		if err := s.publishStatuses(ctx, final); err != nil {
			return err
		}
		if err := s.Repo.CountFinals(ctx, final); err != nil { // analytics: per-day counters (inbound package)
			return err
		}
		return s.Repo.UpdateDeliveries(ctx, upd, old)
	})
}

// publishStatuses publishes message.status for each delivery, in one batch per team.
func (s *Service) publishStatuses(ctx context.Context, ds []postgres.Delivery) error {
	byTeam := map[string][]events.Event{}
	var teams []string
	for _, d := range ds {
		if _, ok := byTeam[d.TeamID]; !ok {
			teams = append(teams, d.TeamID)
		}
		byTeam[d.TeamID] = append(byTeam[d.TeamID], events.Event{TeamID: d.TeamID, Type: events.MessageStatus, Data: StatusPayload{
			MessageID: d.MessageID, DeliveryID: d.ID, ProviderMessageID: d.ProviderMessageID, To: d.Phone, Status: d.Status,
			CarrierStatus: d.CarrierStatus, ErrorCode: d.ErrorCode, ErrorMessage: d.ErrorMessage,
			UpdatedAt: d.UpdatedAt.UTC().Format(time.RFC3339Nano),
		}})
	}
	for _, t := range teams {
		if err := events.PublishAll(ctx, s.Events, t, byTeam[t]); err != nil {
			return err
		}
	}
	return nil
}

// Unconfirm marks deliveries of a message that never got a final status.
func (s *Service) Unconfirm(ctx context.Context, a UnconfirmArgs) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		ds, err := s.Repo.PendingDeliveries(ctx, a.MessageID)
		if err != nil {
			return err
		}
		now := s.Clock.Now().UTC()
		old := make([]string, len(ds))
		for i := range ds {
			old[i] = ds[i].Status
			ds[i].Status, ds[i].UpdatedAt = domain.DeliveryUnconfirmed, now
		}
		if err := s.publishStatuses(ctx, ds); err != nil {
			return err
		}
		return s.Repo.UpdateDeliveries(ctx, ds, old)
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
