package web

import (
	"context"
	"net/http"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/web"
)

// templatesView is the Templates page: the team's saved texts, and a form
// to add one. Urgent-alert templates are for those who may send urgent
// alerts (DASHBOARD.md's role table: campaigns, templates "urgent too").
type templatesView struct {
	Templates []domain.Template
	Types     []string
	Urgent    bool // the viewer may make and delete urgent-alert templates
	Name      string
	Body      string
	Type      string
	Err       string
}

// templateTypes are the types a viewer may choose.
func templateTypes(urgent bool) []string {
	ts := []string{domain.TypeStandard, domain.TypeReminder, domain.TypeAnnouncement}
	if urgent {
		ts = append(ts, domain.TypeUrgentAlert)
	}
	return ts
}

func (h *handler) templatesView(ctx context.Context, v *web.Viewer) (*templatesView, error) {
	urgent := v.May(perm(rosterapi.PermUrgent))
	ts, err := h.svc.Send.Templates(ctx, v.TeamID, 200, 0)
	if err != nil {
		return nil, err
	}
	return &templatesView{Templates: ts[:min(len(ts), 200)], Types: templateTypes(urgent), Urgent: urgent, Type: domain.TypeStandard}, nil
}

// templatesList is GET /app/templates.
func (h *handler) templatesList(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	tv, err := h.templatesView(r.Context(), v)
	h.show(w, r, h.templates, "Templates", tv, err)
}

// templateCreate is POST /app/templates: an urgent-alert template only for
// those who may send urgent alerts (403 otherwise).
func (h *handler) templateCreate(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	name, body, typ := r.PostFormValue("name"), r.PostFormValue("body"), r.PostFormValue("message_type")
	if typ == domain.TypeUrgentAlert && !v.May(perm(rosterapi.PermUrgent)) {
		h.shell.Error(w, r, http.StatusForbidden, "Your role may not make urgent-alert templates.")
		return
	}
	err := h.shell.Do(r.Context(), r, v, "created template", func(ctx context.Context) (string, error) {
		t, _, err := h.svc.Send.CreateTemplate(ctx, v.TeamID, name, body, typ, true)
		if err != nil {
			return "", err
		}
		return t.ID, nil
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) {
			tv, err := h.templatesView(r.Context(), v)
			if err != nil {
				h.shell.Fail(w, r, err)
				return
			}
			tv.Name, tv.Body, tv.Type, tv.Err = name, body, typ, msg
			h.shell.Render(w, r, h.templates, status, "Templates", tv)
		})
		return
	}
	web.Redirect(w, r, "/app/templates")
}

// templateDelete is POST /app/templates/{template_id}/delete.
func (h *handler) templateDelete(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	id := r.PathValue("template_id")
	t, err := h.svc.Send.Template(ctx, v.TeamID, id)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	if t.MessageType == domain.TypeUrgentAlert && !v.May(perm(rosterapi.PermUrgent)) {
		h.shell.Error(w, r, http.StatusForbidden, "Your role may not delete urgent-alert templates.")
		return
	}
	err = h.shell.Do(ctx, r, v, "deleted template", func(ctx context.Context) (string, error) {
		return id, h.svc.Send.DeleteTemplate(ctx, v.TeamID, id, true)
	})
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	web.Redirect(w, r, "/app/templates")
}
