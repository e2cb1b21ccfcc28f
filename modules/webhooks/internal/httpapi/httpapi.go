// Package httpapi is the webhooks module's public API under /api/v1:
// list, create and delete webhook subscriptions.
package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/postgres"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
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

// ThrottleDoc documents max_per_second wherever it appears.
const ThrottleDoc = "At most this many deliveries a second to this webhook (1 to 100); null: no limit. A throttled " +
	"webhook's deliveries, retries included, wait their turn in its queue and go out one at a time, in the order " +
	"their events happened, each at its planned slot: waiting is not an attempt and never counts toward the 20 " +
	"failures that turn a webhook off. One at a time means a receiver slower to answer than 1/max_per_second " +
	"seconds gets fewer."

// From renders a stored webhook.
func From(w *postgres.Webhook) Webhook {
	evs := w.Events
	if evs == nil {
		evs = []string{}
	}
	return Webhook{ID: w.ID, URL: w.URL, Events: evs, Enabled: w.Enabled, DisabledReason: w.DisabledReason,
		Source: w.Source, CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, RotationOverlapUntil: w.PreviousSecretUntil,
		MaxPerSecond: w.MaxPerSecond}
}

// RotateDescription documents the rotation for the API and the admin.
const RotateDescription = "Gives the webhook a new signing secret, answered in `secret` this once (like creation). " +
	"For the overlap the operator sets (`WEBHOOK_SECRET_OVERLAP`, 24 hours by default) every delivery, retries " +
	"included, is signed with both secrets: X-Service-Signature carries two `v1=` values, the new secret's first, so a " +
	"receiver that checks any `v1` against either secret keeps accepting deliveries while it switches. After the " +
	"overlap only the new secret signs. Rotating again during an overlap ends the older secret at once. " +
	"`rotation_overlap_until` says when the overlap ends."

// CreatedWebhook is a new webhook with its signing secret, shown only once.
type CreatedWebhook struct {
	Webhook
	Secret string `json:"secret" doc:"The signing secret (whsec_...). Shown only in this response; keep it to verify X-Service-Signature."`
}

// NewBody is the body of POST /webhooks (and of the admin's creation).
type NewBody struct {
	URL    string   `json:"url,omitempty" doc:"An https URL that resolves to public internet addresses only." example:"https://example.com/teamtext/events"`
	Events []string `json:"events,omitempty" doc:"Event types to receive: message.received, message.status, member.joined, member.opted_out, member.opted_in. webhook.test cannot be subscribed to."`
	// MaxPerSecond is additive in v1.
	MaxPerSecond *int `json:"max_per_second,omitempty" required:"false" nullable:"true" minimum:"1" maximum:"100" doc:"Optional throttle, 1 to 100 deliveries a second, one at a time, in order; omitted or null: no limit."`
}

// webhookPath names one webhook.
type webhookPath struct {
	WebhookID string `path:"webhook_id" doc:"Webhook id."`
}

// Errors documents the creation errors shared by the API and the admin.
const Errors = "Errors: 400 `invalid_url` (not an absolute https URL without credentials, a malformed host or port, " +
	"an IPv4 address not in dotted-decimal form, or a host name that does not exist); 400 `blocked_url` (the host is, " +
	"or resolves to, a private, loopback, link-local, CGNAT, multicast, documentation or other special-purpose address; " +
	"deliveries are checked again at every connection); 400 `invalid_events` (empty, unknown, or `webhook.test`); " +
	"409 `webhook_limit` (the team already has 25 webhooks); 503 `dns_busy` (the host name could not be resolved " +
	"within 2 seconds: retry after about a minute, see Retry-After)."

// WithRetryAfter adds Retry-After to a dns_busy answer.
func WithRetryAfter(err error) error {
	if f, ok := fault.As(err); ok && f.Code == domain.CodeDNSBusy {
		return httpapi.FromFault(f).WithHeader("Retry-After", "60")
	}
	return err
}

// Register adds the public webhook operations.
func Register(api huma.API, svc *service.Service) {
	tags := []string{"Webhooks"}
	httpapi.Register(api, huma.Operation{
		OperationID: "list-webhooks", Method: http.MethodGet, Path: "/webhooks", Tags: tags,
		Summary:     "List webhooks",
		Description: "Lists the team's webhooks, dashboard-made ones included, oldest first. Secrets are never returned.",
	}, func(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[Webhook], error) {
		p := auth.MustPrincipal(ctx)
		ws, err := svc.Webhooks(ctx, p.TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]Webhook, len(ws))
		for i := range ws {
			out[i] = From(&ws[i])
		}
		return httpapi.List(in.PageParams, out), nil
	})

	httpapi.Register(api, huma.Operation{
		OperationID: "create-webhook", Method: http.MethodPost, Path: "/webhooks", Tags: tags, DefaultStatus: http.StatusCreated,
		Summary: "Create a webhook",
		Description: "Subscribes an https URL to event types. Answers 201 with the webhook and its `secret`, shown only " +
			"this once. Only a key whose creator is a head coach or team director (who may send broadcasts) may create " +
			"webhooks (else 403 `forbidden`); a team may have up to 25. Deliveries are POSTs signed with " +
			"X-Service-Signature (spec §6).\n\n" + Errors,
	}, func(ctx context.Context, in *struct{ Body NewBody }) (*httpapi.DataOutput[CreatedWebhook], error) {
		p := auth.MustPrincipal(ctx)
		c, err := svc.Create(ctx, service.NewWebhook{TeamID: p.TeamID, URL: in.Body.URL, Events: in.Body.Events,
			Source: domain.SourceAPI, CreatedBy: p.MemberID, KeyID: p.KeyID, MaxPerSecond: in.Body.MaxPerSecond})
		if err != nil {
			return nil, WithRetryAfter(err)
		}
		return httpapi.Data(CreatedWebhook{Webhook: From(&c.Webhook), Secret: c.Secret}), nil
	}, http.StatusForbidden, http.StatusConflict, http.StatusServiceUnavailable)

	httpapi.Register(api, huma.Operation{
		OperationID: "rotate-webhook-secret", Method: http.MethodPost, Path: "/webhooks/{webhook_id}/rotate-secret", Tags: tags,
		Summary: "Rotate a webhook's signing secret",
		Description: RotateDescription + " Only a key whose creator is a head coach or team director (who may send " +
			"broadcasts) may rotate secrets (else 403 `forbidden`). Another team's webhook id is 404 `not_found`.",
	}, func(ctx context.Context, in *webhookPath) (*httpapi.DataOutput[CreatedWebhook], error) {
		p := auth.MustPrincipal(ctx)
		r, err := svc.RotateSecret(ctx, p.TeamID, in.WebhookID, p.MemberID)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(CreatedWebhook{Webhook: From(&r.Webhook), Secret: r.Secret}), nil
	}, http.StatusForbidden)

	registerRecovery(api, svc, tags)

	httpapi.Register(api, httpapi.WithAccess(huma.Operation{
		OperationID: "delete-webhook", Method: http.MethodDelete, Path: "/webhooks/{webhook_id}", Tags: tags,
		Summary: "Delete a webhook",
		Description: "Stops delivery and deletes the webhook, dashboard-made ones included; pending retries are dropped. " +
			"Answers the deleted webhook. Another team's webhook id is 404 `not_found`.",
	}, httpapi.Access{AnyPlan: true, NoCard: true}), func(ctx context.Context, in *webhookPath) (*httpapi.DataOutput[Webhook], error) {
		p := auth.MustPrincipal(ctx)
		w, err := svc.Delete(ctx, p.TeamID, in.WebhookID)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(From(w)), nil
	})
}
