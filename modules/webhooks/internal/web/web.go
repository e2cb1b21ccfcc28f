// Package web is the webhooks module's face in the staff dashboard
// (DASHBOARD.md, Settings): the team's webhooks, adding one (its signing
// secret shown once), Send test event, Turn on (the person becomes its
// owner, spec §3), Delete, Rotate secret, the per-endpoint throttle, and
// the delivery log with Retry and Recover. Handlers call the webhooks
// module's use cases only; every write goes through the shell's Do, so it
// and its activity record commit together.
package web

import (
	"embed"
	"net/http"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	"github.com/teamtext/teamtext/platform/web"
)

//go:embed templates/*.html
var templates embed.FS

// Deps are what the webhooks pages need.
type Deps struct {
	Webhooks *service.Service
	// Members names each webhook's owner.
	Members rosterapi.Members
}

// handler serves the webhooks pages.
type handler struct {
	shell         *web.Shell
	svc           *service.Service
	members       rosterapi.Members
	list, webhook *web.Template
}

// Register adds the webhooks pages to the shell: its route table. They sit
// under Settings (head coach and team director only), which links to them.
func Register(shell *web.Shell, d Deps) error {
	h := &handler{shell: shell, svc: d.Webhooks, members: d.Members}
	for _, t := range []struct {
		dst  **web.Template
		name string
	}{{&h.list, "webhooks"}, {&h.webhook, "webhook"}} {
		var err error
		if *t.dst, err = shell.Template(templates, "templates/"+t.name+".html"); err != nil {
			return err
		}
	}
	p := web.Permission(rosterapi.PermSettings)
	shell.Page("GET /app/settings/webhooks", p, h.listShow)
	shell.Page("POST /app/settings/webhooks", p, h.create)
	shell.Page("GET /app/settings/webhooks/{webhook_id}", p, h.show)
	shell.Page("POST /app/settings/webhooks/{webhook_id}/test", p, h.sendTest)
	shell.Page("POST /app/settings/webhooks/{webhook_id}/enable", p, h.enable)
	shell.Page("POST /app/settings/webhooks/{webhook_id}/delete", p, h.delete)
	shell.Page("POST /app/settings/webhooks/{webhook_id}/rotate", p, h.rotate)
	shell.Page("POST /app/settings/webhooks/{webhook_id}/throttle", p, h.throttle)
	shell.Page("POST /app/settings/webhooks/{webhook_id}/recover", p, h.recover)
	shell.Page("POST /app/settings/webhooks/{webhook_id}/deliveries/{delivery_id}/retry", p, h.retry)
	return nil
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
