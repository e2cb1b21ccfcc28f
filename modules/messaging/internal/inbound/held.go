package inbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/events"
)

// ReleaserDeps are the releaser's collaborators (the event publisher
// excepted: see Releaser).
type ReleaserDeps struct {
	Tx    Transactor
	Store HoldStore
	Clock clock.Clock
	Log   *slog.Logger
}

// Releaser makes held texts visible when a team's overdue renewal is paid.
// It is billing's PaymentListener (fx group "payment_recovered"), so it
// cannot take the event publisher in its constructor: the publisher (the
// webhooks event log) reads billing accounts, and billing takes the
// listeners. The publisher is bound once at start-up with Bind instead.
type Releaser struct {
	d      ReleaserDeps
	events events.Publisher
}

var _ billingapi.PaymentListener = (*Releaser)(nil)

// NewReleaser returns a releaser; call Bind before it is used.
func NewReleaser(d ReleaserDeps) *Releaser { return &Releaser{d: d} }

// Bind sets the event publisher. It is called once while the application
// is assembled, before any request or job runs.
func (r *Releaser) Bind(p events.Publisher) { r.events = p }

// ReleaseHeld publishes message.received for each of the team's held texts
// in arrival order, makes them visible (GET /inbound-messages, the inbox)
// and counts them in analytics on the day they arrived, all in the caller's
// transaction (carried by ctx), or its own. It returns how many it released.
func (r *Releaser) ReleaseHeld(ctx context.Context, teamID string) (int, error) {
	if r.events == nil {
		return 0, errors.New("inbound: releaser used before Bind")
	}
	var n int
	err := r.d.Tx.Tx(ctx, func(ctx context.Context) error {
		if err := r.d.Store.LockHold(ctx, teamID, true); err != nil {
			return err
		}
		held, err := r.d.Store.HeldInbound(ctx, teamID)
		if err != nil {
			return err
		}
		now := r.d.Clock.Now().UTC()
		ids := make([]string, len(held))
		for i := range held {
			held[i].Release(now)
			if err := r.announce(ctx, &held[i]); err != nil {
				return err
			}
			ids[i] = held[i].ID
		}
		n = len(held)
		return r.d.Store.ReleaseInbound(ctx, teamID, ids, now)
	})
	if err == nil && n > 0 {
		r.d.Log.Info("held inbound texts released", "team_id", teamID, "count", n)
	}
	return n, err
}

// announce makes a released text count in analytics and publishes
// message.received, in the caller's transaction.
func (r *Releaser) announce(ctx context.Context, in *domain.Inbound) error {
	if err := r.d.Store.CountReceived(ctx, in); err != nil {
		return err
	}
	if err := r.events.Publish(ctx, events.Event{TeamID: in.TeamID, Type: events.MessageReceived, Data: ReceivedFrom(in)}); err != nil {
		return fmt.Errorf("publish message.received: %w", err)
	}
	return nil
}

// OnPaymentRecovered implements billingapi.PaymentListener: billing calls
// it in the transaction that moves the team's payment from overdue to ok.
func (r *Releaser) OnPaymentRecovered(ctx context.Context, teamID string) error {
	_, err := r.ReleaseHeld(ctx, teamID)
	return err
}
