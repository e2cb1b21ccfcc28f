package web

import (
	"context"
	"net/http"

	"github.com/teamtext/teamtext/modules/messaging/internal/settings"
	"github.com/teamtext/teamtext/platform/web"
)

// quietView is the Quiet hours page: the team's rule and its form.
type quietView struct {
	Enabled        bool
	EnabledDefault bool // the team has not chosen: Enabled is the operator's default
	Start, End     string
	Saved          bool
	Err            string
}

func quietViewOf(q settings.Quiet) *quietView {
	return &quietView{Enabled: q.Enabled, EnabledDefault: q.EnabledDefault, Start: q.Start.String(), End: q.End.String()}
}

// quietShow is GET /app/settings/quiet-hours.
func (h *handler) quietShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	q, err := h.svc.Settings.Quiet(r.Context(), v.TeamID)
	var qv *quietView
	if err == nil {
		qv = quietViewOf(q)
		qv.Saved = r.URL.Query().Get("saved") == "1"
	}
	h.show(w, r, h.quiet, "Quiet hours", qv, err)
}

// quietSave is POST /app/settings/quiet-hours: the rule on or off and its
// window, all three as the form has them. A refusal (a time that is not
// HH:MM, start equal to end) is shown on the form and nothing changes.
func (h *handler) quietSave(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	on := r.PostFormValue("enabled") == "1"
	start, end := r.PostFormValue("start"), r.PostFormValue("end")
	err := h.shell.Do(r.Context(), r, v, "changed quiet hours", func(ctx context.Context) (string, error) {
		_, err := h.svc.Settings.SetQuietHours(ctx, v.TeamID, settings.QuietHoursPatch{Enabled: &on, Start: &start, End: &end})
		return v.TeamID, err
	})
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) {
			h.shell.Render(w, r, h.quiet, status, "Quiet hours", &quietView{Enabled: on, Start: start, End: end, Err: msg})
		})
		return
	}
	web.Redirect(w, r, "/app/settings/quiet-hours?saved=1")
}
