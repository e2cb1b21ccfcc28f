// Package app is the composition root: it builds the fx graph of platform
// and modules, and implements the teamtext CLI commands.
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/teamtext/teamtext/modules/billing"
	"github.com/teamtext/teamtext/modules/campaigns"
	"github.com/teamtext/teamtext/modules/messaging"
	"github.com/teamtext/teamtext/modules/roster"
	"github.com/teamtext/teamtext/modules/webhooks"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/jobsui"
	"github.com/teamtext/teamtext/platform/metrics"
	"github.com/teamtext/teamtext/platform/postman"
	"github.com/teamtext/teamtext/platform/ratelimit"
	"github.com/teamtext/teamtext/platform/retention"
	"github.com/teamtext/teamtext/platform/web"
)

// Migrations lists every owner's migrations; db.Migrate runs them by Order.
func Migrations() []db.MigrationSet {
	return []db.MigrationSet{db.PlatformMigrations(), roster.Migrations(), billing.Migrations(), messaging.Migrations(), campaigns.Migrations(), webhooks.Migrations()}
}

// modules is every business module, in no particular order (fx resolves it).
func modules() fx.Option {
	return fx.Options(roster.Module, billing.Module, messaging.Module, campaigns.Module, webhooks.Module)
}

type muxes struct {
	public *http.ServeMux
	admin  *http.ServeMux
}

// openDB opens the process's database: db.Open for `serve`, db.OpenLazy
// for `openapi`, which builds the graph but never queries.
type openDB func(ctx context.Context, url string, maxConns int32) (*db.DB, error)

// platformOptions provides the technical capabilities every module uses.
func platformOptions(cfg config.Config, log *slog.Logger, version string, open openDB) fx.Option {
	return fx.Options(
		fx.Supply(cfg, log),
		fx.WithLogger(func() fxevent.Logger {
			l := &fxevent.SlogLogger{Logger: log.With("component", "fx")}
			l.UseLogLevel(slog.LevelDebug)
			return l
		}),
		fx.StopTimeout(cfg.ShutdownTimeout),
		fx.Provide(
			metrics.New,
			func(lc fx.Lifecycle, m *metrics.Metrics) (*db.DB, error) {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				defer cancel()
				d, err := open(ctx, cfg.DatabaseURL, cfg.DBMaxConns)
				if err != nil {
					return nil, err
				}
				m.RegisterDB(d.Pool, log)
				lc.Append(fx.StopHook(d.Close))
				return d, nil
			},
			func(lc fx.Lifecycle) (clock.Clock, *clock.Test, error) {
				if !cfg.TestClock() {
					return clock.Real{}, nil, nil
				}
				pcfg, err := pgxpool.ParseConfig(cfg.DatabaseURL)
				if err != nil {
					return nil, nil, err
				}
				pcfg.MaxConns = 4
				pool, err := pgxpool.NewWithConfig(context.Background(), pcfg)
				if err != nil {
					return nil, nil, fmt.Errorf("test clock pool: %w", err)
				}
				lc.Append(fx.StopHook(pool.Close))
				t := clock.NewTest(pool)
				return t, t, nil
			},
			// The insert client is provided early: use cases depend on it alone.
			func(d *db.DB, clk clock.Clock) (*jobs.Jobs, error) { return jobs.New(d, clk, log, jobOptions(cfg)) },
			// The worker client is built last, from every module's workers.
			fx.Annotate(func(j *jobs.Jobs, regs []jobs.Registration, periodic []*river.PeriodicJob, queues []jobs.Queue, m *metrics.Metrics) (*jobs.Runner, error) {
				opts := jobOptions(cfg)
				opts.Queues, opts.Periodic = queues, periodic
				return jobs.NewRunner(j, regs, m, opts)
			}, fx.ParamTags(``, `group:"workers"`, `group:"periodic"`, `group:"queues"`)),
			fx.Annotate(func(l *ratelimit.Limiter) jobs.Registration {
				return func(w *river.Workers) {
					river.AddWorker(w, &ratelimit.SweepWorker{Limiter: l, OlderThan: time.Hour})
				}
			}, fx.ResultTags(`group:"workers"`)),
			fx.Annotate(ratelimit.SweepSchedule, fx.ResultTags(`group:"periodic"`)),
			fx.Annotate(func(d *db.DB, clk clock.Clock) jobs.Registration {
				return func(w *river.Workers) {
					river.AddWorker(w, &retention.Worker{Pool: d.Pool, Clock: clk, Targets: retentionTargets(cfg),
						Budget: cfg.JobTimeout / 2, Log: log.With("component", "retention")})
				}
			}, fx.ResultTags(`group:"workers"`)),
			fx.Annotate(retention.Schedule, fx.ResultTags(`group:"periodic"`)),
			func() muxes { return muxes{public: http.NewServeMux(), admin: http.NewServeMux()} },
			func(d *db.DB, clk clock.Clock) *ratelimit.Limiter { return ratelimit.New(d.Pool, clk) },
			func(mx muxes, a auth.Authenticator, lim *ratelimit.Limiter) httpapi.Public {
				api := httpapi.NewAPI(mx.public, httpapi.APIOptions{
					Title: "Team Texting Service API", Version: "1.1.0", Prefix: "/api/v1",
					ServerURL:    cfg.PublicBaseURL + "/api/v1",
					Description:  publicDescription,
					PublicAccess: true,
				})
				api.UseMiddleware(auth.NewGate(api, a, lim, log).Middleware)
				api.UseMiddleware(httpapi.Guard(api)) // after the gate: 401/403/429 come before 400
				return httpapi.Public{API: api}
			},
			// The staff dashboard's shell: modules add their pages to it.
			func(mx muxes, sessions web.Sessions, activity web.ActivityLog, d *db.DB) (*web.Shell, error) {
				clientAddr := httpapi.ClientAddressOptions{Trusted: cfg.TrustedProxies, Header: httpapi.ClientHeader(cfg.TrustedProxyHeader)}
				shell, err := web.New(sessions, activity, d, web.Options{Secure: strings.HasPrefix(cfg.PublicBaseURL, "https://"), Log: log,
					ClientIP: func(r *http.Request) netip.Addr { a, _ := httpapi.ClientIP(r, clientAddr); return a }})
				if err != nil {
					return nil, err
				}
				mx.public.Handle(web.Prefix, shell)
				// The teams' public sign-up pages (GET /join/{team_code}).
				mx.public.Handle(joinPages, shell)
				// The roster's CSV upload is mounted on its own pattern, so the
				// edge gives it the import's body limit, not the forms' one.
				mx.public.Handle(dashboardUpload, shell)
				return shell, nil
			},
			func(mx muxes) httpapi.Admin {
				api := httpapi.NewAPI(mx.admin, httpapi.APIOptions{
					Title: "teamtext admin API", Version: version, Prefix: "/admin/v1",
					ServerURL:   "http://" + cfg.AdminAddr + "/admin/v1",
					Description: "Everything the spec leaves to the dashboard. Bearer ADMIN_TOKEN. " + inputRules,
				})
				api.UseMiddleware(auth.AdminMiddleware(api, cfg.AdminToken))
				api.UseMiddleware(httpapi.Guard(api))
				return httpapi.Admin{API: api}
			},
		),
		fx.Invoke(registerClock),
		// In a module of its own, declared before the business modules: fx
		// runs its Invoke before theirs, so River's hooks are appended where
		// they always were: started before the modules' own hooks (messaging's
		// hand-over loops) and the listeners, stopped after them.
		fx.Module("jobs", fx.Invoke(func(lc fx.Lifecycle, r *jobs.Runner) {
			lc.Append(fx.Hook{OnStart: r.Start, OnStop: r.Stop})
		})),
	)
}

// jobOptions are River's settings from the configuration.
func jobOptions(cfg config.Config) jobs.Options {
	return jobs.Options{
		MaxWorkers: cfg.JobWorkers, JobTimeout: cfg.JobTimeout, RescueAfter: cfg.JobRescueAfter,
		FetchCooldown: cfg.JobFetchCooldown, SoftStopTimeout: cfg.ShutdownTimeout / 2, RunWorkers: true,
		FinishedRetention: cfg.RetentionJobs,
	}
}

const publicDescription = `The Team Texting Service API v1 (see the specification). Every request carries ` +
	"`Authorization: Bearer <API_KEY>`" + `. Errors are {"error":{"code","message"}}, plus the members a code documents ` +
	`(existing_member_id, existing_template_id, existing_field_id). Lists carry pagination (limit 1-200, default 50). ` +
	inputRules + ` The OpenAPI document and the Postman collection are served without a key.`

// inputRules are the request rules both APIs share (platform/httpapi.Guard).
const inputRules = `Null: a body field accepts null only where this document declares it nullable; ` +
	`anywhere else null is 400 invalid_request (leave the field out instead). Text: a NUL character (\u0000) in a body ` +
	`string or a query value is 400 invalid_request, and in a path 404 not_found; a body that is not UTF-8 or holds an ` +
	`unpaired surrogate (\uD800-\uDFFF) is 400 invalid_json. An empty query value is 400 invalid_request for a parameter ` +
	`that is not free text (an enum, a number, a date); an empty free-text filter is the same as leaving it out. ` +
	`Names (of members, groups, templates, custom fields, campaigns, teams) need a visible character: one made only of ` +
	`spaces or zero-width characters is 400 invalid_request.`

// Serve builds the whole service and runs it until SIGINT/SIGTERM.
// dashboardUpload is the dashboard's one upload (Roster, Import: the CSV
// file), and dashboardUploadLimit its body limit: the admin import's 16 MiB
// file with room for the multipart framing.
const (
	dashboardUpload      = "POST /app/roster/import"
	dashboardUploadLimit = 17 << 20
	// joinPages are the teams' public sign-up pages, served by the shell.
	joinPages = "/join/"
)

func newServeApp(cfg config.Config, log *slog.Logger, version string, drain *draining, extra ...fx.Option) *fx.App {
	return fx.New(
		platformOptions(cfg, log, version, db.Open),
		modules(),
		fx.Invoke(func(lc fx.Lifecycle, mx muxes, pub httpapi.Public, adm httpapi.Admin, d *db.DB, j *jobs.Jobs, m *metrics.Metrics,
			carrierRoutes messaging.CarrierRoutes, shell *web.Shell, runner *jobs.Runner) error {
			addHealth(mx.public, d, drain)
			addPostman(mx.public, pub.API, cfg.PublicBaseURL)
			mx.admin.Handle("GET /metrics", m.Handler())
			addPprof(mx.admin)
			// River's UI, behind the admin token (docs/OPERATIONS.md, "River's UI").
			ui, err := jobsui.New(runner.Client(), jobsui.Options{Token: cfg.AdminToken, Actions: cfg.RiverUIActions,
				Clock: clock.Real{}, Log: log.With("component", "riverui")})
			if err != nil {
				return err
			}
			ui.Mount(mx.admin)
			lc.Append(fx.Hook{OnStart: ui.Start, OnStop: ui.Stop})
			// Carrier callbacks are mounted as they are (not under a stripped
			// prefix): signatures cover the exact URL the carrier called.
			formRoutes := map[string][]string{web.Prefix: {"application/x-www-form-urlencoded", "multipart/form-data"},
				dashboardUpload: {"multipart/form-data"}, joinPages: {"application/x-www-form-urlencoded"}}
			for pattern, h := range carrierRoutes {
				mx.public.Handle(pattern, h)
				if strings.Contains(pattern, "/carrier/twilio/") { // Telnyx and Bandwidth post JSON
					formRoutes[pattern] = []string{"application/x-www-form-urlencoded"}
				}
			}
			// Behind TRUSTED_PROXIES the client's address replaces the
			// proxy's before anything (limits, logs) reads it.
			clientAddr := httpapi.ClientAddressOptions{Trusted: cfg.TrustedProxies, Header: httpapi.ClientHeader(cfg.TrustedProxyHeader)}
			publicSrv := newServer(httpapi.ClientAddress(httpapi.Edge(mx.public, httpapi.EdgeOptions{Name: "public", MaxBodyBytes: cfg.MaxBodyBytes,
				BodyLimit: map[string]int64{dashboardUpload: dashboardUploadLimit}, MediaTypes: formRoutes, Log: log, Metrics: m}), clientAddr))
			_ = shell // the dashboard is mounted on mx.public when the graph builds it
			adminSrv := newServer(httpapi.Edge(mx.admin, httpapi.EdgeOptions{Name: "admin", MaxBodyBytes: cfg.MaxBodyBytes,
				BodyLimit: map[string]int64{"POST /admin/v1/teams/{team_id}/members/import": 16 << 20},
				MediaTypes: map[string][]string{"POST /admin/v1/teams/{team_id}/members/import": {"text/csv"},
					jobsui.SignInPattern: {"application/x-www-form-urlencoded"}},
				Log: log, Metrics: m}))
			lc.Append(listenHook(publicSrv, cfg.Addr, "public", log))
			lc.Append(listenHook(adminSrv, cfg.AdminAddr, "admin", log))
			return nil
		}),
		fx.Options(extra...),
	)
}

// addPprof serves Go's profiles on the admin listener, beside /metrics
// (loopback by default): `go tool pprof http://127.0.0.1:8081/debug/pprof/profile?seconds=30`.
func addPprof(mux *http.ServeMux) {
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
}

func newServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second}
}

// listenHook binds at start (so a busy port fails start-up, and ":0" gets
// a real port that is logged) and shuts down gracefully at stop: no new
// connections, in-flight requests finish.
func listenHook(srv *http.Server, addr, name string, log *slog.Logger) fx.Hook {
	return fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen %s on %s: %w", name, addr, err)
			}
			log.Info("http listening", "api", name, "addr", ln.Addr().String())
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("http server stopped", "api", name, "err", err)
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			log.Info("http shutting down", "api", name)
			return srv.Shutdown(ctx)
		},
	}
}

// draining is set when the process was told to stop: /readyz then answers
// 503 while everything else still serves, so load balancers take the node
// out of rotation before its listeners close (SHUTDOWN_DRAIN_DELAY).
type draining struct{ atomic.Bool }

func addHealth(mux *http.ServeMux, d *db.DB, drain *draining) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]string{"status": "ok"}})
	})
	var mu sync.Mutex
	ready := false
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if drain.Load() {
			httpapi.WriteError(w, r, httpapi.NewError(http.StatusServiceUnavailable, httpapi.CodeNotReady, "shutting down"))
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		if err := d.Pool.Ping(ctx); err != nil {
			httpapi.WriteError(w, r, httpapi.NewError(http.StatusServiceUnavailable, httpapi.CodeNotReady, "database unreachable"))
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !ready {
			n, err := db.Pending(ctx, d, Migrations())
			if err != nil || n > 0 {
				msg := fmt.Sprintf("%d migrations pending; run teamtext migrate", n)
				if err != nil {
					msg = "cannot read migration state; run teamtext migrate"
				}
				httpapi.WriteError(w, r, httpapi.NewError(http.StatusServiceUnavailable, httpapi.CodeNotReady, msg))
				return
			}
			ready = true
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]string{"status": "ready"}})
	})
}

func addPostman(mux *http.ServeMux, api huma.API, base string) {
	var once sync.Once
	var body []byte
	var genErr error
	mux.HandleFunc("GET /api/v1/postman.json", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() {
			doc, err := json.Marshal(api.OpenAPI())
			if err != nil {
				genErr = err
				return
			}
			body, genErr = postman.FromOpenAPI(doc, postman.Options{Name: "Team Texting Service API v1", BaseURL: base + "/api/v1"})
		})
		if genErr != nil {
			httpapi.WriteError(w, r, httpapi.FromFault(&fault.Error{Kind: fault.Internal, Code: fault.CodeServerError, Err: genErr}))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// retentionTargets are the tables that grow with use, pruned by age
// (RETENTION_*). Attempts go with their webhook delivery (ON DELETE
// CASCADE); River's finished jobs are pruned by River's own cleaner.
// Each table's ids are platform/id ids of the prefix named.
func retentionTargets(cfg config.Config) []retention.Target {
	return []retention.Target{
		{Table: "messaging_deliveries", IDPrefix: "dlv", Keep: cfg.RetentionDeliveries},
		{Table: "webhook_deliveries", IDPrefix: "dlv", Keep: cfg.RetentionWebhooks},
		{Table: "webhook_events", IDPrefix: "evt", Keep: cfg.RetentionWebhooks},
		{Table: "roster_activity", IDPrefix: "act", Keep: cfg.RetentionActivity},
		{Table: "roster_imports", IDPrefix: "imp", Keep: cfg.RetentionImports},
		// Sign-up conversations and web sign-up codes: the member's consent
		// record keeps the evidence; these only serve the sign-up itself.
		{Table: "roster_join_conversations", IDPrefix: "jcv", Keep: 30 * 24 * time.Hour},
		{Table: "roster_join_codes", IDPrefix: "jcd", Keep: 2 * 24 * time.Hour},
	}
}
