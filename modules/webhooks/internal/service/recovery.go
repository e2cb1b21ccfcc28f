package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
)

var (
	errDeliveryNotFound = fault.NotFoundf("delivery not found")
	errStillPending     = fault.New(fault.Conflict, fault.CodeConflict,
		"the delivery is still pending: its next attempt is already planned (see next_attempt_at)")
)

// keyOwner checks that memberID may manage webhooks; "" (an operator
// through the admin API) may. It is the rule of the operations the admin
// API runs without a member: throttle, retry, recovery.
func (s *Service) keyOwner(ctx context.Context, teamID, memberID string) error {
	if memberID == "" {
		return nil
	}
	return s.requireKeyOwner(ctx, teamID, memberID)
}

// requireKeyOwner checks that memberID, a member of the team, may manage
// webhooks: an active head coach or team director who may send
// broadcasts (the key's creator, or the dashboard user). It is the rule of
// creating, turning on and rotating, which always act for a member.
func (s *Service) requireKeyOwner(ctx context.Context, teamID, memberID string) error {
	m, err := s.Members.Member(ctx, teamID, memberID)
	if err != nil {
		return err
	}
	if !m.KeyOwner() {
		return errNotKeyOwner
	}
	return nil
}

// SetThrottle sets a webhook's max_per_second (nil: no limit) for
// memberID ("" for an operator). Deliveries already waiting take the new
// pace from their next turn.
func (s *Service) SetThrottle(ctx context.Context, teamID, webhookID, memberID string, n *int) (*domain.Webhook, error) {
	if err := domain.ValidMaxPerSecond(n); err != nil {
		return nil, err
	}
	if err := s.keyOwner(ctx, teamID, memberID); err != nil {
		return nil, err
	}
	out, err := s.updateWebhook(ctx, teamID, webhookID, func(w *domain.Webhook) error {
		return w.SetThrottle(n, s.Clock.Now().UTC())
	})
	if err != nil {
		return nil, err
	}
	s.Logger.Info("webhook throttle set", "team_id", teamID, "webhook_id", webhookID, "max_per_second", n)
	return out, nil
}

// Deliveries lists a webhook's deliveries, newest first (limit+1 rows),
// of one API status ("" all), each with its attempts.
func (s *Service) Deliveries(ctx context.Context, teamID, webhookID, status string, limit, offset int) ([]domain.Listed, error) {
	if _, err := s.Repo.Webhook(ctx, teamID, webhookID); err != nil {
		return nil, mapNotFound(err)
	}
	ds, err := s.Repo.Deliveries(ctx, teamID, webhookID, status, limit, offset)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ds))
	for i := range ds {
		ids[i] = ds[i].ID
	}
	as, err := s.Repo.AttemptsOf(ctx, teamID, ids)
	if err != nil {
		return nil, err
	}
	for i := range ds {
		ds[i].Attempts = as[ds[i].ID]
	}
	return ds, nil
}

// Retry sends an ended delivery (delivered, abandoned or cancelled) again
// now, signed afresh, for memberID ("" for an operator): it starts a new
// round with the spec's retry schedule. A delivery still pending is 409
// conflict (it is sent already), as is a webhook that is off. Under a
// throttle it takes its turn in the webhook's queue.
func (s *Service) Retry(ctx context.Context, teamID, webhookID, deliveryID, memberID string) (*domain.Listed, error) {
	if err := s.keyOwner(ctx, teamID, memberID); err != nil {
		return nil, err
	}
	var out *domain.Delivery
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		w, err := s.Repo.Webhook(ctx, teamID, webhookID)
		if err != nil {
			return mapNotFound(err)
		}
		d, err := s.Repo.UpdateDelivery(ctx, teamID, webhookID, deliveryID, func(d *domain.Delivery) error {
			if !w.Enabled {
				return errWebhookOff
			}
			if !d.Ended() {
				return errStillPending
			}
			d.Restart(s.Clock.Now().UTC())
			return nil
		})
		if errors.Is(err, domain.ErrNotFound) {
			return errDeliveryNotFound
		}
		if err != nil {
			return err
		}
		out = d
		_, err = s.Jobs.Insert(ctx, domain.DeliverArgs{TeamID: teamID, DeliveryID: d.ID, Attempt: d.Attempts + 1},
			&river.InsertOpts{Queue: domain.Queue})
		return err
	})
	if err != nil {
		return nil, err
	}
	s.Logger.Info("webhook delivery retried", "team_id", teamID, "webhook_id", webhookID, "delivery_id", deliveryID)
	ls, err := s.Repo.AttemptsOf(ctx, teamID, []string{out.ID})
	if err != nil {
		return nil, err
	}
	ev, err := s.Path.Work(ctx, teamID, out.ID)
	if err != nil {
		return nil, fmt.Errorf("retried delivery: %w", err)
	}
	return &domain.Listed{Delivery: *out, EventType: ev.EventType, Attempts: ls[out.ID]}, nil
}

// Recover puts every delivery of the webhook created at or after since
// that ended unsent (abandoned, or cancelled when the webhook was turned
// off) back in the webhook's queue, for memberID ("" for an operator), and
// returns how many. One transaction: the deliveries' rows in one statement
// and the webhook's pump job; the pump sends them one at a time in their
// original order, at the webhook's throttle, each with a new round of
// retries. A webhook that is off is 409 conflict.
func (s *Service) Recover(ctx context.Context, teamID, webhookID, memberID string, since time.Time) (int, error) {
	if err := s.keyOwner(ctx, teamID, memberID); err != nil {
		return 0, err
	}
	var n int
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		w, err := s.Repo.Webhook(ctx, teamID, webhookID)
		if err != nil {
			return mapNotFound(err)
		}
		if !w.Enabled {
			return errWebhookOff
		}
		if n, err = s.Repo.Recover(ctx, teamID, webhookID, since, s.Clock.Now().UTC()); err != nil || n == 0 {
			return err
		}
		return s.claimPump(ctx, teamID, webhookID)
	})
	if err != nil {
		return 0, err
	}
	s.Logger.Info("webhook deliveries recovered", "team_id", teamID, "webhook_id", webhookID, "since", since, "count", n)
	return n, nil
}

// claimPump makes sure the webhook's queue has its pump job, in the
// caller's transaction (after queueing).
func (s *Service) claimPump(ctx context.Context, teamID, webhookID string) error {
	claimed, err := s.Repo.ClaimPump(ctx, teamID, webhookID)
	if err != nil || !claimed {
		return err
	}
	_, err = s.Jobs.Insert(ctx, domain.PumpArgs{TeamID: teamID, WebhookID: webhookID}, &river.InsertOpts{Queue: domain.Queue})
	return err
}

// enqueue puts a delivery of a throttled webhook in the webhook's queue
// instead of sending it (its attempt job came due): the pump sends it in
// its turn. Waiting is not an attempt.
func (s *Service) enqueue(ctx context.Context, w *domain.Work, attempt int) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		ok, err := s.Repo.Enqueue(ctx, w.TeamID, w.DeliveryID, attempt, s.Clock.Now().UTC())
		if err != nil || !ok {
			return err
		}
		return s.claimPump(ctx, w.TeamID, w.WebhookID)
	})
}

// pumpBatch is how many queued deliveries a pump reads at a time.
const pumpBatch = 100

// pumpPass bounds one pump run (wall time): then it yields its slot and
// runs again at once, so a long queue does not hold a worker for minutes.
const pumpPass = 2 * time.Second

// Pump sends a webhook's queued deliveries one at a time, in order
// (created_at, id), each as the next attempt of its round, recorded as any
// attempt (a failure schedules its retry, which queues again). Under a
// throttle each goes at its slot: the queue's next slot is kept in
// Postgres (webhook_queues.next_slot_at); when it is ahead, Pump returns
// it and the job snoozes until then (no worker waits). It reports done
// when the queue is empty and the pump ended.
func (s *Service) Pump(ctx context.Context, a domain.PumpArgs) (next time.Time, done bool, err error) {
	start := time.Now()
	stored, err := s.Repo.QueueSlot(ctx, a.WebhookID)
	if err != nil {
		return time.Time{}, false, err
	}
	slot := stored
	save := func() error {
		if slot == nil || slot == stored {
			return nil
		}
		return s.Repo.SaveSlot(ctx, a.WebhookID, *slot)
	}
	limit := pumpBatch
	for {
		batch, err := s.Repo.Queued(ctx, a.TeamID, a.WebhookID, limit)
		if err != nil {
			return time.Time{}, false, errors.Join(err, save())
		}
		if len(batch) == 0 {
			if err := save(); err != nil {
				return time.Time{}, false, err
			}
			done, err := s.Repo.FinishPump(ctx, a.TeamID, a.WebhookID)
			if err != nil || done {
				return time.Time{}, done, err
			}
			continue // queued meanwhile
		}
		if n := batch[0].MaxPerSecond; n != nil {
			limit = min(pumpBatch, *n/5+1) // a pass sends about one slot's worth
		}
		for _, w := range batch {
			if !w.WebhookExists || !w.Enabled {
				n, err := s.Repo.CancelQueued(ctx, a.TeamID, a.WebhookID, s.Clock.Now().UTC())
				if err != nil {
					return time.Time{}, false, errors.Join(err, save())
				}
				s.Logger.Info("queued webhook deliveries cancelled: webhook off", "team_id", a.TeamID, "webhook_id", a.WebhookID, "count", n)
				break
			}
			now := s.Clock.Now()
			var at time.Time
			if w.MaxPerSecond != nil {
				at = domain.NextSlot(slot, now)
				if at.After(now) {
					t := at
					slot = &t
					return at, false, save()
				}
			}
			disabled, err := s.attempt(ctx, w, w.Attempts+1)
			if err != nil {
				return time.Time{}, false, errors.Join(err, save())
			}
			if w.MaxPerSecond != nil {
				t := at.Add(domain.SlotGap(*w.MaxPerSecond))
				slot = &t
			}
			if disabled {
				break // the rest is cancelled by the next read
			}
			if time.Since(start) > pumpPass {
				return s.Clock.Now(), false, save()
			}
		}
	}
}

// attempt sends attempt n of w and records it (the common path of Deliver
// and Pump); it reports whether the failure turned the webhook off.
func (s *Service) attempt(ctx context.Context, w *domain.Work, n int) (bool, error) {
	res := s.Sender.Send(ctx, s.request(w))
	if res.OK() {
		// The common case in one statement: no transaction round trips.
		if _, err := s.Path.RecordSuccess(ctx, attemptRow(w, n, res), s.Clock.Now().UTC()); err != nil {
			return false, fmt.Errorf("record attempt %d of %s: %w", n, w.DeliveryID, err)
		}
		return false, nil
	}
	var disabled bool
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		var err error
		disabled, err = s.recordFailure(ctx, w, n, res)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("record attempt %d of %s: %w", n, w.DeliveryID, err)
	}
	return disabled, nil
}
