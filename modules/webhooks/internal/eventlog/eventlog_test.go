package eventlog_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/billingapi/billingtest"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/eventlog"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
)

// The event log's rules run over an in-memory store and job inserter; a
// real Postgres (dbtest, no module schema) only supplies the publishing
// transaction the log insists on.

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

// hook is a webhook as the fake store knows it.
type hook struct {
	id, team string
	events   []string
	enabled  bool
}

// store is an in-memory eventlog.Store that keeps Repo's contract:
// InsertEvent fans an unskipped event out to the team's enabled webhooks
// subscribed to its type (or to its WebhookID alone), oldest first, with
// delivery ids from ids in order and none beyond them.
type store struct {
	hooks      []hook // oldest first
	events     []domain.Event
	idsGiven   [][]string
	deliveries []domain.Delivery
	subsAsked  [][]string
	calls      []string
}

func (s *store) InsertEvent(_ context.Context, e *domain.Event, ids []string) ([]domain.Target, error) {
	s.calls = append(s.calls, "InsertEvent")
	s.events = append(s.events, *e)
	s.idsGiven = append(s.idsGiven, ids)
	if e.Skipped {
		return nil, nil
	}
	var out []domain.Target
	for _, h := range s.hooks {
		if h.team != e.TeamID || !h.enabled {
			continue
		}
		if e.WebhookID != nil && h.id != *e.WebhookID || e.WebhookID == nil && !slices.Contains(h.events, e.Type) {
			continue
		}
		t := domain.Target{WebhookID: h.id}
		if n := len(out); n < len(ids) {
			t.DeliveryID = ids[n]
			s.deliveries = append(s.deliveries, domain.NewDelivery(ids[n], e.TeamID, e.ID, h.id, e.CreatedAt))
		}
		out = append(out, t)
	}
	return out, nil
}

func (s *store) InsertEvents(_ context.Context, es []domain.Event) error {
	s.calls = append(s.calls, "InsertEvents")
	s.events = append(s.events, es...)
	return nil
}

func (s *store) SubscriptionsOf(_ context.Context, teamIDs []string) (map[string]map[string][]string, error) {
	s.calls = append(s.calls, "SubscriptionsOf")
	s.subsAsked = append(s.subsAsked, slices.Sorted(slices.Values(teamIDs)))
	out := map[string]map[string][]string{}
	for _, h := range s.hooks {
		if !h.enabled || !slices.Contains(teamIDs, h.team) {
			continue
		}
		if out[h.team] == nil {
			out[h.team] = map[string][]string{}
		}
		for _, typ := range h.events {
			out[h.team][typ] = append(out[h.team][typ], h.id)
		}
	}
	return out, nil
}

func (s *store) InsertDeliveries(_ context.Context, ds []domain.Delivery) error {
	s.calls = append(s.calls, "InsertDeliveries")
	s.deliveries = append(s.deliveries, ds...)
	return nil
}

// inserter records the jobs inserted, per call.
type inserter struct{ calls [][]river.InsertManyParams }

func (j *inserter) InsertMany(_ context.Context, ps []river.InsertManyParams) error {
	j.calls = append(j.calls, ps)
	return nil
}

// env is an event log over fakes, with two teams: "api" (Team Plus, whose
// plan includes the API) and "basic" (Team, whose does not).
type env struct {
	db    *db.DB
	store *store
	jobs  *inserter
	clock *clock.Fake
	log   *eventlog.Log
	plans *billingtest.Accounts
	teams *rostertest.Roster
}

// now is the clock's time: nanoseconds and not UTC, so that truncation and
// the zone show.
var now = time.Date(2026, 11, 24, 13, 14, 15, 123456789, time.FixedZone("X", 3600))

func newEnv(t *testing.T, hooks ...hook) *env {
	t.Helper()
	e := &env{db: srv.Migrated(t), store: &store{hooks: hooks}, jobs: &inserter{}, clock: clock.NewFake(now)}
	e.plans, e.teams = billingtest.New(e.clock), rostertest.New(e.clock)
	ctx := context.Background()
	for _, tm := range []struct {
		id, code string
		plan     billingapi.Plan
	}{{"api", "API1", billingapi.PlanTeamPlus}, {"basic", "BAS1", billingapi.PlanTeam}} {
		require.NoError(t, e.teams.AddTeam(ctx, rosterapi.Team{ID: tm.id, Code: tm.code}))
		require.NoError(t, e.plans.Open(ctx, tm.id, billingapi.Settings{Plan: tm.plan}))
	}
	e.log = eventlog.New(e.store, e.teams, e.plans, e.jobs, e.clock)
	return e
}

// tx runs fn in a transaction.
func (e *env) tx(t *testing.T, fn func(ctx context.Context) error) error {
	t.Helper()
	return e.db.Tx(context.Background(), fn)
}

// jobOf is the delivery job a params entry carries.
func jobOf(t *testing.T, p river.InsertManyParams) domain.DeliverArgs {
	t.Helper()
	a, ok := p.Args.(domain.DeliverArgs)
	require.True(t, ok, "a delivery job, got %T", p.Args)
	require.NotNil(t, p.InsertOpts)
	require.Equal(t, domain.Queue, p.InsertOpts.Queue, "every attempt goes to the webhooks queue")
	return a
}

func hooksOf(team string, n int, events ...string) []hook {
	hs := make([]hook, n)
	for i := range hs {
		hs[i] = hook{id: team + "_w" + string(rune('a'+i)), team: team, events: events, enabled: true}
	}
	return hs
}

// TestPublishFansOutToSubscribedWebhooks: an event of a team whose plan
// includes the API is stored unskipped, in the caller's transaction, with
// its envelope (new evt_ id, created at the clock's time in UTC to the
// microsecond, the team's id and code, the data); it gets one pending
// delivery due at the event's time and one first-attempt job per enabled
// subscribed webhook, oldest first, and nothing for the others.
func TestPublishFansOutToSubscribedWebhooks(t *testing.T) {
	hs := append(hooksOf("api", 2, events.MemberJoined, events.MemberOptedOut),
		hook{id: "api_off", team: "api", events: []string{events.MemberJoined}},
		hook{id: "api_other", team: "api", events: []string{events.MemberOptedOut}},
		hook{id: "basic_w", team: "basic", events: []string{events.MemberJoined}, enabled: true})
	e := newEnv(t, hs...)
	require.NoError(t, e.tx(t, func(ctx context.Context) error {
		return e.log.Publish(ctx, events.Event{TeamID: "api", Type: events.MemberJoined, Data: map[string]string{"k": "v"}})
	}))

	require.Len(t, e.store.events, 1)
	ev := e.store.events[0]
	require.True(t, strings.HasPrefix(ev.ID, "evt_"), ev.ID)
	require.False(t, ev.Skipped)
	require.Nil(t, ev.WebhookID)
	require.Equal(t, "api", ev.TeamID)
	require.Equal(t, events.MemberJoined, ev.Type)
	at := now.UTC().Truncate(time.Microsecond)
	require.True(t, ev.CreatedAt.Equal(at), "created at the clock's time to the microsecond: %v", ev.CreatedAt)
	require.Equal(t, time.UTC, ev.CreatedAt.Location())
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(ev.Body), &body))
	require.Equal(t, map[string]any{"id": ev.ID, "type": events.MemberJoined, "created_at": "2026-11-24T12:14:15.123456Z",
		"team": map[string]any{"id": "api", "code": "API1"}, "data": map[string]any{"k": "v"}}, body)

	// Delivery ids are made ahead (several, distinct), used in order.
	require.Len(t, e.store.idsGiven, 1)
	ids := e.store.idsGiven[0]
	require.GreaterOrEqual(t, len(ids), 2)
	require.Len(t, slices.Compact(slices.Sorted(slices.Values(ids))), len(ids), "distinct ids")
	for _, id := range ids {
		require.True(t, strings.HasPrefix(id, "dlv_"), id)
	}
	require.Len(t, e.store.deliveries, 2)
	for i, d := range e.store.deliveries {
		require.Equal(t, ids[i], d.ID)
		require.Equal(t, hs[i].id, d.WebhookID)
		require.Equal(t, domain.StatePending, d.State)
	}
	require.Equal(t, []string{"InsertEvent", "InsertDeliveries"}, e.store.calls, "no delivery beyond the ids: an empty insert")
	require.Len(t, e.jobs.calls, 1, "the jobs in one insert")
	require.Len(t, e.jobs.calls[0], 2)
	for i, p := range e.jobs.calls[0] {
		require.Equal(t, domain.DeliverArgs{TeamID: "api", DeliveryID: ids[i], Attempt: 1}, jobOf(t, p))
	}
}

// TestPublishBeyondTheIdsStoresTheRest: a fan-out wider than the ids made
// ahead stores the remaining deliveries itself (pending, due at the
// event's time, new dlv_ ids), and every target still gets its job, in the
// webhooks' order; Published names each delivery with its webhook.
func TestPublishBeyondTheIdsStoresTheRest(t *testing.T) {
	hs := hooksOf("api", 11, events.MemberJoined)
	e := newEnv(t, hs...)
	require.NoError(t, e.tx(t, func(ctx context.Context) error {
		return e.log.Publish(ctx, events.Event{TeamID: "api", Type: events.MemberJoined})
	}))
	ev := e.store.events[0]
	ids := e.store.idsGiven[0]
	require.Less(t, len(ids), len(hs), "fewer ids ahead than this fan-out")
	require.Len(t, e.store.deliveries, len(hs))
	seen := map[string]bool{}
	for i, d := range e.store.deliveries {
		require.Equal(t, hs[i].id, d.WebhookID, "deliveries in the webhooks' order")
		require.Equal(t, domain.NewDelivery(d.ID, "api", ev.ID, hs[i].id, ev.CreatedAt), d)
		require.True(t, strings.HasPrefix(d.ID, "dlv_"), d.ID)
		require.False(t, seen[d.ID], "distinct delivery ids")
		seen[d.ID] = true
		if i < len(ids) {
			require.Equal(t, ids[i], d.ID)
		}
	}
	require.Len(t, e.jobs.calls, 1)
	require.Len(t, e.jobs.calls[0], len(hs))
	for i, p := range e.jobs.calls[0] {
		require.Equal(t, domain.DeliverArgs{TeamID: "api", DeliveryID: e.store.deliveries[i].ID, Attempt: 1}, jobOf(t, p))
	}
}

// TestPublishBelowTeamPlusIsSkipped: a team whose plan does not include
// the API has its event stored, skipped, with no delivery ids, no
// deliveries and no jobs, even with subscribed webhooks.
func TestPublishBelowTeamPlusIsSkipped(t *testing.T) {
	e := newEnv(t, hooksOf("basic", 2, events.MemberJoined)...)
	var pub eventlog.Published
	require.NoError(t, e.tx(t, func(ctx context.Context) error {
		var err error
		pub, err = e.log.PublishTo(ctx, events.Event{TeamID: "basic", Type: events.MemberJoined}, "basic_wa")
		return err
	}))
	require.True(t, pub.Skipped)
	require.Empty(t, pub.Deliveries)
	require.NoError(t, e.tx(t, func(ctx context.Context) error {
		return e.log.Publish(ctx, events.Event{TeamID: "basic", Type: events.MemberJoined})
	}))
	require.Len(t, e.store.events, 2)
	for i, ev := range e.store.events {
		require.True(t, ev.Skipped)
		require.Empty(t, e.store.idsGiven[i])
		require.Equal(t, pub.EventID, e.store.events[0].ID)
	}
	require.Empty(t, e.store.deliveries)
	require.Empty(t, e.jobs.calls)
}

// TestPublishToOneWebhook: a test event goes to the named webhook only,
// whatever it subscribes to, with one delivery id made ahead; Published
// tells the event and its delivery.
func TestPublishToOneWebhook(t *testing.T) {
	hs := hooksOf("api", 3, events.MemberOptedOut)
	e := newEnv(t, hs...)
	var pub eventlog.Published
	require.NoError(t, e.tx(t, func(ctx context.Context) error {
		var err error
		pub, err = e.log.PublishTo(ctx, events.Event{TeamID: "api", Type: events.MemberJoined}, "api_wb")
		return err
	}))
	ev := e.store.events[0]
	require.NotNil(t, ev.WebhookID)
	require.Equal(t, "api_wb", *ev.WebhookID)
	require.Len(t, e.store.idsGiven[0], 1)
	require.Equal(t, eventlog.Published{EventID: ev.ID, Deliveries: []eventlog.Delivery{{ID: e.store.idsGiven[0][0], WebhookID: "api_wb"}}}, pub)
	require.Len(t, e.jobs.calls, 1)
	require.Equal(t, domain.DeliverArgs{TeamID: "api", DeliveryID: pub.Deliveries[0].ID, Attempt: 1}, jobOf(t, e.jobs.calls[0][0]))
}

// TestPublishWithoutTargetsInsertsNoJobs: an unskipped event no webhook
// takes stores the event only.
func TestPublishWithoutTargetsInsertsNoJobs(t *testing.T) {
	e := newEnv(t, hooksOf("api", 1, events.MemberOptedOut)...)
	require.NoError(t, e.tx(t, func(ctx context.Context) error {
		return e.log.Publish(ctx, events.Event{TeamID: "api", Type: events.MemberJoined})
	}))
	require.Len(t, e.store.events, 1)
	require.False(t, e.store.events[0].Skipped)
	require.Equal(t, []string{"InsertEvent"}, e.store.calls)
	require.Empty(t, e.jobs.calls)
}

// TestPublishNeedsTransactionTeamAndAccount: publishing outside a
// transaction fails before anything is stored; so does an event of an
// unknown team or of a team without an account (not found).
func TestPublishNeedsTransactionTeamAndAccount(t *testing.T) {
	e := newEnv(t, hooksOf("api", 1, events.MemberJoined)...)
	err := e.log.Publish(context.Background(), events.Event{TeamID: "api", Type: events.MemberJoined})
	require.ErrorContains(t, err, "no transaction")
	err = e.log.PublishTeams(context.Background(), []events.Event{{TeamID: "api", Type: events.MemberJoined}})
	require.ErrorContains(t, err, "no transaction")

	require.NoError(t, e.teams.AddTeam(context.Background(), rosterapi.Team{ID: "noacct"}))
	for _, team := range []string{"ghost", "noacct"} {
		err := e.tx(t, func(ctx context.Context) error {
			return e.log.Publish(ctx, events.Event{TeamID: team, Type: events.MemberJoined})
		})
		f, ok := fault.As(err)
		require.True(t, ok, "%s: a fault, got %v", team, err)
		require.Equal(t, fault.NotFound, f.Kind, team)
		err = e.tx(t, func(ctx context.Context) error {
			return e.log.PublishTeams(ctx, []events.Event{{TeamID: "api", Type: events.MemberJoined}, {TeamID: team, Type: events.MemberJoined}})
		})
		f, ok = fault.As(err)
		require.True(t, ok, "%s: a fault, got %v", team, err)
		require.Equal(t, fault.NotFound, f.Kind, team)
	}
	require.Empty(t, e.store.calls)
	require.Empty(t, e.jobs.calls)
}

// TestPublishTeamsFansOutPerTeam: events of several teams are stored in
// one call, each skipped unless its team's plan includes the API; only
// those teams' subscriptions are read, once; each unskipped event gets a
// delivery and a first-attempt job per enabled subscribed webhook of its
// own team, in the events' then the webhooks' order, in one call each.
func TestPublishTeamsFansOutPerTeam(t *testing.T) {
	hs := append(hooksOf("api", 2, events.MemberJoined),
		hook{id: "api_left", team: "api", events: []string{events.MemberOptedOut}, enabled: true},
		hook{id: "api_off", team: "api", events: []string{events.MemberJoined, events.MemberOptedOut}},
		hook{id: "basic_w", team: "basic", events: []string{events.MemberJoined, events.MemberOptedOut}, enabled: true})
	e := newEnv(t, hs...)
	evs := []events.Event{
		{TeamID: "api", Type: events.MemberJoined, Data: 1},
		{TeamID: "basic", Type: events.MemberJoined, Data: 2},
		{TeamID: "api", Type: events.MemberOptedOut, Data: 3},
		{TeamID: "api", Type: events.MemberJoined, Data: 4},
	}
	require.NoError(t, e.tx(t, func(ctx context.Context) error { return e.log.PublishTeams(ctx, evs) }))
	require.Equal(t, []string{"InsertEvents", "SubscriptionsOf", "InsertDeliveries"}, e.store.calls)
	require.Equal(t, [][]string{{"api"}}, e.store.subsAsked, "only teams whose plan includes the API")
	require.Len(t, e.store.events, len(evs))
	for i, ev := range e.store.events {
		require.Equal(t, evs[i].TeamID, ev.TeamID)
		require.Equal(t, evs[i].Type, ev.Type)
		require.Equal(t, evs[i].TeamID != "api", ev.Skipped, "event %d", i)
		require.Contains(t, ev.Body, `"data":`+string(rune('1'+i)))
	}
	type pair struct{ event, webhook string }
	want := []pair{
		{e.store.events[0].ID, "api_wa"}, {e.store.events[0].ID, "api_wb"},
		{e.store.events[2].ID, "api_left"},
		{e.store.events[3].ID, "api_wa"}, {e.store.events[3].ID, "api_wb"},
	}
	var got []pair
	for _, d := range e.store.deliveries {
		got = append(got, pair{d.EventID, d.WebhookID})
		require.Equal(t, domain.StatePending, d.State)
	}
	require.Equal(t, want, got)
	require.Len(t, e.jobs.calls, 1)
	require.Len(t, e.jobs.calls[0], len(want))
	for i, p := range e.jobs.calls[0] {
		require.Equal(t, domain.DeliverArgs{TeamID: "api", DeliveryID: e.store.deliveries[i].ID, Attempt: 1}, jobOf(t, p))
	}
}

// TestPublishTeamsWithoutAPITeams: when no event's team has the API, the
// events are stored and nothing else is read or written; an empty batch
// does nothing at all.
func TestPublishTeamsWithoutAPITeams(t *testing.T) {
	e := newEnv(t, hooksOf("basic", 1, events.MemberJoined)...)
	require.NoError(t, e.tx(t, func(ctx context.Context) error {
		if err := e.log.PublishTeams(ctx, nil); err != nil {
			return err
		}
		return e.log.PublishTeams(ctx, []events.Event{{TeamID: "basic", Type: events.MemberJoined}})
	}))
	require.Equal(t, []string{"InsertEvents"}, e.store.calls)
	require.True(t, e.store.events[0].Skipped)
	require.Empty(t, e.jobs.calls)
}

// TestPublishManyIsOneTeams: PublishMany refuses a batch holding another
// team's event before storing anything, and otherwise publishes as
// PublishTeams does.
func TestPublishManyIsOneTeams(t *testing.T) {
	e := newEnv(t, hooksOf("api", 1, events.MemberJoined)...)
	err := e.tx(t, func(ctx context.Context) error {
		return e.log.PublishMany(ctx, "api", []events.Event{{TeamID: "api", Type: events.MemberJoined}, {TeamID: "basic", Type: events.MemberJoined}})
	})
	require.ErrorContains(t, err, "an event of team basic in a batch of api")
	require.Empty(t, e.store.calls)
	require.NoError(t, e.tx(t, func(ctx context.Context) error {
		return e.log.PublishMany(ctx, "api", []events.Event{{TeamID: "api", Type: events.MemberJoined}, {TeamID: "api", Type: events.MemberJoined}})
	}))
	require.Equal(t, []string{"InsertEvents", "SubscriptionsOf", "InsertDeliveries"}, e.store.calls)
	require.Len(t, e.store.deliveries, 2)
	require.Len(t, e.jobs.calls[0], 2)
}

// TestMarshal: the envelope's created_at is UTC with six decimals, the
// other fields as given.
func TestMarshal(t *testing.T) {
	b, err := eventlog.Marshal(events.Envelope{ID: "evt_1", Type: events.MemberOptedOut,
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 7000, time.FixedZone("Y", -2*3600)),
		Team:      events.Team{ID: "t", Code: "C"}, Data: []int{1}})
	require.NoError(t, err)
	require.JSONEq(t, `{"id":"evt_1","type":"member.opted_out","created_at":"2026-01-02T05:04:05.000007Z","team":{"id":"t","code":"C"},"data":[1]}`, string(b))
}
