// Package webhooktest builds the webhooks module's service on a real
// Postgres (platform/db/dbtest) with River, and in-memory stand-ins for the
// other modules' contracts, for the module's integration tests and
// benchmarks. It is imported by tests only.
package webhooktest

import (
	"cmp"
	"context"
	"log/slog"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/batch"
	"github.com/teamtext/teamtext/modules/webhooks/internal/delivery"
	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/eventlog"
	"github.com/teamtext/teamtext/modules/webhooks/internal/mail"
	"github.com/teamtext/teamtext/modules/webhooks/internal/postgres"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	"github.com/teamtext/teamtext/modules/webhooks/internal/worker"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
)

// Clock is the shared settable test clock (it also drives River's notion of now).
type Clock = clock.Fake

// NewClock returns a clock at t.
func NewClock(t time.Time) *Clock { return clock.NewFake(t) }

// Directory stands in for the roster's contracts: teams and members.
type Directory struct {
	rosterapi.Members // unimplemented methods panic
	mu                sync.Mutex
	teams             map[string]rosterapi.Team
	members           map[string]rosterapi.Member
}

// NewDirectory returns an empty directory.
func NewDirectory() *Directory {
	return &Directory{teams: map[string]rosterapi.Team{}, members: map[string]rosterapi.Member{}}
}

// AddTeam records a team.
func (d *Directory) AddTeam(t rosterapi.Team) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.teams[t.ID] = t
}

// AddMember records (or replaces) a member.
func (d *Directory) AddMember(m rosterapi.Member) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.members[m.ID] = m
}

// Team implements rosterapi.Teams.
func (d *Directory) Team(_ context.Context, teamID string) (rosterapi.Team, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.teams[teamID]
	if !ok {
		return rosterapi.Team{}, errNotFound("team")
	}
	return t, nil
}

// TeamsByID implements rosterapi.Teams.
func (d *Directory) TeamsByID(_ context.Context, teamIDs []string) (map[string]rosterapi.Team, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[string]rosterapi.Team{}
	for _, id := range teamIDs {
		if t, ok := d.teams[id]; ok {
			out[id] = t
		}
	}
	return out, nil
}

// Member implements rosterapi.Members.
func (d *Directory) Member(_ context.Context, teamID, memberID string) (rosterapi.Member, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.members[memberID]
	if !ok || m.TeamID != teamID {
		return rosterapi.Member{}, errNotFound("member")
	}
	return m, nil
}

// KeyOwners implements rosterapi.Members: head coaches and team directors.
func (d *Directory) KeyOwners(_ context.Context, teamID string) ([]rosterapi.Member, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []rosterapi.Member
	for _, m := range d.members {
		if m.TeamID == teamID && m.Role.CanOwnKeys() {
			out = append(out, m)
		}
	}
	return out, nil
}

// Billing stands in for billingapi.Accounts: a plan per team.
type Billing struct {
	billingapi.Accounts // unimplemented methods panic
	mu                  sync.Mutex
	plans               map[string]billingapi.Plan
}

// SetPlan sets a team's plan.
func (b *Billing) SetPlan(teamID string, p billingapi.Plan) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.plans == nil {
		b.plans = map[string]billingapi.Plan{}
	}
	b.plans[teamID] = p
}

// Status implements billingapi.Accounts (the account without credit figures).
func (b *Billing) Status(ctx context.Context, teamID string) (billingapi.Account, error) {
	return b.Get(ctx, teamID)
}

// Statuses implements billingapi.Accounts.
func (b *Billing) Statuses(ctx context.Context, teamIDs []string) (map[string]billingapi.Account, error) {
	out := make(map[string]billingapi.Account, len(teamIDs))
	for _, id := range teamIDs {
		out[id], _ = b.Get(ctx, id)
	}
	return out, nil
}

// Get implements billingapi.Accounts.
func (b *Billing) Get(_ context.Context, teamID string) (billingapi.Account, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return billingapi.Standing{TeamID: teamID, Plan: b.plans[teamID], CardOnFile: true, PaymentState: billingapi.PaymentOK}.Account(), nil
}

// Sender is a scripted delivery.Sender: it answers from Results in order
// (the last one repeats) and counts calls.
type Sender struct {
	mu      sync.Mutex
	Results []delivery.Result
	calls   []delivery.Request
	clock   *Clock
}

// Send records r and returns the next scripted result, stamped with the clock.
func (s *Sender) Send(_ context.Context, r delivery.Request) delivery.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, r)
	res := delivery.Result{StatusCode: 200}
	if n := len(s.Results); n > 0 {
		res = s.Results[min(len(s.calls)-1, n-1)]
	}
	res.At = s.clock.Now()
	return res
}

// Calls returns the requests sent so far.
func (s *Sender) Calls() []delivery.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]delivery.Request(nil), s.calls...)
}

// Script replaces the scripted results.
func (s *Sender) Script(rs ...delivery.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Results = rs
}

// AcceptAll is a URL check that accepts any URL (the guard has its own tests).
type AcceptAll struct{}

// Check parses raw.
func (AcceptAll) Check(_ context.Context, raw string) (*url.URL, error) { return url.Parse(raw) }

// Env is a webhooks service on its own migrated database.
type Env struct {
	DB      *db.DB
	Repo    *postgres.Repo
	Path    *batch.Deliveries
	Log     *eventlog.Log
	Jobs    *jobs.Jobs
	Svc     *service.Service
	Clock   *Clock
	Sender  *Sender
	Dir     *Directory
	Billing *Billing
}

// Options tune New.
type Options struct {
	// Sender replaces the scripted sender (e.g. a real delivery.Sender).
	Sender service.Sender
	// Guard replaces AcceptAll.
	Guard service.URLChecker
	// RunWorkers starts River with the delivery worker.
	RunWorkers bool
	// RealClock uses the wall clock instead of a settable one.
	RealClock bool
	// WebhookWorkers is the slot count of the deliveries' queue with
	// RunWorkers (default 200, as the service's WEBHOOK_WORKERS); the
	// default queue (e-mail relay) has 50.
	WebhookWorkers int
}

// New builds the service on a fresh database of srv.
func New(tb testing.TB, srv *dbtest.Server, o Options) *Env {
	tb.Helper()
	d := srv.Migrated(tb, db.PlatformMigrations(), postgres.Migrations())
	repo := postgres.NewRepo(d)
	e := &Env{DB: d, Repo: repo, Path: batch.NewDeliveries(repo), Clock: NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)),
		Dir: NewDirectory(), Billing: &Billing{}}
	e.Sender = &Sender{clock: e.Clock}
	var clk clock.Clock = e.Clock
	if o.RealClock {
		clk = clock.Real{}
	}
	log := slog.New(slog.DiscardHandler)
	opts := jobs.Options{MaxWorkers: 50, Queues: []jobs.Queue{{Name: domain.Queue, MaxWorkers: cmp.Or(o.WebhookWorkers, 200), FetchPollInterval: 50 * time.Millisecond}},
		SoftStopTimeout: time.Second, RunWorkers: o.RunWorkers}
	j, err := jobs.New(d, clk, log, opts)
	if err != nil {
		tb.Fatal(err)
	}
	e.Jobs = j
	e.Log = eventlog.New(e.Repo, e.Dir, e.Billing, j, clk)
	var sender service.Sender = e.Sender
	if o.Sender != nil {
		sender = o.Sender
	}
	var guard service.URLChecker = AcceptAll{}
	if o.Guard != nil {
		guard = o.Guard
	}
	e.Svc = service.New(service.Deps{DB: d, Repo: e.Repo, Path: e.Path, Log: e.Log, Guard: guard, Sender: sender, Jobs: j,
		Mailer: mail.NewRecorder(e.Repo, clk), Teams: e.Dir, Members: e.Dir, Billing: e.Billing, Clock: clk, Logger: log})
	runner, err := jobs.NewRunner(j, []jobs.Registration{worker.Registration(worker.NewDeliverWorker(e.Svc),
		worker.NewPumpWorker(e.Svc, clk, log), worker.NewMailWorker(nil))}, metrics.New(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	if o.RunWorkers {
		if err := runner.Start(context.Background()); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = runner.Stop(ctx)
		})
	}
	return e
}

// Team makes a team on plan with a head coach (with an e-mail address) and
// returns the team and coach ids.
func (e *Env) Team(id string, plan billingapi.Plan) (teamID, coachID string) {
	e.Dir.AddTeam(rosterapi.Team{ID: id, Name: "Team " + id, Code: id})
	e.Billing.SetPlan(id, plan)
	coachID = id + "_coach"
	e.Dir.AddMember(rosterapi.Member{ID: coachID, TeamID: id, Name: "Coach", Email: "coach@" + id + ".test",
		Role: rosterapi.RoleHeadCoach, Status: "active", CanSendBroadcasts: true})
	return id, coachID
}

// Deliveries reads a team's deliveries as stored, oldest first.
func (e *Env) Deliveries(tb testing.TB, teamID string) []domain.Delivery {
	tb.Helper()
	var ds []domain.Delivery
	err := e.DB.Bun.NewRaw(`SELECT id, team_id, event_id, webhook_id, state, attempts, next_attempt_at, created_at, updated_at,
		round_from, queued FROM webhook_deliveries WHERE team_id = ? ORDER BY created_at, id`, teamID).Scan(context.Background(), &ds)
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}

func errNotFound(what string) error { return fault.NotFoundf("%s not found", what) }
