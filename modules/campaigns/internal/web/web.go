// Package web is campaigns' face in the staff dashboard (DASHBOARD.md):
// the Campaigns page, where a coach, head coach or team director creates a
// campaign with steps and pauses, resumes and cancels campaigns (urgent
// ones for those who may send urgent alerts). Handlers call the campaigns
// use cases only; every write goes through the shell's Do, so it and its
// activity record commit together.
package web

import (
	"embed"
	"net/http"

	"github.com/teamtext/teamtext/modules/campaigns/internal/service"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/web"
)

//go:embed templates/*.html
var templates embed.FS

// Deps are the use cases and pickers the Campaigns page uses.
type Deps struct {
	Campaigns *service.Service
	Groups    rosterapi.Groups       // the audience picker
	Templates messagingapi.Templates // a step's template picker
}

// handler serves the Campaigns pages.
type handler struct {
	shell          *web.Shell
	d              Deps
	list, campaign *web.Template
}

// show renders a page's view, or the error page for the error that
// building it met.
func (h *handler) show(w http.ResponseWriter, r *http.Request, tpl *web.Template, title string, view any, err error) {
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	h.shell.Render(w, r, tpl, http.StatusOK, title, view)
}

// refuse shows a write's refusal on the page it came from: again renders
// that page with msg and status. A missing object (404) or a failure gets
// the error page.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, err error, again func(status int, msg string)) {
	status, msg := web.Refusal(err)
	if status == http.StatusNotFound || status == http.StatusInternalServerError {
		h.shell.Fail(w, r, err)
		return
	}
	again(status, msg)
}

// perm is a row of the role table as the shell takes it.
func perm(p rosterapi.Permission) web.Permission { return web.Permission(p) }

// Register adds the Campaigns pages and nav link to the shell: its route table.
func Register(shell *web.Shell, d Deps) error {
	h := &handler{shell: shell, d: d}
	var err error
	if h.list, err = shell.Template(templates, "templates/campaigns.html"); err != nil {
		return err
	}
	if h.campaign, err = shell.Template(templates, "templates/campaign.html"); err != nil {
		return err
	}
	campaigns := perm(rosterapi.PermCampaigns)
	shell.Nav(web.NavItem{Name: "Campaigns", Path: "/app/campaigns", Order: 70, Perm: campaigns})
	shell.Page("GET /app/campaigns", campaigns, h.campaignsList)
	shell.Page("POST /app/campaigns", campaigns, h.campaignCreate)
	shell.Page("GET /app/campaigns/{campaign_id}", campaigns, h.campaignShow)
	shell.Page("POST /app/campaigns/{campaign_id}/pause", campaigns, h.campaignAction(actionPause))
	shell.Page("POST /app/campaigns/{campaign_id}/resume", campaigns, h.campaignAction(actionResume))
	shell.Page("POST /app/campaigns/{campaign_id}/cancel", campaigns, h.campaignAction(actionCancel))
	return nil
}
