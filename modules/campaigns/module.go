// Package campaigns owns drip campaigns and their steps, and runs each step
// through messaging's contract.
package campaigns

import (
	"log/slog"

	"go.uber.org/fx"

	campaignshttp "github.com/teamtext/teamtext/modules/campaigns/internal/httpapi"
	"github.com/teamtext/teamtext/modules/campaigns/internal/postgres"
	"github.com/teamtext/teamtext/modules/campaigns/internal/service"
	campaignsweb "github.com/teamtext/teamtext/modules/campaigns/internal/web"
	"github.com/teamtext/teamtext/modules/campaigns/internal/worker"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/web"
)

// Migrations is the campaigns module's schema history, applied by `teamtext migrate`.
func Migrations() db.MigrationSet { return postgres.Migrations() }

type serviceParams struct {
	fx.In
	DB       *db.DB
	Jobs     *jobs.Jobs
	Clock    clock.Clock
	Sender   messagingapi.Sender
	Teams    rosterapi.Teams
	Members  rosterapi.Members
	Audience rosterapi.Audience
	Log      *slog.Logger
}

func newService(p serviceParams) *service.Service {
	return service.New(service.Deps{DB: p.DB, Repo: postgres.NewRepo(p.DB), Jobs: p.Jobs, Clock: p.Clock, Sender: p.Sender,
		Teams: p.Teams, Members: p.Members, Audience: p.Audience, Log: p.Log.With("module", "campaigns")})
}

// Module wires campaigns: the public and admin operations, the dashboard's
// Campaigns page and the step worker (group "workers").
var Module = fx.Module("campaigns",
	fx.Provide(fx.Private, newService),
	fx.Provide(fx.Annotate(worker.Registration, fx.ResultTags(`group:"workers"`))),
	fx.Invoke(
		func(pub httpapi.Public, adm httpapi.Admin, s *service.Service) {
			campaignshttp.Register(pub.API, adm.API, s)
		},
		func(shell *web.Shell, s *service.Service, groups rosterapi.Groups, templates messagingapi.Templates) error {
			return campaignsweb.Register(shell, campaignsweb.Deps{Campaigns: s, Groups: groups, Templates: templates})
		},
	),
)
