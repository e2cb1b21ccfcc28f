// Package adminview holds the admin API's wire shapes for webhooks (the
// admin document's schemas are named after these types: Webhook and
// CreatedWebhook, like the public ones, so they live apart) and their
// renderers from the domain's types.
package adminview

import (
	"time"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/httpapi/view"
)

// Webhook is the dashboard's view of a webhook: the public fields plus its
// owner, the key it was made with and its failure count. Never its secret.
type Webhook struct {
	view.Webhook
	OwnerID             string    `json:"owner_id" doc:"Member the webhook acts for; whoever turned it back on last."`
	KeyID               *string   `json:"key_id" doc:"API key it was made with; null for dashboard-made webhooks."`
	ConsecutiveFailures int       `json:"consecutive_failures" doc:"Failed attempts in a row; 20 turns the webhook off."`
	UpdatedAt           time.Time `json:"updated_at"`
}

// WebhookFrom renders a webhook for the dashboard.
func WebhookFrom(w *domain.Webhook) Webhook {
	return Webhook{Webhook: view.From(w), OwnerID: w.OwnerID, KeyID: w.KeyID,
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

// AttemptFrom renders an attempt for the attempts log.
func AttemptFrom(a *domain.Attempt) Attempt {
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

// NotificationFrom renders a recorded e-mail.
func NotificationFrom(n *domain.Notification) Notification {
	return Notification{ID: n.ID, MemberID: n.MemberID, To: n.To, Subject: n.Subject, Body: n.Body, Status: n.Status,
		Error: n.Error, CreatedAt: n.CreatedAt, SentAt: n.SentAt}
}

// TestEvent tells what a test event became.
type TestEvent struct {
	EventID    string `json:"event_id"`
	DeliveryID string `json:"delivery_id" doc:"X-Service-Delivery of the test delivery; empty when skipped."`
	Skipped    bool   `json:"skipped" doc:"The team is below Team Plus: the event is stored but never sent."`
}
