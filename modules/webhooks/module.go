// Package webhooks owns webhook subscriptions, the event log, signed
// delivery with retries, auto-disable, the SSRF guard and e-mail notices.
// It implements platform/events.Publisher for every other module, and
// listens to the roster's key-revoked and owner-inactive signals.
package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/batch"
	"github.com/teamtext/teamtext/modules/webhooks/internal/delivery"
	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/eventlog"
	"github.com/teamtext/teamtext/modules/webhooks/internal/guard"
	webhookshttp "github.com/teamtext/teamtext/modules/webhooks/internal/httpapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/mail"
	"github.com/teamtext/teamtext/modules/webhooks/internal/postgres"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	webhooksweb "github.com/teamtext/teamtext/modules/webhooks/internal/web"
	"github.com/teamtext/teamtext/modules/webhooks/internal/worker"
	"github.com/teamtext/teamtext/modules/webhooks/webhooksapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/web"
)

// Migrations is the webhooks module's schema history, applied by `teamtext migrate`.
func Migrations() db.MigrationSet { return postgres.Migrations() }

// Module wires webhooks: the event log as events.Publisher, the public and
// admin operations, the dashboard's Webhooks pages (Settings), the
// delivery and e-mail workers, and the roster
// listeners (groups "key_revoked" and "owner_inactive").
var Module = fx.Module("webhooks",
	fx.Provide(
		fx.Private, postgres.NewRepo, newDeliveryPath,
	),
	fx.Provide(
		fx.Private, newGuard, newSender, newRecorder, newMailer, newDeliverWorker, newPumpWorker, newMailWorker,
	),
	fx.Provide(
		fx.Annotate(worker.Registration, fx.ResultTags(`group:"workers"`)),
		fx.Annotate(func(cfg config.Config) jobs.Queue {
			return jobs.Queue{Name: domain.Queue, MaxWorkers: cfg.WebhookWorkers, FetchPollInterval: pumpPoll}
		}, fx.ResultTags(`group:"queues"`)),
		func(repo *postgres.Repo, teams rosterapi.Teams, billing billingapi.Accounts, j *jobs.Jobs, clk clock.Clock) *eventlog.Log {
			return eventlog.New(repo, teams, billing, j, clk)
		},
		func(l *eventlog.Log) events.Publisher { return l },
		newService,
		func(m mail.Mailer) webhooksapi.Mailer { return contractMailer{m} },
		fx.Annotate(func(s *service.Service) rosterapi.KeyRevokedListener { return s }, fx.ResultTags(`group:"key_revoked"`)),
		fx.Annotate(func(s *service.Service) rosterapi.OwnerInactiveListener { return s }, fx.ResultTags(`group:"owner_inactive"`)),
	),
	fx.Invoke(
		registerMetrics,
		func(public httpapi.Public, admin httpapi.Admin, s *service.Service) {
			webhookshttp.Register(public.API, admin.API, s)
		},
		func(shell *web.Shell, s *service.Service, members rosterapi.Members) error {
			return webhooksweb.Register(shell, webhooksweb.Deps{Webhooks: s, Members: members})
		},
	),
)

// contractMailer is the module's mailer as other modules see it.
type contractMailer struct{ m mail.Mailer }

func (c contractMailer) Mail(ctx context.Context, m webhooksapi.Mail) error {
	return c.m.Send(ctx, mail.Message{TeamID: m.TeamID, MemberID: m.MemberID, To: m.To, Subject: m.Subject, Body: m.Body})
}

// pumpPoll is how often the webhooks queue looks for jobs that came due
// without a notification: a throttled queue's pump snoozed until its next
// slot wakes at most this late (and catches up, domain.CatchUp).
const pumpPoll = 50 * time.Millisecond

// newGuard builds the URL guard from WEBHOOK_ALLOW_CIDRS, WEBHOOK_CA_FILE and
// WEBHOOK_DNS_SERVER.
func newGuard(cfg config.Config, log *slog.Logger) (*guard.Guard, error) {
	roots, err := guard.LoadRoots(cfg.WebhookCAFile)
	if err != nil {
		return nil, fmt.Errorf("webhooks: %w", err)
	}
	if len(cfg.WebhookAllowCIDRs) > 0 {
		log.Warn("webhook guard lets private ranges through (WEBHOOK_ALLOW_CIDRS); for tests only", "ranges", fmt.Sprint(cfg.WebhookAllowCIDRs))
	}
	o := guard.Options{Allow: cfg.WebhookAllowCIDRs, RootCAs: roots}
	if server := cfg.WebhookDNSServer; server != "" {
		o.Resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, server)
		}}
	}
	return guard.New(o), nil
}

// newDeliveryPath gathers the delivery workers' concurrent reads and
// records into the repository's set-based statements.
func newDeliveryPath(repo *postgres.Repo) *batch.Deliveries { return batch.NewDeliveries(repo) }

func newSender(g *guard.Guard, clk clock.Clock) *delivery.Sender {
	return delivery.NewSender(g.Client(), clk)
}

func newDeliverWorker(s *service.Service) *worker.DeliverWorker { return worker.NewDeliverWorker(s) }

func newPumpWorker(s *service.Service, clk clock.Clock, log *slog.Logger) *worker.PumpWorker {
	return worker.NewPumpWorker(s, clk, log)
}

// newMailWorker hands mail to the relay when SMTP_ADDR is set (a nil
// *mail.SMTP must not become a non-nil interface).
func newMailWorker(smtp *mail.SMTP) *worker.MailWorker {
	if smtp == nil {
		return worker.NewMailWorker(nil)
	}
	return worker.NewMailWorker(smtp)
}

// newRecorder records e-mails in the module's tables.
func newRecorder(repo *postgres.Repo, clk clock.Clock) *mail.Recorder {
	return mail.NewRecorder(repo, clk)
}

// newMailer picks the e-mail adapter: SMTP when SMTP_ADDR is set (the
// *mail.SMTP is also the relay job's sender), else the recorder alone.
func newMailer(cfg config.Config, rec *mail.Recorder, j *jobs.Jobs) (mail.Mailer, *mail.SMTP) {
	if cfg.SMTPAddr == "" {
		return rec, nil
	}
	s := mail.NewSMTP(rec, j, mail.SettingsFrom(cfg))
	return s, s
}

type serviceParams struct {
	fx.In
	DB      *db.DB
	Repo    *postgres.Repo
	Path    *batch.Deliveries
	Log     *eventlog.Log
	Guard   *guard.Guard
	Sender  *delivery.Sender
	Jobs    *jobs.Jobs
	Mailer  mail.Mailer
	Teams   rosterapi.Teams
	Members rosterapi.Members
	Billing billingapi.Accounts
	Clock   clock.Clock
	Logger  *slog.Logger
	Config  config.Config
}

func newService(p serviceParams) *service.Service {
	return service.New(service.Deps{DB: p.DB, Repo: p.Repo, Path: p.Path, Log: p.Log, Guard: p.Guard, Sender: p.Sender, Jobs: p.Jobs,
		Mailer: p.Mailer, Teams: p.Teams, Members: p.Members, Billing: p.Billing, Clock: p.Clock,
		Logger: p.Logger.With("module", "webhooks"), SecretOverlap: p.Config.WebhookSecretOverlap})
}
