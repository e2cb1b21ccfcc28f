package view

import (
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// Template is a saved message.
type Template struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Body        string    `json:"body"`
	MessageType string    `json:"message_type" enum:"standard,reminder,announcement,urgent_alert" doc:"urgent_alert templates are made in the dashboard only."`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// TemplateFrom renders a template.
func TemplateFrom(t *domain.Template) Template {
	return Template{ID: t.ID, Name: t.Name, Body: t.Body, MessageType: t.MessageType, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}
