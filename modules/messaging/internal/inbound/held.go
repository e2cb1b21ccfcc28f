package inbound

import (
	"context"
	"errors"
	"log/slog"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
)

// Releaser makes held texts visible when a team's overdue renewal is paid.
// It is billing's PaymentListener (fx group "payment_recovered"), so it
// cannot take the event publisher in its constructor: the publisher (the
// webhooks event log) reads billing accounts, and billing takes the
// listeners. The publisher is bound once at start-up with Bind instead.
type Releaser struct {
	db     *db.DB
	repo   *postgres.Repo
	clock  clock.Clock
	log    *slog.Logger
	events events.Publisher
}

var _ billingapi.PaymentListener = (*Releaser)(nil)

// NewReleaser returns a releaser; call Bind before it is used.
func NewReleaser(d *db.DB, repo *postgres.Repo, clk clock.Clock, log *slog.Logger) *Releaser {
	return &Releaser{db: d, repo: repo, clock: clk, log: log}
}

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
	err := r.db.Tx(ctx, func(ctx context.Context) error {
		if err := r.repo.LockHold(ctx, teamID, true); err != nil {
			return err
		}
		held, err := r.repo.HeldInbound(ctx, teamID)
		if err != nil {
			return err
		}
		ids := make([]string, len(held))
		for i := range held {
			held[i].Held = false
			if err := announce(ctx, r.repo, r.events, &held[i]); err != nil {
				return err
			}
			ids[i] = held[i].ID
		}
		n = len(held)
		return r.repo.ReleaseInbound(ctx, teamID, ids, r.clock.Now().UTC())
	})
	if err == nil && n > 0 {
		r.log.Info("held inbound texts released", "team_id", teamID, "count", n)
	}
	return n, err
}

// OnPaymentRecovered implements billingapi.PaymentListener: billing calls
// it in the transaction that moves the team's payment from overdue to ok.
func (r *Releaser) OnPaymentRecovered(ctx context.Context, teamID string) error {
	_, err := r.ReleaseHeld(ctx, teamID)
	return err
}
