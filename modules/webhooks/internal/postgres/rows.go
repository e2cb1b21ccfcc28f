package postgres

import "github.com/teamtext/teamtext/modules/webhooks/internal/domain"

// The mappers between the rows and the domain's types: rows stay in this
// package, callers see domain.Webhook, domain.Delivery and the rest.

func toWebhook(r *webhookRow) *domain.Webhook {
	return &domain.Webhook{ID: r.ID, TeamID: r.TeamID, URL: r.URL, Events: r.Events, Secret: r.Secret,
		PreviousSecret: r.PreviousSecret, PreviousSecretUntil: r.PreviousSecretUntil, Source: r.Source, CreatedBy: r.CreatedBy,
		OwnerID: r.OwnerID, KeyID: r.KeyID, Enabled: r.Enabled, DisabledReason: r.DisabledReason,
		ConsecutiveFailures: r.ConsecutiveFailures, MaxPerSecond: r.MaxPerSecond, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func fromWebhook(w *domain.Webhook) *webhookRow {
	return &webhookRow{ID: w.ID, TeamID: w.TeamID, URL: w.URL, Events: w.Events, Secret: w.Secret,
		PreviousSecret: w.PreviousSecret, PreviousSecretUntil: w.PreviousSecretUntil, Source: w.Source, CreatedBy: w.CreatedBy,
		OwnerID: w.OwnerID, KeyID: w.KeyID, Enabled: w.Enabled, DisabledReason: w.DisabledReason,
		ConsecutiveFailures: w.ConsecutiveFailures, MaxPerSecond: w.MaxPerSecond, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

func toWebhooks(rs []webhookRow) []domain.Webhook {
	out := make([]domain.Webhook, len(rs))
	for i := range rs {
		out[i] = *toWebhook(&rs[i])
	}
	return out
}

func fromEvent(e *domain.Event) eventRow {
	return eventRow{ID: e.ID, TeamID: e.TeamID, Type: e.Type, CreatedAt: e.CreatedAt, Body: e.Body, Skipped: e.Skipped, WebhookID: e.WebhookID}
}

func toDelivery(r *deliveryRow) *domain.Delivery {
	return &domain.Delivery{ID: r.ID, TeamID: r.TeamID, EventID: r.EventID, WebhookID: r.WebhookID, State: r.State,
		Attempts: r.Attempts, NextAttemptAt: r.NextAttemptAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		RoundFrom: r.RoundFrom, Queued: r.Queued}
}

func fromDelivery(d *domain.Delivery) deliveryRow {
	return deliveryRow{ID: d.ID, TeamID: d.TeamID, EventID: d.EventID, WebhookID: d.WebhookID, State: d.State,
		Attempts: d.Attempts, NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
		RoundFrom: d.RoundFrom, Queued: d.Queued}
}

func toAttempt(r *attemptRow) domain.Attempt {
	return domain.Attempt{ID: r.ID, TeamID: r.TeamID, WebhookID: r.WebhookID, DeliveryID: r.DeliveryID, EventID: r.EventID,
		Attempt: r.Attempt, AttemptedAt: r.AttemptedAt, DurationUS: r.DurationUS, StatusCode: r.StatusCode, Error: r.Error,
		Success: r.Success, NextAttemptAt: r.NextAttemptAt}
}

func toAttempts(rs []attemptRow) []domain.Attempt {
	out := make([]domain.Attempt, len(rs))
	for i := range rs {
		out[i] = toAttempt(&rs[i])
	}
	return out
}

func toNotification(r *notificationRow) *domain.Notification {
	return &domain.Notification{ID: r.ID, TeamID: r.TeamID, MemberID: r.MemberID, To: r.To, Subject: r.Subject, Body: r.Body,
		Status: r.Status, Error: r.Error, CreatedAt: r.CreatedAt, SentAt: r.SentAt}
}

func fromNotification(n *domain.Notification) *notificationRow {
	return &notificationRow{ID: n.ID, TeamID: n.TeamID, MemberID: n.MemberID, To: n.To, Subject: n.Subject, Body: n.Body,
		Status: n.Status, Error: n.Error, CreatedAt: n.CreatedAt, SentAt: n.SentAt}
}
