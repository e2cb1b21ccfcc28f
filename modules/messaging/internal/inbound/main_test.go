package inbound_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/worker"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

// roster is an in-memory roster: teams, entries and opt-outs. The embedded
// contracts are nil: they only keep it compiling when a contract grows.
type roster struct {
	rosterapi.Teams
	rosterapi.Members
	rosterapi.Lookup
	rosterapi.OptOuts
	rosterapi.Stats
	mu       sync.Mutex
	teams    map[string]rosterapi.Team
	members  []rosterapi.Member
	optedOut map[string]bool // team|phone
	calls    []string        // "stop +1…", "start +1…", "help +1…"
	keywords []rosterapi.KeywordText
	counts   [2]int // what Counts answers
	failFrom string // keywords from this number fail (a text that cannot be filed)
}

func (r *roster) Team(_ context.Context, teamID string) (rosterapi.Team, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.teams[teamID]
	if !ok {
		return rosterapi.Team{}, fault.NotFoundf("team not found")
	}
	return t, nil
}

func (r *roster) TeamByNumber(_ context.Context, e164 string) (rosterapi.Team, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.teams {
		if t.Number == e164 {
			return t, nil
		}
	}
	return rosterapi.Team{}, fault.NotFoundf("team not found")
}

func (r *roster) Member(_ context.Context, teamID, memberID string) (rosterapi.Member, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.members {
		if m.TeamID == teamID && m.ID == memberID {
			return m, nil
		}
	}
	return rosterapi.Member{}, fault.NotFoundf("member not found")
}

func (r *roster) KeyOwners(context.Context, string) ([]rosterapi.Member, error) { return nil, nil }

func (r *roster) MembersByPhone(_ context.Context, teamID, phone string) ([]rosterapi.Member, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []rosterapi.Member
	for _, m := range r.members {
		if m.TeamID == teamID && m.Phone == phone {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

func (r *roster) TeamsByNumbers(ctx context.Context, e164s []string) (map[string]rosterapi.Team, error) {
	out := map[string]rosterapi.Team{}
	for _, n := range e164s {
		if t, err := r.TeamByNumber(ctx, n); err == nil {
			out[n] = t
		}
	}
	return out, nil
}

func (r *roster) MembersByTeamPhones(ctx context.Context, pairs []rosterapi.TeamPhone) (map[rosterapi.TeamPhone][]rosterapi.Member, error) {
	out := map[rosterapi.TeamPhone][]rosterapi.Member{}
	for _, p := range pairs {
		ms, err := r.MembersByPhone(ctx, p.TeamID, p.Phone)
		if err != nil {
			return nil, err
		}
		if len(ms) > 0 {
			out[p] = ms
		}
	}
	return out, nil
}

func (r *roster) CustomFieldKeys(context.Context, string) (map[string]bool, error) {
	return map[string]bool{}, nil
}

// Keyword is roster's rosterapi.Keywords: stop and start change the
// opt-outs; every keyword text is kept.
func (r *roster) Keyword(_ context.Context, k rosterapi.KeywordText) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if k.Phone == r.failFrom {
		return false, errors.New("roster refused the keyword")
	}
	r.calls = append(r.calls, k.Keyword+" "+k.Phone)
	r.keywords = append(r.keywords, k)
	key := k.TeamID + "|" + k.Phone
	was := r.optedOut[key]
	switch k.Keyword {
	case "stop":
		r.optedOut[key] = true
		return !was, nil
	case "start":
		delete(r.optedOut, key)
		return was, nil
	}
	return false, nil
}

func (r *roster) Keywords() []rosterapi.KeywordText {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]rosterapi.KeywordText(nil), r.keywords...)
}

func (r *roster) IsOptedOut(_ context.Context, teamID, phone string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.optedOut[teamID+"|"+phone], nil
}

func (r *roster) Counts(context.Context, string, time.Time, time.Time) (int, int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[0], r.counts[1], nil
}

func (r *roster) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// billing answers payment states and records consumed credits (the
// embedded contract is nil, as in roster).
type billing struct {
	billingapi.Accounts
	mu       sync.Mutex
	overdue  map[string]bool
	consumed map[string]int
}

func (b *billing) Get(_ context.Context, teamID string) (billingapi.Account, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := billingapi.PaymentOK
	if b.overdue[teamID] {
		st = billingapi.PaymentOverdue
	}
	return billingapi.Standing{TeamID: teamID, PaymentState: st}.Account(), nil
}

func (b *billing) Status(ctx context.Context, teamID string) (billingapi.Account, error) {
	return b.Get(ctx, teamID)
}

func (b *billing) Statuses(ctx context.Context, teamIDs []string) (map[string]billingapi.Account, error) {
	out := map[string]billingapi.Account{}
	for _, id := range teamIDs {
		a, err := b.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out[id] = a
	}
	return out, nil
}

func (b *billing) Consume(_ context.Context, teamID, _ string, credits int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.consumed[teamID] += credits
	return nil
}

func (b *billing) setOverdue(teamID string, v bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.overdue[teamID] = v
}

// published records events that the transaction committed: it stores them
// in the transaction and tests read them back from the table.
type published struct{ db *db.DB }

func (p published) Publish(ctx context.Context, ev events.Event) error {
	tx, err := db.MustTx(ctx)
	if err != nil {
		return err
	}
	b, err := json.Marshal(ev.Data)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO test_events (team_id, type, data) VALUES (?, ?, ?)`, ev.TeamID, ev.Type, string(b))
	return err
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
	db       *db.DB
	repo     *postgres.Repo
	roster   *roster
	billing  *billing
	carrier  *texts
	releaser *inbound.Releaser
	team     rosterapi.Team
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
	_, err := d.Bun.ExecContext(context.Background(), `CREATE TABLE test_events (seq bigserial, team_id text, type text, data jsonb)`)
	require.NoError(t, err)
	log := slog.New(slog.DiscardHandler)
	j, err := jobs.New(d, clock.Real{}, log, jobs.Options{})
	require.NoError(t, err)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	team := rosterapi.Team{ID: "team_1", Name: "Tigers", Code: "tigers", Number: teamNumber}
	r := &roster{teams: map[string]rosterapi.Team{team.ID: team}, optedOut: map[string]bool{}, members: []rosterapi.Member{
		{ID: "mem_old", TeamID: team.ID, Name: "Old Entry", Phone: parent, Role: rosterapi.RoleGuardian, Status: "opted_out", CreatedAt: base},
		{ID: "mem_a", TeamID: team.ID, Name: "Pat (Ann's parent)", Phone: parent, Role: rosterapi.RoleGuardian, Status: "active", CreatedAt: base.Add(time.Hour)},
		{ID: "mem_b", TeamID: team.ID, Name: "Pat (Bo's parent)", Phone: parent, Role: rosterapi.RoleGuardian, Status: "active", CreatedAt: base.Add(2 * time.Hour)},
		{ID: "mem_coach", TeamID: team.ID, Name: "Coach", Phone: "+12025550199", Role: rosterapi.RoleHeadCoach, Status: "active", CreatedAt: base},
		{ID: "mem_kid", TeamID: team.ID, Name: "Kid", Phone: "+12025550102", Role: rosterapi.RoleAthlete, Status: "active", CreatedAt: base},
	}}
	b := &billing{overdue: map[string]bool{}, consumed: map[string]int{}}
	c := &texts{}
	repo := postgres.NewRepo(d, nil)
	pub := published{db: d}
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
	return svc, &testBundle{db: d, repo: repo, roster: r, billing: b, carrier: c, releaser: rel, team: team}
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
