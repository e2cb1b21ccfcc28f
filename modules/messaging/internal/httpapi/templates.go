package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
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

func registerTemplates(api huma.API, svc *service.Service) {
	tags := []string{"Templates"}
	team := func(ctx context.Context) string { return auth.MustPrincipal(ctx).TeamID }
	httpapi.Register(api, huma.Operation{
		OperationID: "list-templates", Method: http.MethodGet, Path: "/templates", Tags: tags,
		Summary: "List templates", Description: "Saved templates, by name.",
	}, func(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[Template], error) {
		ts, err := svc.Templates(ctx, team(ctx), in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]Template, len(ts))
		for i := range ts {
			out[i] = TemplateFrom(&ts[i])
		}
		return httpapi.List(in.PageParams, out), nil
	})
	httpapi.Register(api, huma.Operation{
		OperationID: "create-template", Method: http.MethodPost, Path: "/templates", Tags: tags, DefaultStatus: http.StatusCreated,
		Summary: "Create a template",
		Description: "name and body are required; message_type is standard (default), reminder or announcement — urgent_alert gives 400 urgent_not_allowed. " +
			"At most 200 per team (409 template_limit). A name in use gives 409 template_exists; the name of a deleted template restores that template " +
			"(same id) with the body and type of this request (201, header Template-Restored: true).",
	}, func(ctx context.Context, in *struct {
		Body struct {
			Name        string `json:"name"`
			Body        string `json:"body"`
			MessageType string `json:"message_type,omitempty"`
		}
	}) (*struct {
		Restored string `header:"Template-Restored"`
		Body     httpapi.DataBody[Template]
	}, error) {
		t, restored, err := svc.CreateTemplate(ctx, team(ctx), in.Body.Name, in.Body.Body, in.Body.MessageType, false)
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
	}, http.StatusConflict)
	httpapi.Register(api, huma.Operation{
		OperationID: "get-template", Method: http.MethodGet, Path: "/templates/{template_id}", Tags: tags,
		Summary: "Get a template", Description: "One template.",
	}, func(ctx context.Context, in *templatePath) (*httpapi.DataOutput[Template], error) {
		t, err := svc.Template(ctx, team(ctx), in.TemplateID)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(TemplateFrom(t)), nil
	})
	httpapi.Register(api, huma.Operation{
		OperationID: "update-template", Method: http.MethodPatch, Path: "/templates/{template_id}", Tags: tags,
		Summary:     "Change a template",
		Description: "Changes name, body and/or message_type. Urgent-alert templates give 403 template_protected; message_type urgent_alert gives 400 urgent_not_allowed; a name in use gives 409 template_exists.",
	}, func(ctx context.Context, in *struct {
		TemplateID string `path:"template_id"`
		Body       struct {
			Name        *string `json:"name,omitempty"`
			Body        *string `json:"body,omitempty"`
			MessageType *string `json:"message_type,omitempty"`
		}
	}) (*httpapi.DataOutput[Template], error) {
		t, err := svc.ChangeTemplate(ctx, team(ctx), in.TemplateID, service.TemplateChange{Name: in.Body.Name, Body: in.Body.Body, MessageType: in.Body.MessageType})
		if err != nil {
			return nil, err
		}
		return httpapi.Data(TemplateFrom(t)), nil
	}, http.StatusForbidden, http.StatusConflict)
	httpapi.Register(api, huma.Operation{
		OperationID: "delete-template", Method: http.MethodDelete, Path: "/templates/{template_id}", Tags: tags, DefaultStatus: http.StatusNoContent,
		Summary: "Delete a template", Description: "Deletes the template (204). Creating one with the same name later restores it. Urgent-alert templates give 403 template_protected.",
	}, func(ctx context.Context, in *templatePath) (*struct{}, error) {
		return nil, svc.DeleteTemplate(ctx, team(ctx), in.TemplateID, false)
	}, http.StatusForbidden)
}
