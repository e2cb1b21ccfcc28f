package view

import (
	"time"

	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
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
func AttemptFrom(a *domain.Attempt) DeliveryAttempt {
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

// DeliveryFrom renders a listed delivery.
func DeliveryFrom(l *domain.Listed) WebhookDelivery {
	as := make([]DeliveryAttempt, len(l.Attempts))
	for i := range l.Attempts {
		as[i] = AttemptFrom(&l.Attempts[i])
	}
	return WebhookDelivery{ID: l.ID, EventID: l.EventID, EventType: l.EventType, Status: l.Status(), Queued: l.Queued,
		NextAttemptAt: l.NextAttemptAt, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt, Attempts: as}
}

// WebhookRecovery is what a recovery queued.
type WebhookRecovery struct {
	Requeued int       `json:"requeued" doc:"How many deliveries were put back in the queue."`
	Since    time.Time `json:"since" doc:"The since that was asked for."`
}

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
