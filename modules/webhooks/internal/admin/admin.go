// Package admin is the webhooks module's part of the admin API (/admin/v1),
// the dashboard's side of webhooks: dashboard-made webhooks, turning one
// back on, test events, the attempts log and the e-mail notices.
package admin

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/httpapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/postgres"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	platformhttp "github.com/teamtext/teamtext/platform/httpapi"
)

// Webhook is the dashboard's view of a webhook: the public fields plus its
// owner, the key it was made with and its failure count. Never its secret.
type Webhook struct {
	httpapi.Webhook
	OwnerID             string    `json:"owner_id" doc:"Member the webhook acts for; whoever turned it back on last."`
	KeyID               *string   `json:"key_id" doc:"API key it was made with; null for dashboard-made webhooks."`
	ConsecutiveFailures int       `json:"consecutive_failures" doc:"Failed attempts in a row; 20 turns the webhook off."`
	UpdatedAt           time.Time `json:"updated_at"`
}

func webhookFrom(w *postgres.Webhook) Webhook {
	return Webhook{Webhook: httpapi.From(w), OwnerID: w.OwnerID, KeyID: w.KeyID,
		ConsecutiveFailures: w.ConsecutiveFailures, UpdatedAt: w.UpdatedAt}
}

// CreatedWebhook is a new dashboard-made webhook with its secret, shown once.
type CreatedWebhook struct {
	Webhook
	Secret string `json:"secret" doc:"The signing secret (whsec_...). Shown only in this response."`
}

// Attempt is one delivery attempt in the attempts log.
type Attempt struct {
	EventID       string     `json:"event_id"`
	DeliveryID    string     `json:"delivery_id" doc:"X-Service-Delivery: one per event and webhook, kept across retries."`
	Attempt       int        `json:"attempt" doc:"1 for the first try, up to 6 in a round; a retried or recovered delivery goes on counting (7, 8, ...)."`
	Success       bool       `json:"success" doc:"A 2xx answer within 10 seconds."`
	StatusCode    *int       `json:"status_code" doc:"The receiver's HTTP status; null when no answer came."`
	Error         *string    `json:"error" doc:"Why the attempt failed; null on success."`
	DurationMS    float64    `json:"duration_ms" doc:"Time from sending to the end of the answer."`
	AttemptedAt   time.Time  `json:"attempted_at" doc:"When it was sent (also the signature's t)."`
	NextAttemptAt *time.Time `json:"next_attempt_at" doc:"When the next retry is due; null when the delivery succeeded, was abandoned after the sixth attempt, or ended because the webhook turned off."`
}

func attemptFrom(a *postgres.Attempt) Attempt {
	return Attempt{EventID: a.EventID, DeliveryID: a.DeliveryID, Attempt: a.Attempt, Success: a.Success,
		StatusCode: a.StatusCode, Error: a.Error, DurationMS: float64(a.DurationUS) / 1000,
		AttemptedAt: a.AttemptedAt, NextAttemptAt: a.NextAttemptAt}
}

// Notification is an e-mail the service sent (or recorded) for a team.
type Notification struct {
	ID        string     `json:"id"`
	MemberID  string     `json:"member_id" doc:"The member it was for."`
	To        string     `json:"to" doc:"E-mail address; empty when the member has none."`
	Subject   string     `json:"subject"`
	Body      string     `json:"body"`
	Status    string     `json:"status" enum:"recorded,queued,sent,failed,no_address" doc:"recorded: no SMTP relay configured; queued/sent/failed: handed to SMTP_ADDR; no_address: the member has no e-mail address."`
	Error     *string    `json:"error" doc:"The relay's refusal, when failed."`
	CreatedAt time.Time  `json:"created_at" doc:"When the service sent (recorded) it."`
	SentAt    *time.Time `json:"sent_at" doc:"When the relay accepted it."`
}

func notificationFrom(n *postgres.Notification) Notification {
	return Notification{ID: n.ID, MemberID: n.MemberID, To: n.To, Subject: n.Subject, Body: n.Body, Status: n.Status,
		Error: n.Error, CreatedAt: n.CreatedAt, SentAt: n.SentAt}
}

// TestEvent tells what a test event became.
type TestEvent struct {
	EventID    string `json:"event_id"`
	DeliveryID string `json:"delivery_id" doc:"X-Service-Delivery of the test delivery; empty when skipped."`
	Skipped    bool   `json:"skipped" doc:"The team is below Team Plus: the event is stored but never sent."`
}

type webhookPath struct {
	TeamID    string `path:"team_id"`
	WebhookID string `path:"webhook_id"`
}

// Register adds the webhook admin operations.
func Register(api huma.API, svc *service.Service) {
	tags := []string{"Webhooks"}
	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-list-webhooks", Method: http.MethodGet, Path: "/teams/{team_id}/webhooks", Tags: tags,
		Summary: "List a team's webhooks", Description: "Every webhook of the team, oldest first, with owner and failure count; never secrets.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		platformhttp.PageParams
	}) (*platformhttp.ListOutput[Webhook], error) {
		ws, err := svc.Webhooks(ctx, in.TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]Webhook, len(ws))
		for i := range ws {
			out[i] = webhookFrom(&ws[i])
		}
		return platformhttp.List(in.PageParams, out), nil
	})

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-create-webhook", Method: http.MethodPost, Path: "/teams/{team_id}/webhooks", Tags: tags,
		DefaultStatus: http.StatusCreated, Summary: "Create a dashboard-made webhook",
		Description: "Creates a webhook made in the dashboard by member_id, who must be an active head coach or team " +
			"director who may send broadcasts (else 403 `forbidden`); the team must be on Team Plus or above (else 403 " +
			"`plan_required`). It turns off with `creator_inactive` when its owner stops being one. The secret is shown once.\n\n" +
			httpapi.Errors,
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		Body   struct {
			httpapi.NewBody
			MemberID string `json:"member_id" doc:"The dashboard user creating it."`
		}
	}) (*platformhttp.DataOutput[CreatedWebhook], error) {
		c, err := svc.Create(ctx, service.NewWebhook{TeamID: in.TeamID, URL: in.Body.URL, Events: in.Body.Events,
			Source: domain.SourceDashboard, CreatedBy: in.Body.MemberID, MaxPerSecond: in.Body.MaxPerSecond})
		if err != nil {
			return nil, httpapi.WithRetryAfter(err)
		}
		return platformhttp.Data(CreatedWebhook{Webhook: webhookFrom(&c.Webhook), Secret: c.Secret}), nil
	}, http.StatusForbidden, http.StatusConflict, http.StatusServiceUnavailable)

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-get-webhook", Method: http.MethodGet, Path: "/teams/{team_id}/webhooks/{webhook_id}", Tags: tags,
		Summary: "Get a webhook", Description: "One webhook of the team; never its secret.",
	}, func(ctx context.Context, in *webhookPath) (*platformhttp.DataOutput[Webhook], error) {
		w, err := svc.Webhook(ctx, in.TeamID, in.WebhookID)
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(webhookFrom(w)), nil
	})

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-delete-webhook", Method: http.MethodDelete, Path: "/teams/{team_id}/webhooks/{webhook_id}", Tags: tags,
		Summary: "Delete a webhook", Description: "Stops delivery and deletes the webhook; answers it.",
	}, func(ctx context.Context, in *webhookPath) (*platformhttp.DataOutput[Webhook], error) {
		w, err := svc.Delete(ctx, in.TeamID, in.WebhookID)
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(webhookFrom(w)), nil
	})

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-enable-webhook", Method: http.MethodPost, Path: "/teams/{team_id}/webhooks/{webhook_id}/enable", Tags: tags,
		Summary: "Turn a webhook on",
		Description: "Turns the webhook on for member_id, an active head coach or team director who may send broadcasts " +
			"(else 403 `forbidden`), who becomes its owner. The reason is cleared and the failure count starts again. " +
			"Deliveries that ended while it was off are not resent.",
	}, func(ctx context.Context, in *struct {
		TeamID    string `path:"team_id"`
		WebhookID string `path:"webhook_id"`
		Body      struct {
			MemberID string `json:"member_id" doc:"The dashboard user turning it on; becomes its owner."`
		}
	}) (*platformhttp.DataOutput[Webhook], error) {
		w, err := svc.Enable(ctx, in.TeamID, in.WebhookID, in.Body.MemberID)
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(webhookFrom(w)), nil
	}, http.StatusForbidden)

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-rotate-webhook-secret", Method: http.MethodPost, Path: "/teams/{team_id}/webhooks/{webhook_id}/rotate-secret", Tags: tags,
		Summary:     "Rotate a webhook's signing secret",
		Description: httpapi.RotateDescription + " member_id must be an active head coach or team director who may send broadcasts (else 403 `forbidden`).",
	}, func(ctx context.Context, in *struct {
		TeamID    string `path:"team_id"`
		WebhookID string `path:"webhook_id"`
		Body      struct {
			MemberID string `json:"member_id" doc:"The dashboard user rotating the secret."`
		}
	}) (*platformhttp.DataOutput[CreatedWebhook], error) {
		r, err := svc.RotateSecret(ctx, in.TeamID, in.WebhookID, in.Body.MemberID)
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(CreatedWebhook{Webhook: webhookFrom(&r.Webhook), Secret: r.Secret}), nil
	}, http.StatusForbidden)

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-test-webhook", Method: http.MethodPost, Path: "/teams/{team_id}/webhooks/{webhook_id}/test", Tags: tags,
		Summary: "Send a test event",
		Description: "Publishes `webhook.test` with data `{\"message\": ...}` to this webhook only, delivered and retried " +
			"like any event. 409 `conflict` when the webhook is off. Below Team Plus the event is stored as skipped.",
	}, func(ctx context.Context, in *struct {
		TeamID    string `path:"team_id"`
		WebhookID string `path:"webhook_id"`
		Body      *struct {
			Message string `json:"message,omitempty" maxLength:"500" doc:"The data.message text; a default greeting when empty."`
		}
	}) (*platformhttp.DataOutput[TestEvent], error) {
		msg := ""
		if in.Body != nil {
			msg = in.Body.Message
		}
		r, err := svc.SendTest(ctx, in.TeamID, in.WebhookID, msg)
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(TestEvent{EventID: r.EventID, DeliveryID: r.DeliveryID, Skipped: r.Skipped}), nil
	}, http.StatusConflict)

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-list-webhook-attempts", Method: http.MethodGet, Path: "/teams/{team_id}/webhooks/{webhook_id}/attempts", Tags: tags,
		Summary: "List delivery attempts", Description: "Every delivery attempt to the webhook, newest first: event, delivery, status code, error, duration, time, next retry.",
	}, func(ctx context.Context, in *struct {
		TeamID    string `path:"team_id"`
		WebhookID string `path:"webhook_id"`
		platformhttp.PageParams
	}) (*platformhttp.ListOutput[Attempt], error) {
		as, err := svc.Attempts(ctx, in.TeamID, in.WebhookID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]Attempt, len(as))
		for i := range as {
			out[i] = attemptFrom(&as[i])
		}
		return platformhttp.List(in.PageParams, out), nil
	})

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-update-webhook", Method: http.MethodPatch, Path: "/teams/{team_id}/webhooks/{webhook_id}", Tags: tags,
		Summary: "Change a webhook's throttle", Description: httpapi.ThrottleDescription,
	}, func(ctx context.Context, in *struct {
		TeamID    string `path:"team_id"`
		WebhookID string `path:"webhook_id"`
		Body      httpapi.WebhookThrottleBody
	}) (*platformhttp.DataOutput[Webhook], error) {
		w, err := svc.SetThrottle(ctx, in.TeamID, in.WebhookID, "", in.Body.MaxPerSecond)
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(webhookFrom(w)), nil
	})

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-list-webhook-deliveries", Method: http.MethodGet, Path: "/teams/{team_id}/webhooks/{webhook_id}/deliveries", Tags: tags,
		Summary: "List a webhook's deliveries", Description: httpapi.ListDeliveriesDescription,
	}, func(ctx context.Context, in *struct {
		TeamID    string `path:"team_id"`
		WebhookID string `path:"webhook_id"`
		httpapi.DeliveriesQuery
	}) (*platformhttp.ListOutput[httpapi.WebhookDelivery], error) {
		ls, err := svc.Deliveries(ctx, in.TeamID, in.WebhookID, in.Status, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		return platformhttp.List(in.PageParams, httpapi.Deliveries(ls)), nil
	})

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-retry-webhook-delivery", Method: http.MethodPost, Path: "/teams/{team_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
		Tags: tags, DefaultStatus: http.StatusAccepted, Summary: "Send a delivery again", Description: httpapi.RetryDescription,
	}, func(ctx context.Context, in *struct {
		TeamID     string `path:"team_id"`
		WebhookID  string `path:"webhook_id"`
		DeliveryID string `path:"delivery_id"`
	}) (*platformhttp.DataOutput[httpapi.WebhookDelivery], error) {
		l, err := svc.Retry(ctx, in.TeamID, in.WebhookID, in.DeliveryID, "")
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(httpapi.DeliveryFrom(l)), nil
	}, http.StatusConflict)

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-recover-webhook-deliveries", Method: http.MethodPost, Path: "/teams/{team_id}/webhooks/{webhook_id}/recover",
		Tags: tags, DefaultStatus: http.StatusAccepted, Summary: "Recover undelivered events", Description: httpapi.RecoverDescription,
	}, func(ctx context.Context, in *struct {
		TeamID    string `path:"team_id"`
		WebhookID string `path:"webhook_id"`
		Body      httpapi.WebhookRecoverBody
	}) (*platformhttp.DataOutput[httpapi.WebhookRecovery], error) {
		n, err := svc.Recover(ctx, in.TeamID, in.WebhookID, "", in.Body.Since)
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(httpapi.WebhookRecovery{Requeued: n, Since: in.Body.Since}), nil
	}, http.StatusConflict)

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-list-notifications", Method: http.MethodGet, Path: "/teams/{team_id}/notifications", Tags: []string{"Notifications"},
		Summary: "List e-mail notices", Description: "E-mails the service sent for the team (to whom, subject, body, time), newest first.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		platformhttp.PageParams
	}) (*platformhttp.ListOutput[Notification], error) {
		ns, err := svc.Notifications(ctx, in.TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]Notification, len(ns))
		for i := range ns {
			out[i] = notificationFrom(&ns[i])
		}
		return platformhttp.List(in.PageParams, out), nil
	})
}
