// Package roster owns teams' identity, members (staff and dashboard logins
// included), groups, custom fields, opt-outs, number checks and API keys.
package roster

import (
	"go.uber.org/fx"
	"log/slog"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	rosterhttp "github.com/teamtext/teamtext/modules/roster/internal/httpapi"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	rosterweb "github.com/teamtext/teamtext/modules/roster/internal/web"
	"github.com/teamtext/teamtext/modules/roster/internal/worker"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/webhooks/webhooksapi"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/ratelimit"
	"github.com/teamtext/teamtext/platform/web"
)

// Migrations is the roster module's schema history, applied by `teamtext migrate`.
func Migrations() db.MigrationSet { return postgres.Migrations() }

// serviceParams are the roster service's collaborators, the listeners
// of other modules included.
type serviceParams struct {
	fx.In
	DB            *db.DB
	Repo          *postgres.Repo
	Billing       billingapi.Accounts
	Events        events.Publisher
	Jobs          *jobs.Jobs
	Clock         clock.Clock
	Log           *slog.Logger
	KeyRevoked    []rosterapi.KeyRevokedListener    `group:"key_revoked"`
	OwnerInactive []rosterapi.OwnerInactiveListener `group:"owner_inactive"`
}

func newService(p serviceParams) *service.Service {
	return service.New(p.DB, stores(p.Repo), p.Billing, p.Events, p.Jobs, p.Clock, p.Log, p.KeyRevoked, p.OwnerInactive)
}

// stores are the service's stores: the repository keeps them all.
func stores(r *postgres.Repo) service.Stores {
	return service.Stores{Teams: r, Members: r, Groups: r, Fields: r, Imports: r, OptOuts: r, Consent: r, Joins: r,
		Directory: directoryStores(r)}
}

// directoryStores are the directory's stores: the repository keeps them all.
func directoryStores(r *postgres.Repo) service.DirectoryStores {
	return service.DirectoryStores{Teams: r, Members: r, Groups: r, Outcomes: r}
}

// The repository is the sign-in's store too.
var _ service.SignInStore = (*postgres.Repo)(nil)

// signInParams are the dashboard sign-in's collaborators.
type signInParams struct {
	fx.In
	DB      *db.DB
	Repo    *postgres.Repo
	Limiter *ratelimit.Limiter
	Texter  messagingapi.Texter
	Mailer  webhooksapi.Mailer
	Clock   clock.Clock
	Log     *slog.Logger
	Config  config.Config
}

func newSignIn(p signInParams) *service.SignIn {
	return &service.SignIn{DB: p.DB, Store: p.Repo, Limiter: p.Limiter, Texter: p.Texter, Mailer: p.Mailer, Clock: p.Clock,
		PerAddress: p.Config.SignInCodesPerAddress,
		Log:        p.Log.With("component", "dashboard")}
}

func newWebJoin(s *service.Service, p signInParams) *service.WebJoin {
	return &service.WebJoin{Roster: s, Limiter: p.Limiter, Texter: p.Texter, PerAddress: p.Config.SignInCodesPerAddress, Clock: p.Clock,
		Log: p.Log.With("component", "join")}
}

func newDirectory(r *postgres.Repo) *service.Directory {
	return service.NewDirectory(directoryStores(r))
}

// Module wires the roster. Other modules join the "key_revoked" group with a
// rosterapi.KeyRevokedListener to react to revocations.
var Module = fx.Module("roster",
	fx.Provide(
		fx.Private, postgres.NewRepo,
	),
	fx.Provide(
		newService,
		fx.Annotate(newDirectory, fx.As(new(rosterapi.Teams)), fx.As(new(rosterapi.Members)), fx.As(new(rosterapi.Audience)), fx.As(new(rosterapi.Lookup)), fx.As(new(rosterapi.Stats))),
		fx.Annotate(func(s *service.Service) rosterapi.OptOuts { return s }),
		func(r *postgres.Repo) rosterapi.Deliverability { return newDirectory(r) },
		func(r *postgres.Repo) rosterapi.Groups { return newDirectory(r) },
		func(r *postgres.Repo) rosterapi.GroupMembers { return newDirectory(r) },
		func(r *postgres.Repo) rosterapi.MergeFields { return newDirectory(r) },
		func(r *postgres.Repo) rosterapi.Zones { return newDirectory(r) },
		fx.Annotate(func(s *service.Service) rosterapi.Keywords { return s }),
		fx.Annotate(func(s *service.Service) rosterapi.Joining { return s }),
		newWebJoin,
		fx.Annotate(func(s *service.Service) auth.Authenticator { return s }),
		fx.Annotate(worker.Registration, fx.ResultTags(`group:"workers"`)),
		newSignIn,
		func(s *service.SignIn) web.Sessions { return rosterweb.Sessions{SignIn: s} },
		func(s *service.SignIn) web.ActivityLog { return rosterweb.Sessions{SignIn: s} },
	),
	fx.Invoke(
		func(public httpapi.Public, admin httpapi.Admin, s *service.Service, signIn *service.SignIn) {
			rosterhttp.Register(public.API, admin.API, s, signIn)
		},
		func(shell *web.Shell, signIn *service.SignIn, s *service.Service, join *service.WebJoin, texts messagingapi.DeliveryLog, cfg config.Config) error {
			return rosterweb.Register(shell, rosterweb.Deps{SignIn: signIn, Roster: s, Join: join, Deliveries: texts, BaseURL: cfg.PublicBaseURL})
		},
	),
)
