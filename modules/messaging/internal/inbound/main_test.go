package inbound_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/billingapi/billingtest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/worker"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/events/eventstest"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

// newRoster is the shared in-memory roster (rostertest) on clk with teams
// and their entries.
func newRoster(t testing.TB, clk clock.Clock, teams []rosterapi.Team, members ...rosterapi.Member) *rostertest.Roster {
	t.Helper()
	r := rostertest.New(clk)
	for _, tm := range teams {
		require.NoError(t, r.AddTeam(context.Background(), tm))
	}
	for _, m := range members {
		require.NoError(t, r.AddMember(context.Background(), m))
	}
	return r
}

// calls are the keyword texts the roster kept, as "stop +1…", "start
// +1…", "help +1…".
func calls(r *rostertest.Roster) []string {
	var out []string
	for _, k := range r.KeywordTexts() {
		out = append(out, k.Keyword+" "+string(k.Phone))
	}
	return out
}

// newBilling is the shared in-memory billing (billingtest) with an
// account on the Team plan for each of teamIDs.
func newBilling(t testing.TB, teamIDs ...string) *billingtest.Accounts {
	t.Helper()
	b := billingtest.New(clock.NewFake(t0))
	for _, id := range teamIDs {
		require.NoError(t, b.Open(context.Background(), id, billingapi.Settings{Plan: billingapi.PlanTeam}))
	}
	return b
}

// setOverdue sets a team's payment state, as billing's renewals do.
func setOverdue(t testing.TB, b *billingtest.Accounts, teamID string, overdue bool) {
	t.Helper()
	state := billingapi.PaymentOK
	if overdue {
		state = billingapi.PaymentOverdue
	}
	require.NoError(t, b.Update(context.Background(), teamID, billingapi.Patch{PaymentState: &state}))
}

// creditsUsed is the credits the team was charged this period.
func creditsUsed(t testing.TB, b *billingtest.Accounts, teamID string) int {
	t.Helper()
	a, err := b.Get(context.Background(), teamID)
	require.NoError(t, err)
	return a.CreditsUsed
}

// texts is a carrier that records what it was handed.
type texts struct {
	mu   sync.Mutex
	sent []carrier.Message
}

func (c *texts) Name() string { return "test" }

func (c *texts) Paced(context.Context) (bool, error) { return false, nil }

func (c *texts) Send(_ context.Context, m carrier.Message) (carrier.Receipt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, m)
	return carrier.Receipt{ProviderMessageID: "SMtest" + m.DeliveryID, Status: "queued"}, nil
}

func (c *texts) Sent() []carrier.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]carrier.Message(nil), c.sent...)
}

// services are the inbound capabilities under test, on one database.
type services struct {
	*inbound.Service
	*inbound.Inbox
	*inbound.Replies
	*inbound.Analytics
}

type testBundle struct {
	db     *db.DB
	repo   *postgres.Repo
	roster *rostertest.Roster
	// rosterClock dates the roster's opt-outs.
	rosterClock *clock.Fake
	billing     *billingtest.Accounts
	carrier     *texts
	releaser    *inbound.Releaser
	team        rosterapi.Team
}

const (
	teamNumber = "+12025550100"
	parent     = "+12025550101"
	stranger   = "+12025550109"
)

// setup returns a service on a fresh database, with one team ("Tigers",
// number teamNumber) whose roster has parent twice (an opted-out entry made
// first, then two active ones) and a head coach.
func setup(t *testing.T) (*services, *testBundle) {
	t.Helper()
	d := server.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	require.NoError(t, eventstest.CreateTable(context.Background(), d))
	log := slog.New(slog.DiscardHandler)
	j, err := jobs.New(d, clock.Real{}, log, jobs.Options{})
	require.NoError(t, err)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	team := rosterapi.Team{ID: "team_1", Name: "Tigers", Code: "tigers", Number: teamNumber}
	rosterClock := clock.NewFake(base)
	r := newRoster(t, rosterClock, []rosterapi.Team{team},
		rosterapi.Member{ID: "mem_old", TeamID: team.ID, Name: "Old Entry", Phone: parent, Role: rosterapi.RoleGuardian, Status: "opted_out", CreatedAt: base},
		rosterapi.Member{ID: "mem_a", TeamID: team.ID, Name: "Pat (Ann's parent)", Phone: parent, Role: rosterapi.RoleGuardian, Status: "active", CreatedAt: base.Add(time.Hour)},
		rosterapi.Member{ID: "mem_b", TeamID: team.ID, Name: "Pat (Bo's parent)", Phone: parent, Role: rosterapi.RoleGuardian, Status: "active", CreatedAt: base.Add(2 * time.Hour)},
		rosterapi.Member{ID: "mem_coach", TeamID: team.ID, Name: "Coach", Phone: "+12025550199", Role: rosterapi.RoleHeadCoach, Status: "active", CreatedAt: base},
		rosterapi.Member{ID: "mem_kid", TeamID: team.ID, Name: "Kid", Phone: "+12025550102", Role: rosterapi.RoleAthlete, Status: "active", CreatedAt: base},
	)
	b := newBilling(t, team.ID)
	c := &texts{}
	repo := postgres.NewRepo(d, nil)
	pub := eventstest.Table{}
	replies := inbound.NewReplies(inbound.ReplyDeps{Tx: d, Jobs: j, Store: repo, Inbox: repo, Clock: clock.Real{}, Teams: r, Members: r,
		Lookup: r, OptOuts: r, Billing: b, Carrier: c, Log: log})
	svc := &services{
		Service: inbound.New(inbound.Deps{Tx: d, Store: repo, Help: replies, Clock: clock.Real{}, Lookup: r, Billing: b, Events: pub,
			Log: log, Keywords: r}),
		Inbox:     inbound.NewInbox(inbound.InboxDeps{Store: repo, Clock: clock.Real{}}),
		Replies:   replies,
		Analytics: inbound.NewAnalytics(inbound.AnalyticsDeps{Counters: repo, Stats: r, Clock: clock.Real{}}),
	}
	_, err = jobs.NewRunner(j, []jobs.Registration{worker.Inbound(svc.Service, replies, clock.Real{}, nil)}, metrics.New(), jobs.Options{})
	require.NoError(t, err)
	rel := inbound.NewReleaser(inbound.ReleaserDeps{Tx: d, Store: repo, Clock: clock.Real{}, Log: log})
	rel.Bind(pub)
	return svc, &testBundle{db: d, repo: repo, roster: r, rosterClock: rosterClock, billing: b, carrier: c, releaser: rel, team: team}
}

// text is a text to the team's number with a fresh provider id.
func text(from, body string) inbound.Args {
	return inbound.Args{From: from, To: teamNumber, Body: body, ProviderMessageID: id.New("SM"), ReceivedAt: time.Now().UTC()}
}

// event is a stored event.
type event struct {
	Type string
	Data map[string]any
}

func (b *testBundle) events(t *testing.T, typ string) []event {
	t.Helper()
	rows, err := b.db.Bun.QueryContext(context.Background(), `SELECT type, data FROM test_events WHERE type = ? ORDER BY seq`, typ)
	require.NoError(t, err)
	defer rows.Close()
	var out []event
	for rows.Next() {
		var e event
		var raw []byte
		require.NoError(t, rows.Scan(&e.Type, &raw))
		require.NoError(t, json.Unmarshal(raw, &e.Data))
		out = append(out, e)
	}
	require.NoError(t, rows.Err())
	return out
}

func (b *testBundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.Bun.QueryRowContext(context.Background(), sql, args...).Scan(&n))
	return n
}
