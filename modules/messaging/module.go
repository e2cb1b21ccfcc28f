// Package messaging owns templates, sends and estimates, approvals,
// scheduled and weekly sends, the carrier port and its adapters, deliveries
// and status ingestion, inbound texts and keywords, the inbox and analytics.
package messaging

import (
	"context"
	"log/slog"
	"net/http"

	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/messaging/internal/admin"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
	msghttp "github.com/teamtext/teamtext/modules/messaging/internal/httpapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/messaging/internal/worker"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/config"
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
		newCarrier, newCarrierRoutes,
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
	inboundOptions, // inbound texts, keywords, inbox, analytics (deps.go)
)

// CarrierRoutes are the carrier's HTTP endpoints outside /api/v1 (status
// callbacks), keyed by ServeMux pattern, all taking form-encoded bodies.
// The app mounts them on the public mux. Empty with the simulator.
type CarrierRoutes map[string]http.Handler

// newCarrier picks the adapter CARRIER names. The simulator stays provided
// either way: the admin API's outbox and outcome endpoints use it.
func newCarrier(cfg config.Config, sim *simulator.Simulator, log *slog.Logger) (carrier.Carrier, error) {
	if cfg.Carrier != "twilio" {
		return sim, nil
	}
	// Twilio's pace is wall-clock time, even when the service runs on the test clock.
	tw, err := twilio.New(twilio.Config{AccountSID: cfg.TwilioAccountSID, AuthToken: cfg.TwilioAuthToken,
		APIURL: cfg.TwilioAPIURL, PublicBaseURL: cfg.PublicBaseURL, Rate: cfg.TwilioRate}, log.With("component", "twilio"))
	if err != nil {
		return nil, err
	}
	return tw, nil
}

// newCarrierRoutes returns Twilio's status callback and incoming-message endpoints when CARRIER=twilio.
func newCarrierRoutes(cfg config.Config, d *db.DB, j *jobs.Jobs, clk clock.Clock, log *slog.Logger) CarrierRoutes {
	if cfg.Carrier != "twilio" {
		return CarrierRoutes{}
	}
	l := log.With("component", "twilio")
	return CarrierRoutes{
		http.MethodPost + " " + twilio.StatusPath:  twilio.NewCallbackHandler(d, j, cfg.TwilioAuthToken, cfg.PublicBaseURL, clk, l),
		http.MethodPost + " " + twilio.InboundPath: twilio.NewInboundHandler(d, j, cfg.TwilioAuthToken, cfg.PublicBaseURL, clk, l),
	}
}
