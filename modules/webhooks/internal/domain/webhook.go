package domain

import (
	"errors"
	"slices"
	"time"
)

// ErrNotFound means no webhook, delivery or notification has that id for
// the team asked about (another team's id included).
var ErrNotFound = errors.New("webhooks: not found")

// Webhook is a team's subscription: where events of the types it names
// are sent, signed with its secret, and its failure counter, which turns
// it off at DisableAfter failed attempts in a row.
type Webhook struct {
	ID     string
	TeamID string
	URL    string
	Events []string
	Secret string
	// PreviousSecret is the secret the last rotation replaced; it signs
	// deliveries beside Secret until PreviousSecretUntil.
	PreviousSecret      *string
	PreviousSecretUntil *time.Time
	Source              string // SourceAPI or SourceDashboard
	CreatedBy           string
	OwnerID             string
	KeyID               *string
	Enabled             bool
	DisabledReason      *string
	ConsecutiveFailures int
	// MaxPerSecond is the webhook's throttle; nil: no limit.
	MaxPerSecond *int
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// NewWebhook is a new webhook, on, owned by its creator, after the
// subscription and the throttle are checked (the URL is the guard's to
// check: it needs the network).
func NewWebhook(id, teamID, url string, events []string, source, createdBy, keyID string, maxPerSecond *int, secret string, now time.Time) (Webhook, error) {
	evs, err := ValidEvents(events)
	if err != nil {
		return Webhook{}, err
	}
	if err := ValidMaxPerSecond(maxPerSecond); err != nil {
		return Webhook{}, err
	}
	w := Webhook{ID: id, TeamID: teamID, URL: url, Events: evs, Secret: secret, Source: source, CreatedBy: createdBy,
		OwnerID: createdBy, Enabled: true, MaxPerSecond: maxPerSecond, CreatedAt: now, UpdatedAt: now}
	if keyID != "" {
		w.KeyID = &keyID
	}
	return w, nil
}

// Takes reports whether an event goes to the webhook: it is on, and
// either the event is for it alone (a test event, WebhookID set) or it
// subscribes to the event's type. The event's team is the webhook's.
func (w *Webhook) Takes(e *Event) bool {
	if !w.Enabled || w.TeamID != e.TeamID {
		return false
	}
	if e.WebhookID != nil {
		return w.ID == *e.WebhookID
	}
	return slices.Contains(w.Events, e.Type)
}

// Failed counts a failed attempt: the count grows, and the failure that
// brings an enabled webhook to DisableAfter turns it off with reason
// consecutive_failures. It reports whether this failure turned it off.
func (w *Webhook) Failed(now time.Time) (turnedOff bool) {
	w.ConsecutiveFailures++
	if w.Enabled && w.ConsecutiveFailures >= DisableAfter {
		reason := DisabledConsecutiveFailures
		w.Enabled, w.DisabledReason, w.UpdatedAt = false, &reason, now
		return true
	}
	return false
}

// Succeeded counts a successful attempt: the failures in a row start again.
func (w *Webhook) Succeeded() { w.ConsecutiveFailures = 0 }

// Enable turns the webhook on for owner: the reason is cleared and the
// failure count starts again.
func (w *Webhook) Enable(owner string, now time.Time) {
	w.Enabled, w.DisabledReason, w.ConsecutiveFailures, w.OwnerID, w.UpdatedAt = true, nil, 0, owner, now
}

// Disable turns an enabled webhook off for reason; it reports whether it was on.
func (w *Webhook) Disable(reason string, now time.Time) bool {
	if !w.Enabled {
		return false
	}
	w.Enabled, w.DisabledReason, w.UpdatedAt = false, &reason, now
	return true
}

// Rotate makes secret the signing secret; the one it replaces keeps
// signing beside it until until (a rotation during an overlap ends the
// older secret at once).
func (w *Webhook) Rotate(secret string, until, now time.Time) {
	prev := w.Secret
	w.PreviousSecret, w.PreviousSecretUntil, w.Secret, w.UpdatedAt = &prev, &until, secret, now
}

// SetThrottle sets max_per_second (nil: no limit) after checking it.
func (w *Webhook) SetThrottle(n *int, now time.Time) error {
	if err := ValidMaxPerSecond(n); err != nil {
		return err
	}
	w.MaxPerSecond, w.UpdatedAt = n, now
	return nil
}

// Signers are the secrets a delivery made at now is signed with: the
// current one, and the one a rotation replaced while its overlap lasts
// ("" when none).
func Signers(secret, previous string, previousUntil *time.Time, now time.Time) (current, old string) {
	if previousUntil != nil && now.Before(*previousUntil) {
		return secret, previous
	}
	return secret, ""
}
