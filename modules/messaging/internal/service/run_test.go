package service_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/billingapi/billingtest"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
)

// The planner and jobs a send reaches, as fakes.

type planner struct{ done time.Time }

func (p planner) Plan(context.Context, outbound.SendPlan) (outbound.Planned, error) {
	return outbound.Planned{Finish: p.done}, nil
}
func (p planner) Completion(context.Context, rosterapi.Team, []string, int, bool) (outbound.Estimate, error) {
	return outbound.Estimate{Finish: p.done}, nil
}

type job struct {
	args river.JobArgs
	at   time.Time
}

type jobs struct{ inserted []job }

func (j *jobs) Insert(_ context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	j.inserted = append(j.inserted, job{args: args, at: opts.ScheduledAt})
	return &rivertype.JobInsertResult{}, nil
}

// sendWorld is a service whose sends go through: a team with a number in
// New York, two members on one phone and one on another. The staff who
// send are kept on a roster of their own (the shared fake's), so that they
// are no recipients of the sends' audience.
type sendWorld struct {
	t      *testing.T
	svc    *service.Service
	store  *memStore
	clock  *clock.Fake
	roster *rostertest.Roster // the team and the audience
	bill   *billingtest.Accounts
	jobs   *jobs
}

func newSendWorld(t *testing.T) *sendWorld {
	t.Helper()
	ctx := context.Background()
	store, clk := newMemStore(), clock.NewFake(t0)
	w := &sendWorld{t: t, store: store, clock: clk, roster: rostertest.New(clk), bill: billingtest.New(clk), jobs: &jobs{}}
	require.NoError(t, w.roster.AddTeam(ctx, rosterapi.Team{ID: "team_1", Name: "Tigers", Code: "tigers", Number: "+15550000000", TimeZone: "America/New_York"}))
	for i, m := range []rosterapi.Member{
		{ID: "mem_a", Phone: "+15550000001", Name: "Ava Rivera"}, {ID: "mem_b", Phone: "+15550000001", Name: "Ben Rivera"},
		{ID: "mem_c", Phone: "+15550000002", Name: "Łucja Martin"},
	} {
		m.TeamID, m.Role, m.Status, m.CreatedAt = "team_1", rosterapi.RoleAthlete, "active", t0.Add(time.Duration(i)*time.Second)
		require.NoError(t, w.roster.AddMember(ctx, m))
	}
	staff := rostertest.New(clk)
	for _, m := range []rosterapi.Member{
		{ID: "mem_hc", Role: rosterapi.RoleHeadCoach, CanSendBroadcasts: true},
		{ID: "mem_co", Role: rosterapi.RoleCoach, CanSendBroadcasts: true},
		{ID: "mem_bm", Role: rosterapi.RoleBoardMember},
	} {
		m.TeamID, m.Status, m.DashboardLogin = "team_1", "active", true
		require.NoError(t, staff.AddMember(ctx, m))
	}
	require.NoError(t, w.bill.Open(ctx, "team_1", billingapi.Settings{}))
	w.svc = service.New(service.Deps{DB: memTx{store}, TemplateStore: store, ScheduledStore: store, MessageStore: store,
		Clock: clk, Teams: w.roster, Lookup: w.roster, Billing: w.bill, Outbound: planner{done: t0.Add(time.Minute)}, Jobs: w.jobs,
		Audience: w.roster, Members: staff, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return w
}

// team changes the team, as its settings would.
func (w *sendWorld) team(change func(*rosterapi.Team)) {
	w.t.Helper()
	require.NoError(w.t, w.roster.UpdateTeam("team_1", change))
}

// billing changes the team's account, as billing would.
func (w *sendWorld) billing(p billingapi.Patch) {
	w.t.Helper()
	require.NoError(w.t, w.bill.Update(context.Background(), "team_1", p))
}

// charged is the credits charged for message id.
func (w *sendWorld) charged(id string) int { return w.bill.Charged("team_1", id) }

func (w *sendWorld) schedule(t *testing.T, id string, at time.Time, until *time.Time) {
	t.Helper()
	req, err := json.Marshal(service.SendInput{Text: "Practice at 5", Audience: "all"})
	require.NoError(t, err)
	w.store.scheduled[id] = domain.NewScheduled(id, "team_1", "key_1", "mem_hc", req, at, until, t0)
}

func TestRunScheduledWeekly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newSendWorld(t)
	first := time.Date(2027, 3, 13, 22, 30, 0, 0, time.UTC) // Saturday 17:30 EST
	until := time.Date(2027, 3, 20, 0, 0, 0, 0, time.UTC)   // the date the series may last send
	w.schedule(t, "sch_1", first, &until)

	require.NoError(t, w.svc.RunScheduled(ctx, service.ScheduledArgs{ScheduledID: "sch_1", Run: 0}))
	sch := w.store.scheduled["sch_1"]
	require.Equal(t, domain.ScheduledPending, sch.Status)
	require.Equal(t, 1, sch.Runs)
	next := time.Date(2027, 3, 20, 21, 30, 0, 0, time.UTC) // 17:30 EDT: the same local time across DST
	require.True(t, next.Equal(sch.ScheduledFor), "next week at %s, want %s", sch.ScheduledFor, next)
	require.Len(t, w.store.messages, 1)
	for _, m := range w.store.messages {
		require.Equal(t, "sch_1", m.ScheduledID)
		require.Equal(t, domain.StatusQueued, m.Status)
		require.Equal(t, 2, m.Recipients, "one text per phone")
		require.Equal(t, 2, m.QueuedCount)
		require.Equal(t, 2*m.Segments, w.charged(m.ID), "credits: phones × segments")
	}
	require.Contains(t, w.jobs.inserted, job{args: service.ScheduledArgs{ScheduledID: "sch_1", Run: 1}, at: next})

	require.NoError(t, w.svc.RunScheduled(ctx, service.ScheduledArgs{ScheduledID: "sch_1", Run: 0}), "a stale job")
	require.Len(t, w.store.messages, 1, "a stale job sends nothing")
	require.Equal(t, sch, w.store.scheduled["sch_1"])

	w.clock.Set(next)
	require.NoError(t, w.svc.RunScheduled(ctx, service.ScheduledArgs{ScheduledID: "sch_1", Run: 1}))
	sch = w.store.scheduled["sch_1"]
	require.Equal(t, domain.ScheduledCompleted, sch.Status, "the week after is past until")
	require.Equal(t, 2, sch.Runs)
	require.Len(t, w.store.messages, 2)

	require.NoError(t, w.svc.RunScheduled(ctx, service.ScheduledArgs{ScheduledID: "sch_gone", Run: 0}), "a deleted send's job does nothing")
}

// A refused occurrence stops the series and leaves no message and no
// next week: a refusal at the gates (no number: 409 no_sender), and one
// raised after the occurrence's message was written (billing's Consume,
// when a concurrent send spent the trial between the check and the
// charge), which the occurrence's savepoint rolls back while the series'
// own change commits.
func TestRunScheduledRefusedStops(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		refuse func(w *sendWorld)
		code   string
	}{
		"at the gates": {refuse: func(w *sendWorld) { w.team(func(t *rosterapi.Team) { t.Number = "" }) }, code: domain.CodeNoSender},
		"at consume": {refuse: func(w *sendWorld) {
			w.bill.FailConsume(func(string, string, int) error {
				return fault.New(fault.PaymentRequired, domain.CodeTrialLimit, "this send needs 2 credits; 0 trial credits remain")
			})
		}, code: domain.CodeTrialLimit},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newSendWorld(t)
			tc.refuse(w)
			until := t0.AddDate(0, 2, 0)
			w.schedule(t, "sch_1", t0.Add(time.Hour), &until)
			w.clock.Set(t0.Add(time.Hour))

			require.NoError(t, w.svc.RunScheduled(context.Background(), service.ScheduledArgs{ScheduledID: "sch_1", Run: 0}))
			sch := w.store.scheduled["sch_1"]
			require.Equal(t, domain.ScheduledStopped, sch.Status)
			require.Equal(t, tc.code, sch.StatusReason)
			require.Equal(t, 1, sch.Runs)
			require.Equal(t, t0.Add(time.Hour), sch.UpdatedAt)
			require.Empty(t, w.store.messages, "no message: the refused occurrence's was rolled back")
			require.Empty(t, w.jobs.inserted, "no expiry, unconfirmed or next-week job")
		})
	}
}

// A scheduled send made in Compose keeps its merge tags and renders them
// per recipient when it runs (a shared phone gets the text of its first
// roster entry); the credits are each text's segments. The same request
// stored without the dashboard's flag (an API schedule) is refused.
func TestRunScheduledMergeTags(t *testing.T) {
	t.Parallel()
	for _, dashboard := range []bool{true, false} {
		w := newSendWorld(t)
		req, err := json.Marshal(service.SendInput{Text: "Hi {first_name}, practice at 5", Audience: "all", MergeTags: dashboard})
		require.NoError(t, err)
		w.store.scheduled["sch_1"] = domain.NewScheduled("sch_1", "team_1", "", "mem_hc", req, t0.Add(time.Hour), nil, t0)
		w.clock.Set(t0.Add(time.Hour))
		require.NoError(t, w.svc.RunScheduled(context.Background(), service.ScheduledArgs{ScheduledID: "sch_1", Run: 0}))
		if !dashboard {
			require.Equal(t, domain.CodeMergeTagsUnsupported, w.store.scheduled["sch_1"].StatusReason)
			require.Empty(t, w.store.messages)
			continue
		}
		require.Len(t, w.store.messages, 1)
		for id, m := range w.store.messages {
			ts := w.store.texts[id]
			require.Len(t, ts, 2)
			require.Equal(t, "Tigers: Hi Ava, practice at 5\nReply STOP to opt out.", ts[0].Body)
			require.Equal(t, "Tigers: Hi Łucja, practice at 5\nReply STOP to opt out.", ts[1].Body)
			require.Equal(t, ts[0].Body, m.Rendered, "the message shows the first recipient's text")
			require.Equal(t, 2, w.charged(id))
			require.Equal(t, 2, m.Cost())
			require.Equal(t, string(domain.UCS2), m.Encoding, "Ł is not in GSM-7: her text is UCS-2, and so the message")
		}
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newSendWorld(t)
	pending := func(id string) {
		w.store.messages[id] = domain.Message{ID: id, TeamID: "team_1", Audience: "all", Text: "hi", Segments: 1, Status: domain.StatusPendingApproval}
	}
	pending("msg_1")
	pending("msg_2")

	requireCode(t, errOf(w.svc.Decide(ctx, "team_1", "msg_1", "mem_co", true)), fault.Forbidden, fault.CodeForbidden)
	requireCode(t, errOf(w.svc.Decide(ctx, "team_2", "msg_1", "mem_hc", true)), fault.NotFound, fault.CodeNotFound)
	require.Equal(t, domain.StatusPendingApproval, w.store.messages["msg_1"].Status)

	w.clock.Advance(time.Hour)
	m, err := w.svc.Decide(ctx, "team_1", "msg_1", "mem_hc", true)
	require.NoError(t, err)
	require.Equal(t, domain.StatusQueued, m.Status)
	require.Equal(t, 2, m.Recipients)
	require.Equal(t, "mem_hc", m.DecidedBy)
	require.Equal(t, t0.Add(time.Hour), *m.DecidedAt)
	require.Equal(t, 2, w.store.messages["msg_1"].QueuedCount, "approval dispatches")
	require.Equal(t, 2, w.charged("msg_1"))
	requireCode(t, errOf(w.svc.Decide(ctx, "team_1", "msg_1", "mem_hc", false)), fault.Conflict, fault.CodeConflict)

	m, err = w.svc.Decide(ctx, "team_1", "msg_2", "mem_hc", false)
	require.NoError(t, err)
	require.Equal(t, domain.StatusRejected, w.store.messages["msg_2"].Status)
	require.Equal(t, domain.StatusRejected, m.Status)
	require.Zero(t, w.charged("msg_2"), "a rejected send costs nothing")
	require.Zero(t, w.store.messages["msg_2"].QueuedCount)
}
