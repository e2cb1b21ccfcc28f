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
	// cleared is when a success last cleared the account's recorded
	// outage: another node may have recorded one this node never saw.
	cleared time.Time
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

// change is what a call's outcome did to its account's breaker.
type change int

const (
	unchanged   change = iota
	opened             // the breaker opened
	failedAgain        // a probe failed: the breaker stays open
	closed             // a call succeeded while it was open
)

// observe records a call's outcome on the account's breaker and reports
// what it changed.
func (r *Router) observe(accountID string, err error) change {
	_, busy := carrier.IsBusy(err)
	_, permanent := carrier.IsPermanent(err)
	if busy {
		return unchanged // the carrier is up and asks to slow down: the number's schedule handles it
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
		// An outage another node recorded ends with this node's success
		// too: at the first success after failures, and at most every
		// BreakerProbe otherwise (a delete of nothing, most of the time).
		clear := b.open || b.failures > 0 || now.Sub(b.cleared) >= BreakerProbe
		*b = breaker{cleared: b.cleared}
		if clear {
			b.cleared = now
			return closed
		}
		return unchanged
	}
	b.failures++
	if b.open {
		b.until = now.Add(BreakerProbe)
		return failedAgain
	}
	if b.failures >= BreakerAfter {
		b.open, b.since, b.until = true, now, now.Add(BreakerProbe)
		r.log.Warn("carrier account unavailable; its numbers' texts wait and are tried again every few seconds",
			"account_id", accountID, "failures", b.failures, "err", err)
		return opened
	}
	return unchanged
}

// record writes a breaker's change to Postgres, where every node's
// failover pass sees it (Store.MarkOutage, ClearOutage). A write that
// fails is logged and left: the next probe writes again.
func (r *Router) record(ctx context.Context, accountID string, c change) {
	var err error
	switch c {
	case opened, failedAgain:
		err = r.store.MarkOutage(ctx, accountID)
	case closed:
		err = r.store.ClearOutage(ctx, accountID)
	default:
		return
	}
	if err != nil {
		r.log.Error("carrier account outage not recorded; failover waits for the next probe", "account_id", accountID, "err", err)
	}
}

// Open lists the accounts whose breaker is open on this node (the
// breaker-state gauge).
func (r *Router) Open() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]bool, len(r.breakers))
	for id, b := range r.breakers {
		out[id] = b.open
	}
	return out
}

// sendVia sends m through c, the adapter of accountID, behind its breaker.
func (r *Router) sendVia(ctx context.Context, accountID string, c carrier.Carrier, m carrier.Message) (carrier.Receipt, error) {
	if wait, ok := r.admit(accountID); !ok {
		return carrier.Receipt{}, &carrier.BusyError{RetryAfter: wait,
			Err: fmt.Errorf("delivery %s: %w (%s)", m.DeliveryID, carrier.ErrUnavailable, accountID)}
	}
	rc, err := c.Send(ctx, m)
	ch := r.observe(accountID, err)
	r.record(ctx, accountID, ch)
	if ch == opened || ch == failedAgain {
		// The failure that opened the breaker, or a failed probe: part of
		// the outage the breaker reported.
		return rc, &carrier.BusyError{RetryAfter: BreakerProbe, Err: fmt.Errorf("%w: %w", carrier.ErrUnavailable, err)}
	}
	return rc, err
}
