// Package web is messaging's face in the staff dashboard (DASHBOARD.md):
// Home, and the pages of the daily work. Handlers call messaging's use
// cases only; the role table is rosterapi's, asked through the viewer.
package web

import (
	"embed"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/web"
)

//go:embed templates/*.html
var templates embed.FS

// Services are the use cases messaging's pages call.
type Services struct {
	Send    *service.Service
	Inbox   *inbound.Inbox
	Billing billingapi.Accounts
}

// handler serves messaging's dashboard pages.
type handler struct {
	shell *web.Shell
	svc   Services
	home  *web.Template
}

// perm is a row of the role table as the shell takes it.
func perm(p rosterapi.Permission) web.Permission { return web.Permission(p) }

// Register adds messaging's pages and nav links to the shell: its route table.
func Register(shell *web.Shell, s Services) error {
	h := &handler{shell: shell, svc: s}
	var err error
	if h.home, err = shell.Template(templates, "templates/home.html"); err != nil {
		return err
	}
	shell.Nav(web.NavItem{Name: "Home", Path: "/app/", Order: 10, Perm: perm(rosterapi.PermView)})
	shell.Page("GET /app/{$}", 0, h.homeShow)
	return nil
}
