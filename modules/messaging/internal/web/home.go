package web

import (
	"net/http"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/web"
)

// homeView is the team at a glance.
type homeView struct {
	Account   billingapi.Account
	Unread    int
	Approvals int
	Messages  []domain.Message
	Numbers   []outbound.Number
	Staff     bool // may see the team's figures (the role table's "see")
}

// homeShow is GET /app/: the team picker for a person on several teams,
// then credits, plan, sending numbers, unread inbox, pending approvals and
// latest messages.
// A login without a staff role sees only the picker and sign-out.
func (h *handler) homeShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	hv := homeView{Staff: v.May(perm(rosterapi.PermView))}
	if hv.Staff {
		var err error
		if hv.Account, err = h.svc.Billing.Status(ctx, v.TeamID); err != nil {
			h.shell.Fail(w, r, err)
			return
		}
		if hv.Numbers, err = h.svc.Numbers.Numbers(ctx, v.TeamID); err != nil {
			h.shell.Fail(w, r, err)
			return
		}
		if hv.Unread, err = h.svc.Inbox.UnreadCount(ctx, v.TeamID); err != nil {
			h.shell.Fail(w, r, err)
			return
		}
		if v.May(perm(rosterapi.PermApprove)) {
			ap, err := h.svc.Send.Approvals(ctx, v.TeamID, 100, 0)
			if err != nil {
				h.shell.Fail(w, r, err)
				return
			}
			hv.Approvals = len(ap)
		}
		ms, err := h.svc.Send.Messages(ctx, v.TeamID, 5, 0)
		if err != nil {
			h.shell.Fail(w, r, err)
			return
		}
		hv.Messages = ms[:min(len(ms), 5)]
	}
	h.shell.Render(w, r, h.home, http.StatusOK, v.TeamName, hv)
}
