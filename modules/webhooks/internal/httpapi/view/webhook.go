// Package view holds the public API's wire shapes for webhooks (the
// documents' schemas are named after these types) and their renderers
// from the domain's types. The admin API's own shapes are in adminview.
package view

import (
	"time"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
)

// Webhook is a subscription as the API shows it: never its secret.
type Webhook struct {
	ID             string    `json:"id" doc:"Webhook id."`
	URL            string    `json:"url" doc:"The https URL events are POSTed to."`
	Events         []string  `json:"events" doc:"Event types sent to it."`
	Enabled        bool      `json:"enabled" doc:"Whether events are sent to it."`
	DisabledReason *string   `json:"disabled_reason" doc:"Why it is off: consecutive_failures (20 failed attempts in a row) or creator_inactive (its dashboard owner is no longer a head coach or team director who may send broadcasts); null when on."`
	Source         string    `json:"source" enum:"api,dashboard" doc:"Where it was made."`
	CreatedBy      string    `json:"created_by" doc:"Member id of its creator."`
	CreatedAt      time.Time `json:"created_at"`
	// RotationOverlapUntil is additive in v1 (secret rotation).
	RotationOverlapUntil *time.Time `json:"rotation_overlap_until" doc:"Until when the secret replaced by the last rotation still signs every delivery beside the current one (a second v1 in X-Service-Signature); a past time once that overlap is over; null if the secret was never rotated."`
	// MaxPerSecond is additive in v1 (the per-endpoint throttle).
	MaxPerSecond *int `json:"max_per_second" doc:"At most this many deliveries a second to this webhook (1 to 100), one at a time, in order; null: no limit. Waiting for a slot is not an attempt and never counts toward auto-disable."`
}

// From renders a stored webhook.
func From(w *domain.Webhook) Webhook {
	evs := w.Events
	if evs == nil {
		evs = []string{}
	}
	return Webhook{ID: w.ID, URL: w.URL, Events: evs, Enabled: w.Enabled, DisabledReason: w.DisabledReason,
		Source: w.Source, CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, RotationOverlapUntil: w.PreviousSecretUntil,
		MaxPerSecond: w.MaxPerSecond}
}

// CreatedWebhook is a new webhook with its signing secret, shown only once.
type CreatedWebhook struct {
	Webhook
	Secret string `json:"secret" doc:"The signing secret (whsec_...). Shown only in this response; keep it to verify X-Service-Signature."`
}

// NewBody is the body of POST /webhooks (and of the admin's creation).
type NewBody struct {
	URL    string   `json:"url,omitempty" doc:"An https URL that resolves to public internet addresses only." example:"https://example.com/teamtext/events"`
	Events []string `json:"events,omitempty" doc:"Event types to receive: message.received, message.status, member.joined, member.opted_out, member.opted_in, message.response (an answer to a poll; an addition to v1). webhook.test cannot be subscribed to."`
	// MaxPerSecond is additive in v1.
	MaxPerSecond *int `json:"max_per_second,omitempty" required:"false" nullable:"true" minimum:"1" maximum:"100" doc:"Optional throttle, 1 to 100 deliveries a second, one at a time, in order; omitted or null: no limit."`
}
