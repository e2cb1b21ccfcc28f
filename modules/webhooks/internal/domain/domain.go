// Package domain holds the webhooks module's rules, without I/O: the
// Webhook with its failure counter and auto-disable (webhook.go), the
// Delivery with its rounds of attempts, retry schedule and states
// (delivery.go), and here which event lists are valid, how secrets look,
// the retry gaps, the threshold and the throttle's slots. The storage
// adapter's set-based SQL follows these rules and is tested against them
// (postgres/rules_test.go).
package domain

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teamtext/teamtext/modules/webhooks/webhooksapi"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
)

// The webhooks module's error codes (spec §6, §7) under the names its code
// uses; each is declared once, in webhooksapi, with its status.
const (
	CodeBlockedURL    = webhooksapi.CodeBlockedURL
	CodeInvalidURL    = webhooksapi.CodeInvalidURL
	CodeInvalidEvents = webhooksapi.CodeInvalidEvents
	CodeWebhookLimit  = webhooksapi.CodeWebhookLimit
	CodeDNSBusy       = webhooksapi.CodeDNSBusy
)

// MaxPerTeam is the spec's limit of webhooks per team (§8).
const MaxPerTeam = 25

// DisableAfter is the number of failed attempts in a row, across a
// webhook's deliveries, that turns the webhook off (§6).
const DisableAfter = 20

// SecretPrefix starts every webhook secret.
const SecretPrefix = "whsec_"

// Where a webhook was made.
const (
	SourceAPI       = "api"
	SourceDashboard = "dashboard"
)

// Why a webhook is off.
const (
	DisabledConsecutiveFailures = "consecutive_failures"
	DisabledCreatorInactive     = "creator_inactive"
)

// ValidEvents checks a subscription list: at least one name, each one of
// the subscribable types (webhook.test is sent on request only). It returns
// the list without duplicates, in the order given.
func ValidEvents(in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, fault.New(fault.Invalid, CodeInvalidEvents, "events must list at least one event name")
	}
	out := make([]string, 0, len(in))
	for _, e := range in {
		switch {
		case e == events.WebhookTest:
			return nil, fault.New(fault.Invalid, CodeInvalidEvents, "webhook.test cannot be subscribed to; it is sent on request only")
		case !slices.Contains(events.Subscribable, e):
			return nil, fault.Newf(fault.Invalid, CodeInvalidEvents, "unknown event %q; known events: %s", e, strings.Join(events.Subscribable, ", "))
		case !slices.Contains(out, e):
			out = append(out, e)
		}
	}
	return out, nil
}

// NewSecret returns a fresh signing secret: "whsec_" and 32 random bytes in
// unpadded base64url (256 bits).
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// MaxAttempts is the number of attempts a delivery gets: the first one and
// a retry after each of the spec's five gaps.
const MaxAttempts = 6

// RetryGap returns the wait after failed attempt n (1-based) before attempt
// n+1: 1 min, 5 min, 30 min, 2 h, 12 h. ok is false after the last attempt:
// the delivery is abandoned.
func RetryGap(n int) (gap time.Duration, ok bool) {
	switch n {
	case 1:
		return time.Minute, true
	case 2:
		return 5 * time.Minute, true
	case 3:
		return 30 * time.Minute, true
	case 4:
		return 2 * time.Hour, true
	case 5:
		return 12 * time.Hour, true
	}
	return 0, false
}

// NextAttempt returns when attempt n+1 is due after attempt n failed at
// failedAt, or ok=false when the delivery is to be abandoned. The gap is
// counted from the failure, so a retry is never early.
func NextAttempt(n int, failedAt time.Time) (at time.Time, ok bool) {
	gap, ok := RetryGap(n)
	if !ok {
		return time.Time{}, false
	}
	return failedAt.Add(gap), true
}

// DeliverArgs is the job of one delivery attempt (River args); every
// attempt, first and retried, is inserted into Queue (the domain names the
// queue, the inserting adapters pass it: a domain imports no River). Attempt n
// is recorded only while the delivery has n-1 recorded attempts, so a job
// that runs twice records and sends at most once after a success.
type DeliverArgs struct {
	TeamID     string `json:"team_id"`
	DeliveryID string `json:"delivery_id"`
	Attempt    int    `json:"attempt"`
}

// Kind names the job.
func (DeliverArgs) Kind() string { return "webhooks.deliver" }

// Queue is the River queue of delivery attempts. A delivery holds its slot
// for the receiver's round trip, so deliveries get slots of their own
// (WEBHOOK_WORKERS) rather than JOB_WORKERS' shared ones.
const Queue = "webhooks"

// MaxPerSecondLimit is the highest throttle a webhook may have: a throttled
// webhook's deliveries go out one at a time, so a faster one is bound by
// the receiver's answer time rather than by the throttle.
const MaxPerSecondLimit = 100

// ValidMaxPerSecond checks a throttle: nil (no limit) or 1 to MaxPerSecondLimit.
func ValidMaxPerSecond(n *int) error {
	if n != nil && (*n < 1 || *n > MaxPerSecondLimit) {
		return fault.Newf(fault.Invalid, fault.CodeInvalidRequest,
			"max_per_second must be a whole number from 1 to %d, or null for no limit", MaxPerSecondLimit)
	}
	return nil
}

// SlotGap is the time between two deliveries to a webhook throttled at n a second.
func SlotGap(n int) time.Duration { return time.Second / time.Duration(n) }

// CatchUp is how far behind its schedule a busy throttled queue may be and
// still keep it (sending the slots it was late for back to back): a pump
// woken late (a poll interval, a busy node) then holds the rate exactly
// on average. A queue further behind (it was idle) starts afresh at now,
// so an idle webhook never gets more than a second's worth at once.
const CatchUp = time.Second

// NextSlot is when the next delivery of a throttled queue may go, given
// the queue's stored next slot (nil: never used) and now.
func NextSlot(stored *time.Time, now time.Time) time.Time {
	if stored == nil || stored.Before(now.Add(-CatchUp)) {
		return now
	}
	return *stored
}

// Delivery statuses as the API shows them.
const (
	StatusPending   = "pending"   // waiting for its first attempt of the round (or its turn under the throttle)
	StatusFailed    = "failed"    // an attempt failed; the next one is scheduled
	StatusDelivered = "delivered" // an attempt succeeded
	StatusAbandoned = "abandoned" // every attempt of the round failed
	StatusCancelled = "cancelled" // ended unsent because the webhook was turned off
)

// Statuses lists them, for the filter's enum.
var Statuses = []string{StatusPending, StatusFailed, StatusDelivered, StatusAbandoned, StatusCancelled}

// PumpArgs is the job that sends a webhook's queued deliveries one at a
// time, in order, at its throttle, inserted into Queue. At most one exists
// per webhook (webhook_queues.pump).
type PumpArgs struct {
	TeamID    string `json:"team_id"`
	WebhookID string `json:"webhook_id"`
}

// Kind names the job.
func (PumpArgs) Kind() string { return "webhooks.pump" }
