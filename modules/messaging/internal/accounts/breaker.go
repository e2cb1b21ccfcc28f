package accounts

import (
	"context"
	"fmt"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
)

// A carrier account's breaker, per node. After BreakerAfter calls in a row
// fail for a reason that is not about the text (a 5xx, a timeout, no
// answer), the node stops calling the account's carrier: its texts come
// back at once as a *carrier.BusyError wrapping carrier.ErrUnavailable, so
// they wait on their numbers' schedules and no worker spins on a dead
// carrier. Every BreakerProbe one call goes through; its success closes the
// breaker. The outage is logged once when it begins (WARN) and once when
// it ends (INFO), so a minute-long outage costs each node two lines, not
// one per hand-over. Other accounts, and so other teams, are not touched.
const (
	BreakerAfter = 3
	BreakerProbe = 5 * time.Second
)

type breaker struct {
	failures int
	open     bool
	since    time.Time // when it opened
	until    time.Time // no call before this while open
}

// admit reports whether a call to the account may go out now; while the
// breaker is open it lets one probe through every BreakerProbe.
func (r *Router) admit(accountID string) (time.Duration, bool) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.breakers[accountID]
	if b == nil || !b.open {
		return 0, true
	}
	if now.Before(b.until) {
		return b.until.Sub(now), false
	}
	b.until = now.Add(BreakerProbe) // this call is the probe; others wait for it
	return 0, true
}

// observe records a call's outcome on the account's breaker and reports
// whether the breaker is open after it (err then belongs to the outage).
func (r *Router) observe(accountID string, err error) bool {
	_, busy := carrier.IsBusy(err)
	_, permanent := carrier.IsPermanent(err)
	if busy {
		return false // the carrier is up and asks to slow down: the number's schedule handles it
	}
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.breakers[accountID]
	if b == nil {
		b = &breaker{}
		r.breakers[accountID] = b
	}
	if err == nil || permanent {
		if b.open {
			r.log.Info("carrier account available again; its numbers send", "account_id", accountID, "down_for", now.Sub(b.since).Round(time.Second))
		}
		*b = breaker{}
		return false
	}
	b.failures++
	if b.open {
		b.until = now.Add(BreakerProbe)
		return true
	}
	if b.failures >= BreakerAfter {
		b.open, b.since, b.until = true, now, now.Add(BreakerProbe)
		r.log.Warn("carrier account unavailable; its numbers' texts wait and are tried again every few seconds",
			"account_id", accountID, "failures", b.failures, "err", err)
		return true
	}
	return false
}

// sendVia sends m through c, the adapter of accountID, behind its breaker.
func (r *Router) sendVia(ctx context.Context, accountID string, c carrier.Carrier, m carrier.Message) (carrier.Receipt, error) {
	if wait, ok := r.admit(accountID); !ok {
		return carrier.Receipt{}, &carrier.BusyError{RetryAfter: wait,
			Err: fmt.Errorf("delivery %s: %w (%s)", m.DeliveryID, carrier.ErrUnavailable, accountID)}
	}
	rc, err := c.Send(ctx, m)
	if r.observe(accountID, err) {
		// The failure that opened the breaker, or a failed probe: part of
		// the outage the breaker reported.
		return rc, &carrier.BusyError{RetryAfter: BreakerProbe, Err: fmt.Errorf("%w: %w", carrier.ErrUnavailable, err)}
	}
	return rc, err
}
