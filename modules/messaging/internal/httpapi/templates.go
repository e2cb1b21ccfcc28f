package httpapi

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/httpapi"
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
func TemplateFrom(t *postgres.Template) Template {
	return Template{ID: t.ID, Name: t.Name, Body: t.Body, MessageType: t.MessageType, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}

type templatePath struct {
	TemplateID string `path:"template_id"`
}

// listTemplates serves list-templates.
func (h *handler) listTemplates(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[Template], error) {
	ts, err := h.svc.Templates(ctx, teamOf(ctx), in.Limit, in.Offset)
	if err != nil {
		return nil, err
	}
	out := make([]Template, len(ts))
	for i := range ts {
		out[i] = TemplateFrom(&ts[i])
	}
	return httpapi.List(in.PageParams, out), nil
}

// createTemplate serves create-template.
func (h *handler) createTemplate(ctx context.Context, in *struct {
	Body struct {
		Name        string `json:"name"`
		Body        string `json:"body"`
		MessageType string `json:"message_type,omitempty"`
	}
}) (*struct {
	Restored string `header:"Template-Restored"`
	Body     httpapi.DataBody[Template]
}, error) {
	t, restored, err := h.svc.CreateTemplate(ctx, teamOf(ctx), in.Body.Name, in.Body.Body, in.Body.MessageType, false)
	if err != nil {
		return nil, err
	}
	out := &struct {
		Restored string `header:"Template-Restored"`
		Body     httpapi.DataBody[Template]
	}{Body: httpapi.DataBody[Template]{Data: TemplateFrom(t)}}
	if restored {
		out.Restored = "true"
	}
	return out, nil
}

// getTemplate serves get-template.
func (h *handler) getTemplate(ctx context.Context, in *templatePath) (*httpapi.DataOutput[Template], error) {
	t, err := h.svc.Template(ctx, teamOf(ctx), in.TemplateID)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(TemplateFrom(t)), nil
}

// updateTemplate serves update-template.
func (h *handler) updateTemplate(ctx context.Context, in *struct {
	TemplateID string `path:"template_id"`
	Body       struct {
		Name        *string `json:"name,omitempty"`
		Body        *string `json:"body,omitempty"`
		MessageType *string `json:"message_type,omitempty"`
	}
}) (*httpapi.DataOutput[Template], error) {
	t, err := h.svc.ChangeTemplate(ctx, teamOf(ctx), in.TemplateID, service.TemplateChange{Name: in.Body.Name, Body: in.Body.Body, MessageType: in.Body.MessageType})
	if err != nil {
		return nil, err
	}
	return httpapi.Data(TemplateFrom(t)), nil
}

// deleteTemplate serves delete-template.
func (h *handler) deleteTemplate(ctx context.Context, in *templatePath) (*struct{}, error) {
	return nil, h.svc.DeleteTemplate(ctx, teamOf(ctx), in.TemplateID, false)
}
