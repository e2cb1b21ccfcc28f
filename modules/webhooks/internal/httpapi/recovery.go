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
	"github.com/teamtext/teamtext/platform/httpapi"
)

// DeliveryAttempt is one attempt of a delivery.
type DeliveryAttempt struct {
	Attempt       int        `json:"attempt" doc:"1 for the first try; a retried or recovered delivery goes on counting (7, 8, ...)."`
	AttemptedAt   time.Time  `json:"attempted_at" doc:"When it was sent (also the signature's t)."`
	Success       bool       `json:"success" doc:"A 2xx answer within 10 seconds."`
	StatusCode    *int       `json:"status_code" doc:"The receiver's HTTP status; null when no answer came."`
	Error         *string    `json:"error" doc:"Why the attempt failed; null on success."`
	DurationMS    float64    `json:"duration_ms" doc:"Time from sending to the end of the answer."`
	NextAttemptAt *time.Time `json:"next_attempt_at" doc:"When the next retry was planned after it; null after a success or the last attempt."`
}

// AttemptFrom renders an attempt.
func AttemptFrom(a *postgres.Attempt) DeliveryAttempt {
	return DeliveryAttempt{Attempt: a.Attempt, AttemptedAt: a.AttemptedAt, Success: a.Success, StatusCode: a.StatusCode,
		Error: a.Error, DurationMS: float64(a.DurationUS) / 1000, NextAttemptAt: a.NextAttemptAt}
}

// WebhookDelivery is one event's delivery to one webhook, with its attempts.
type WebhookDelivery struct {
	ID            string            `json:"id" doc:"X-Service-Delivery: one per event and webhook, kept across retries."`
	EventID       string            `json:"event_id"`
	EventType     string            `json:"event_type"`
	Status        string            `json:"status" enum:"pending,failed,delivered,abandoned,cancelled" doc:"pending: waiting for its first attempt of the round, or its turn under the throttle; failed: an attempt failed and the next is planned; delivered: got a 2xx; abandoned: every attempt of the round failed; cancelled: ended unsent because the webhook was turned off."`
	Queued        bool              `json:"queued" doc:"Waiting its turn in the webhook's queue (a throttle, or a recovery sending in order)."`
	NextAttemptAt *time.Time        `json:"next_attempt_at" doc:"When the next attempt is due; null when none is planned (ended, or queued)."`
	CreatedAt     time.Time         `json:"created_at" doc:"When the event happened."`
	UpdatedAt     time.Time         `json:"updated_at"`
	Attempts      []DeliveryAttempt `json:"attempts" doc:"Every attempt, oldest first."`
}

// StatusDoc explains the delivery statuses.
const StatusDoc = "pending: waiting for its first attempt (of the round: a retry or recovery starts a new one), or for " +
	"its turn under the throttle; failed: an attempt failed and the next is planned (next_attempt_at); delivered: an " +
	"attempt got a 2xx answer; abandoned: every attempt of the round failed (1 min, 5 min, 30 min, 2 h, 12 h apart); " +
	"cancelled: ended unsent because the webhook was turned off."

// StatusOf is a delivery's API status.
func StatusOf(d *postgres.Delivery) string {
	switch d.State {
	case postgres.StateSucceeded:
		return domain.StatusDelivered
	case postgres.StateAbandoned:
		return domain.StatusAbandoned
	case postgres.StateCancelled:
		return domain.StatusCancelled
	}
	if d.Attempts > d.RoundFrom {
		return domain.StatusFailed
	}
	return domain.StatusPending
}

// DeliveryFrom renders a listed delivery.
func DeliveryFrom(l *service.Listed) WebhookDelivery {
	as := make([]DeliveryAttempt, len(l.Attempts))
	for i := range l.Attempts {
		as[i] = AttemptFrom(&l.Attempts[i])
	}
	return WebhookDelivery{ID: l.ID, EventID: l.EventID, EventType: l.EventType, Status: StatusOf(&l.Delivery), Queued: l.Queued,
		NextAttemptAt: l.NextAttemptAt, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt, Attempts: as}
}

// Deliveries renders a page of deliveries.
func Deliveries(ls []service.Listed) []WebhookDelivery {
	out := make([]WebhookDelivery, len(ls))
	for i := range ls {
		out[i] = DeliveryFrom(&ls[i])
	}
	return out
}

// WebhookRecovery is what a recovery queued.
type WebhookRecovery struct {
	Requeued int       `json:"requeued" doc:"How many deliveries were put back in the queue."`
	Since    time.Time `json:"since" doc:"The since that was asked for."`
}

// Descriptions shared by the API and the admin.
const (
	ListDeliveriesDescription = "The webhook's deliveries, newest first, each with every attempt (time, status code or " +
		"error, duration). `status` keeps one status only. Deliveries and their attempts are kept as long as the " +
		"operator's RETENTION_WEBHOOKS (30 days by default). Another team's webhook id is 404 `not_found`; an unknown " +
		"status is 400 `invalid_request`. Statuses: " + StatusDoc
	RetryDescription = "Sends the delivery again now, signed afresh (with the current secret, and the replaced one " +
		"during a rotation's overlap), as a new round: if it fails it is retried on the spec's schedule (1 min, 5 min, " +
		"30 min, 2 h, 12 h) and abandoned after that round's sixth attempt. Any delivery that ended may be retried: " +
		"delivered, abandoned or cancelled. Answers 202 with the delivery (status `pending`); its attempt is made at once " +
		"by a worker (under a throttle, in its turn). Errors: 404 `not_found` (another team's webhook, or a delivery " +
		"that is not this webhook's); 409 `conflict` when the delivery is still pending or failed (its next attempt " +
		"is already planned: see `next_attempt_at`), or when the webhook is turned off."
	RecoverDescription = "Puts every delivery of the webhook whose event happened at or after `since` and that ended " +
		"unsent (abandoned after every retry, or cancelled when the webhook was turned off) back in the webhook's " +
		"queue, and answers 202 with how many. They go out one at a time, in the order their events happened, " +
		"signed afresh, at the webhook's `max_per_second` if it has one, each starting a new round of retries. " +
		"Deliveries older than RETENTION_WEBHOOKS (30 days by default) no longer exist. Errors: 400 `invalid_request` " +
		"(since missing or not an RFC 3339 time); 404 `not_found` (another team's webhook); 409 `conflict` when the " +
		"webhook is turned off (turn it on first)."
	ThrottleDescription = "Sets or clears the webhook's throttle. `max_per_second` is required: a whole number from " +
		"1 to 100, or null for no limit (else 400 `invalid_request`). " + ThrottleDoc
)

// WebhookRecoverBody is the body of a recovery.
type WebhookRecoverBody struct {
	Since time.Time `json:"since" doc:"RFC 3339 time: deliveries of events at or after it are recovered." example:"2026-11-24T00:00:00Z"`
}

// WebhookThrottleBody is the body of a throttle change.
type WebhookThrottleBody struct {
	MaxPerSecond *int `json:"max_per_second" required:"true" nullable:"true" minimum:"1" maximum:"100" doc:"1 to 100, or null for no limit."`
}

// DeliveriesQuery is the deliveries list's query.
type DeliveriesQuery struct {
	Status string `query:"status" enum:"pending,failed,delivered,abandoned,cancelled" doc:"Only deliveries of this status."`
	httpapi.PageParams
}

type deliveryPath struct {
	WebhookID  string `path:"webhook_id" doc:"Webhook id."`
	DeliveryID string `path:"delivery_id" doc:"Delivery id (X-Service-Delivery)."`
}

// registerRecovery adds the deliveries list, retry, recovery and the throttle.
func registerRecovery(api huma.API, svc *service.Service, tags []string) {
	httpapi.Register(api, huma.Operation{
		OperationID: "update-webhook", Method: http.MethodPatch, Path: "/webhooks/{webhook_id}", Tags: tags,
		Summary: "Change a webhook's throttle",
		Description: ThrottleDescription + " Only a key whose creator is a head coach or team director (who may send " +
			"broadcasts) may change it (else 403 `forbidden`). Another team's webhook id is 404 `not_found`.",
	}, func(ctx context.Context, in *struct {
		WebhookID string `path:"webhook_id" doc:"Webhook id."`
		Body      WebhookThrottleBody
	}) (*httpapi.DataOutput[Webhook], error) {
		p := auth.MustPrincipal(ctx)
		w, err := svc.SetThrottle(ctx, p.TeamID, in.WebhookID, p.MemberID, in.Body.MaxPerSecond)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(From(w)), nil
	}, http.StatusForbidden)

	httpapi.Register(api, huma.Operation{
		OperationID: "list-webhook-deliveries", Method: http.MethodGet, Path: "/webhooks/{webhook_id}/deliveries", Tags: tags,
		Summary: "List a webhook's deliveries", Description: ListDeliveriesDescription,
	}, func(ctx context.Context, in *struct {
		WebhookID string `path:"webhook_id" doc:"Webhook id."`
		DeliveriesQuery
	}) (*httpapi.ListOutput[WebhookDelivery], error) {
		p := auth.MustPrincipal(ctx)
		ls, err := svc.Deliveries(ctx, p.TeamID, in.WebhookID, in.Status, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		return httpapi.List(in.PageParams, Deliveries(ls)), nil
	})

	httpapi.Register(api, huma.Operation{
		OperationID: "retry-webhook-delivery", Method: http.MethodPost, Path: "/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
		Tags: tags, DefaultStatus: http.StatusAccepted,
		Summary: "Send a delivery again", Description: RetryDescription + " Only a key whose creator is a head coach or team director may retry (else 403 `forbidden`).",
	}, func(ctx context.Context, in *deliveryPath) (*httpapi.DataOutput[WebhookDelivery], error) {
		p := auth.MustPrincipal(ctx)
		l, err := svc.Retry(ctx, p.TeamID, in.WebhookID, in.DeliveryID, p.MemberID)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(DeliveryFrom(l)), nil
	}, http.StatusForbidden, http.StatusConflict)

	httpapi.Register(api, huma.Operation{
		OperationID: "recover-webhook-deliveries", Method: http.MethodPost, Path: "/webhooks/{webhook_id}/recover",
		Tags: tags, DefaultStatus: http.StatusAccepted,
		Summary: "Recover undelivered events", Description: RecoverDescription + " Only a key whose creator is a head coach or team director may recover (else 403 `forbidden`).",
	}, func(ctx context.Context, in *struct {
		WebhookID string `path:"webhook_id" doc:"Webhook id."`
		Body      WebhookRecoverBody
	}) (*httpapi.DataOutput[WebhookRecovery], error) {
		p := auth.MustPrincipal(ctx)
		n, err := svc.Recover(ctx, p.TeamID, in.WebhookID, p.MemberID, in.Body.Since)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(WebhookRecovery{Requeued: n, Since: in.Body.Since}), nil
	}, http.StatusForbidden, http.StatusConflict)
}
