package httpapi

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/httpapi/view"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/httpapi"
)

type templatePath struct {
	TemplateID string `path:"template_id"`
}

// listTemplates serves list-templates.
func (h *handler) listTemplates(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[view.Template], error) {
	return httpapi.ListOf(in.PageParams, view.TemplateFrom)(h.svc.Templates(ctx, teamOf(ctx), in.Limit, in.Offset))
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
	Body     httpapi.DataBody[view.Template]
}, error) {
	t, restored, err := h.svc.CreateTemplate(ctx, teamOf(ctx), in.Body.Name, in.Body.Body, in.Body.MessageType, false)
	if err != nil {
		return nil, err
	}
	out := &struct {
		Restored string `header:"Template-Restored"`
		Body     httpapi.DataBody[view.Template]
	}{Body: httpapi.DataBody[view.Template]{Data: view.TemplateFrom(t)}}
	if restored {
		out.Restored = "true"
	}
	return out, nil
}

// getTemplate serves get-template.
func (h *handler) getTemplate(ctx context.Context, in *templatePath) (*httpapi.DataOutput[view.Template], error) {
	t, err := h.svc.Template(ctx, teamOf(ctx), in.TemplateID)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(view.TemplateFrom(t)), nil
}

// updateTemplate serves update-template.
func (h *handler) updateTemplate(ctx context.Context, in *struct {
	TemplateID string `path:"template_id"`
	Body       struct {
		Name        *string `json:"name,omitempty"`
		Body        *string `json:"body,omitempty"`
		MessageType *string `json:"message_type,omitempty"`
	}
}) (*httpapi.DataOutput[view.Template], error) {
	t, err := h.svc.ChangeTemplate(ctx, teamOf(ctx), in.TemplateID, service.TemplateChange{Name: in.Body.Name, Body: in.Body.Body, MessageType: in.Body.MessageType})
	if err != nil {
		return nil, err
	}
	return httpapi.Data(view.TemplateFrom(t)), nil
}

// deleteTemplate serves delete-template.
func (h *handler) deleteTemplate(ctx context.Context, in *templatePath) (*struct{}, error) {
	return nil, h.svc.DeleteTemplate(ctx, teamOf(ctx), in.TemplateID, false)
}
