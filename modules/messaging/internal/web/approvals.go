package web

import (
	"context"
	"net/http"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/web"
)

// approvalsView is the Approvals page.
type approvalsView struct {
	Messages []domain.Message
	Page     pager
	Zone     string
}

// approvalsList is GET /app/approvals: sends waiting for a head coach or
// team director, oldest first, each with Approve and Reject.
func (h *handler) approvalsList(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	off := page(r)
	ms, err := h.svc.Send.Approvals(r.Context(), v.TeamID, pageSize, off)
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	av := approvalsView{Messages: ms[:min(len(ms), pageSize)], Page: links(r, off, len(ms), pageSize), Zone: v.TimeZone}
	h.shell.Render(w, r, h.approvals, http.StatusOK, "Approvals", av)
}

// approvalsDecide is POST /app/approvals/{message_id}/approve and /reject:
// an approved send goes out at once and the approver lands on its page.
func (h *handler) approvalsDecide(approve bool) func(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	action := "rejected message"
	if approve {
		action = "approved message"
	}
	return func(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
		id := r.PathValue("message_id")
		err := h.shell.Do(r.Context(), r, v, action, func(ctx context.Context) (string, error) {
			_, err := h.svc.Send.Decide(ctx, v.TeamID, id, v.MemberID, approve)
			return id, err
		})
		if err != nil {
			h.shell.Fail(w, r, err)
			return
		}
		if approve {
			web.Redirect(w, r, "/app/messages/"+id)
			return
		}
		web.Redirect(w, r, "/app/approvals")
	}
}
