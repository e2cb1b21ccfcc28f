// Package web is messaging's face in the staff dashboard (DASHBOARD.md):
// Home, Compose, Messages, Scheduled, Approvals, Inbox, Templates and
// Analytics. Handlers call messaging's use cases only; the role table is
// rosterapi's, asked through the viewer. Every write goes through the shell's Do, so it and
// its activity record commit together.
package web

import (
	"embed"
	"net/http"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/messaging/internal/settings"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/web"
)

//go:embed templates/*.html
var templates embed.FS

// Services are the use cases messaging's pages call.
type Services struct {
	Send    *service.Service
	Inbox   *inbound.Inbox
	Replies *inbound.Replies
	Billing billingapi.Accounts
	Groups  rosterapi.Groups
	Numbers *outbound.Service
	// Analytics is GET /api/v1/analytics's use case, with the days.
	Analytics *inbound.Analytics
	// Settings are the team's quiet hours (Settings › Quiet hours).
	Settings *settings.Service
	// Keywords are the team's own keywords (Settings › Keywords).
	Keywords *inbound.TeamKeywords
}

// handler serves messaging's dashboard pages.
type handler struct {
	shell                                                         *web.Shell
	svc                                                           Services
	home, compose, messages, message, scheduled, approvals, inbox *web.Template
	templates, analytics, quiet, keywords                         *web.Template
}

// show renders a page's view, or the error page (web.Shell.Show).
func (h *handler) show(w http.ResponseWriter, r *http.Request, tpl *web.Template, title string, view any, err error) {
	h.shell.Show(w, r, tpl, title, view, err)
}

// refuse shows a write's refusal on the page it came from (web.Shell.Refuse).
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, err error, again func(status int, msg string)) {
	h.shell.Refuse(w, r, err, again)
}

// perm is a row of the role table as the shell takes it.
func perm(p rosterapi.Permission) web.Permission { return web.Permission(p) }

// Register adds messaging's pages and nav links to the shell: its route table.
func Register(shell *web.Shell, s Services) error {
	h := &handler{shell: shell, svc: s}
	for _, t := range []struct {
		dst  **web.Template
		name string
	}{
		{&h.home, "home"}, {&h.compose, "compose"}, {&h.messages, "messages"}, {&h.message, "message"},
		{&h.scheduled, "scheduled"}, {&h.approvals, "approvals"}, {&h.inbox, "inbox"}, {&h.templates, "templates"}, {&h.analytics, "analytics"},
		{&h.quiet, "quiethours"}, {&h.keywords, "keywords"},
	} {
		var err error
		if *t.dst, err = shell.Template(templates, "templates/"+t.name+".html"); err != nil {
			return err
		}
	}
	view, send := perm(rosterapi.PermView), perm(rosterapi.PermSend)
	approve, reply, campaigns := perm(rosterapi.PermApprove), perm(rosterapi.PermReply), perm(rosterapi.PermCampaigns)
	shell.Nav(
		web.NavItem{Name: "Home", Path: "/app/", Order: 10, Perm: view},
		web.NavItem{Name: "Compose", Path: "/app/compose", Order: 20, Perm: send},
		web.NavItem{Name: "Messages", Path: "/app/messages", Order: 30, Perm: view},
		web.NavItem{Name: "Scheduled", Path: "/app/scheduled", Order: 40, Perm: view},
		web.NavItem{Name: "Approvals", Path: "/app/approvals", Order: 50, Perm: approve},
		web.NavItem{Name: "Inbox", Path: "/app/inbox", Order: 60, Perm: view},
		web.NavItem{Name: "Templates", Path: "/app/templates", Order: 80, Perm: campaigns},
		web.NavItem{Name: "Analytics", Path: "/app/analytics", Order: 90, Perm: view},
	)
	shell.Page("GET /app/{$}", 0, h.homeShow)
	shell.Page("GET /app/compose", send, h.composeShow)
	shell.Page("POST /app/compose", send, h.composeSubmit)
	shell.Page("POST /app/compose/preview", send, h.composePreview)
	shell.Page("GET /app/messages", view, h.messagesList)
	shell.Page("GET /app/messages/{message_id}", view, h.messageShow)
	shell.Page("GET /app/messages/{message_id}/progress", view, h.messageProgress)
	shell.Page("POST /app/messages/{message_id}/resend", send, h.messageResend)
	shell.Page("GET /app/scheduled", view, h.scheduledList)
	shell.Page("POST /app/scheduled/{scheduled_id}/cancel", send, h.scheduledCancel)
	shell.Page("GET /app/approvals", approve, h.approvalsList)
	shell.Page("POST /app/approvals/{message_id}/approve", approve, h.approvalsDecide(true))
	shell.Page("POST /app/approvals/{message_id}/reject", approve, h.approvalsDecide(false))
	shell.Page("GET /app/inbox", view, h.inboxList)
	shell.Page("POST /app/inbox/{inbound_id}/reply", reply, h.inboxReply)
	shell.Page("POST /app/inbox/read", reply, h.inboxMarkAllRead)
	shell.Page("GET /app/templates", campaigns, h.templatesList)
	shell.Page("POST /app/templates", campaigns, h.templateCreate)
	shell.Page("POST /app/templates/{template_id}/delete", campaigns, h.templateDelete)
	shell.Page("GET /app/analytics", view, h.analyticsShow)
	shell.Page("GET /app/settings/quiet-hours", perm(rosterapi.PermSettings), h.quietShow)
	shell.Page("POST /app/settings/quiet-hours", perm(rosterapi.PermSettings), h.quietSave)
	shell.Page("GET /app/settings/keywords", perm(rosterapi.PermSettings), h.keywordsShow)
	shell.Page("POST /app/settings/keywords", perm(rosterapi.PermSettings), h.keywordCreate)
	shell.Page("POST /app/settings/keywords/{keyword_id}", perm(rosterapi.PermSettings), h.keywordSave)
	shell.Page("POST /app/settings/keywords/{keyword_id}/delete", perm(rosterapi.PermSettings), h.keywordDelete)
	return nil
}
