package web

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/web"
)

// scheduledRow is a pending scheduled send and what it will send.
type scheduledRow struct {
	domain.Scheduled
	In service.SendInput
}

// scheduledView is the Scheduled page.
type scheduledView struct {
	Rows []scheduledRow
	Page pager
	Zone string
}

// scheduledList is GET /app/scheduled: pending scheduled sends and weekly
// series, soonest first, each with Cancel.
func (h *handler) scheduledList(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	off := page(r)
	ss, err := h.svc.Send.ScheduledList(r.Context(), v.TeamID, pageSize, off)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	sv := scheduledView{Page: links(r, off, len(ss), pageSize), Zone: v.TimeZone}
	for _, s := range ss[:min(len(ss), pageSize)] {
		row := scheduledRow{Scheduled: s}
		if err := json.Unmarshal(s.Request, &row.In); err != nil {
			h.shell.Fail(w, r, err)
			return
		}
		sv.Rows = append(sv.Rows, row)
	}
	h.shell.Render(w, r, h.scheduled, http.StatusOK, "Scheduled", sv)
}

// scheduledCancel is POST /app/scheduled/{scheduled_id}/cancel.
func (h *handler) scheduledCancel(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	id := r.PathValue("scheduled_id")
	err := h.shell.Do(r.Context(), r, v, "cancelled scheduled send", func(ctx context.Context) (string, error) {
		return id, h.svc.Send.CancelScheduled(ctx, v.TeamID, id)
	})
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	web.Redirect(w, r, "/app/scheduled")
}
