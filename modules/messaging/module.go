// Package messaging owns templates, sends and estimates, approvals,
// scheduled and weekly sends, the carrier port and its adapters, deliveries
// and status ingestion, inbound texts and keywords, the inbox and analytics.
package messaging

import (
	"context"
	"log/slog"

	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/messaging/internal/admin"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	msghttp "github.com/teamtext/teamtext/modules/messaging/internal/httpapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/messaging/internal/worker"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Migrations is messaging's schema history, applied by `teamtext migrate`.
func Migrations() db.MigrationSet { return postgres.Migrations() }

// keyRevoked stops a revoked key's scheduled sends. It depends on the
// repository only, so roster (which calls it) and messaging's service (which
// needs roster's directory) do not form a cycle.
type keyRevoked struct {
	repo  *postgres.Repo
	clock clock.Clock
	log   *slog.Logger
}

func (k *keyRevoked) OnKeyRevoked(ctx context.Context, ev rosterapi.KeyRevoked) error {
	n, err := k.repo.StopKeyScheduled(ctx, ev.KeyID, "key_revoked", k.clock.Now().UTC())
	if n > 0 {
		k.log.Info("scheduled sends stopped: key revoked", "key_id", ev.KeyID, "count", n)
	}
	return err
}

// Module wires messaging.
var Module = fx.Module("messaging",
	fx.Provide(
		postgres.NewRepo,
		fx.Annotate(func(r *postgres.Repo, clk clock.Clock, log *slog.Logger) rosterapi.KeyRevokedListener {
			return &keyRevoked{repo: r, clock: clk, log: log}
		}, fx.ResultTags(`group:"key_revoked"`)),
		simulator.New,
		func(sim *simulator.Simulator) carrier.Carrier { return sim },
		func(d service.Deps) *service.Service { return service.New(d) },
		fx.Annotate(service.NewContract, fx.As(new(messagingapi.Sender))),
	),
	fx.Provide(fx.Private, func(in depsIn) service.Deps {
		return service.Deps{DB: in.DB, Repo: in.Repo, Jobs: in.Jobs, Clock: in.Clock, Teams: in.Teams, Members: in.Members,
			Audience: in.Audience, Lookup: in.Lookup, Billing: in.Billing, Events: in.Events, Carrier: in.Carrier, Log: in.Log}
	}),
	fx.Invoke(
		func(j *jobs.Jobs, s *service.Service) { j.Register(worker.Registration(s)) },
		func(api httpapi.Public, s *service.Service) { msghttp.Register(api.API, s) },
		func(api httpapi.Admin, s *service.Service, sim *simulator.Simulator) { admin.Register(api.API, s, sim) },
	),
)
