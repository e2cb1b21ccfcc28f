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
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
)

// The message side of memStore (service.MessageStore).

func (m *memStore) InsertMessage(_ context.Context, msg *domain.Message) error {
	m.messages[msg.ID] = *msg
	return nil
}

func (m *memStore) Message(_ context.Context, teamID, id string, _ bool) (*domain.Message, error) {
	msg, ok := m.messages[id]
	if !ok || msg.TeamID != teamID {
		return nil, domain.ErrNotFound
	}
	return &msg, nil
}

func (m *memStore) UpdateMessage(_ context.Context, msg *domain.Message) error {
	m.messages[msg.ID] = *msg
	return nil
}

func (m *memStore) Messages(context.Context, string, int, int) ([]domain.Message, error) {
	return nil, nil
}
func (m *memStore) Approvals(context.Context, string, int, int) ([]domain.Message, error) {
	return nil, nil
}
func (m *memStore) ExpireApproval(context.Context, string, time.Time) error { return nil }
func (m *memStore) LiveResend(_ context.Context, teamID, messageID string) (string, error) {
	for _, msg := range m.messages {
		if msg.TeamID == teamID && msg.ResendOf == messageID && msg.Status != domain.StatusRejected && msg.Status != domain.StatusExpired {
			return msg.ID, nil
		}
	}
	return "", nil
}

// InsertQueued counts the deliveries on the message, as the statement does,
// and keeps the recipients' own texts.
func (m *memStore) InsertQueued(_ context.Context, _, messageID string, _, done time.Time, _ id.Series, phones []string, _ [][]string, texts []domain.Text, _ []time.Time) error {
	if texts != nil {
		m.texts[messageID] = texts
	}
	msg := m.messages[messageID]
	msg.QueuedCount += len(phones)
	msg.EstimatedCompletion = &done
	m.messages[messageID] = msg
	return nil
}

func (m *memStore) CountBroadcast(context.Context, *domain.Message, int, time.Time) error { return nil }
func (m *memStore) HeldQueued(context.Context, string, time.Time) (int, error)            { return 0, nil }
func (m *memStore) Deliveries(_ context.Context, teamID, messageID, _ string, _, _ int) ([]domain.Delivery, error) {
	if msg, ok := m.messages[messageID]; !ok || msg.TeamID != teamID {
		return nil, domain.ErrNotFound
	}
	return nil, nil
}
func (m *memStore) FailedDeliveries(_ context.Context, messageID string) ([]domain.FailedDelivery, error) {
	return m.failed[messageID], nil
}
func (m *memStore) RecordPollRecipients(context.Context, string, string, time.Time, time.Time, int) error {
	return nil
}
func (m *memStore) PollTallies(context.Context, string) (map[string]int, int, error) {
	return nil, 0, nil
}
func (m *memStore) Responses(context.Context, string, int, int) ([]domain.Response, error) {
	return nil, nil
}

// The roster, billing, planner and jobs a send reaches, as fakes.

type teams struct {
	rosterapi.Teams
	team rosterapi.Team
}

func (f teams) Team(context.Context, string) (rosterapi.Team, error) { return f.team, nil }

type lookup struct{ rosterapi.Lookup }

func (lookup) CustomFieldKeys(context.Context, string) (map[string]bool, error) { return nil, nil }

type audience []rosterapi.Recipient

func (a audience) Recipients(context.Context, string, string, string) ([]rosterapi.Recipient, error) {
	return append([]rosterapi.Recipient(nil), a...), nil
}

type members map[string]rosterapi.Member

func (m members) Member(_ context.Context, _, id string) (rosterapi.Member, error) {
	if mem, ok := m[id]; ok {
		return mem, nil
	}
	return rosterapi.Member{}, fault.NotFoundf("member not found")
}

func (m members) KeyOwners(context.Context, string) ([]rosterapi.Member, error) { return nil, nil }

type billing struct {
	billingapi.Accounts
	consumed map[string]int // message id -> credits
	refuse   error          // Consume's answer when set (a concurrent send spent the trial)
	standing billingapi.Standing
}

func (b *billing) Get(_ context.Context, teamID string) (billingapi.Account, error) {
	st := b.standing
	st.TeamID = teamID
	if st.PaymentState == "" {
		st.PaymentState = billingapi.PaymentOK
	}
	return billingapi.Account{Standing: st}, nil
}

func (b *billing) Consume(_ context.Context, _, ref string, credits int) error {
	if b.refuse != nil {
		return b.refuse
	}
	b.consumed[ref] += credits
	return nil
}

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
// New York, two members on one phone and one on another.
type sendWorld struct {
	svc   *service.Service
	store *memStore
	clock *clock.Fake
	team  *teams
	bill  *billing
	jobs  *jobs
}

func newSendWorld(t *testing.T) *sendWorld {
	t.Helper()
	store, clk := newMemStore(), clock.NewFake(t0)
	w := &sendWorld{store: store, clock: clk, bill: &billing{consumed: map[string]int{}}, jobs: &jobs{},
		team: &teams{team: rosterapi.Team{ID: "team_1", Name: "Tigers", Number: "+15550000000", TimeZone: "America/New_York"}}}
	w.svc = service.New(service.Deps{DB: memTx{store}, TemplateStore: store, ScheduledStore: store, MessageStore: store,
		Clock: clk, Teams: w.team, Lookup: lookup{}, Billing: w.bill, Outbound: planner{done: t0.Add(time.Minute)}, Jobs: w.jobs,
		Audience: audience{{MemberID: "mem_a", Phone: "+15550000001", Name: "Ava Rivera"}, {MemberID: "mem_b", Phone: "+15550000001", Name: "Ben Rivera"},
			{MemberID: "mem_c", Phone: "+15550000002", Name: "Łucja Martin"}},
		Members: members{"mem_hc": {ID: "mem_hc", Role: rosterapi.RoleHeadCoach, CanSendBroadcasts: true, Status: "active", DashboardLogin: true},
			"mem_co": {ID: "mem_co", Role: rosterapi.RoleCoach, CanSendBroadcasts: true, Status: "active", DashboardLogin: true},
			"mem_bm": {ID: "mem_bm", Role: rosterapi.RoleBoardMember, Status: "active", DashboardLogin: true}},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return w
}

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
		require.Equal(t, 2*m.Segments, w.bill.consumed[m.ID], "credits: phones × segments")
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
		"at the gates": {refuse: func(w *sendWorld) { w.team.team.Number = "" }, code: domain.CodeNoSender},
		"at consume": {refuse: func(w *sendWorld) {
			w.bill.refuse = fault.New(fault.PaymentRequired, domain.CodeTrialLimit, "this send needs 2 credits; 0 trial credits remain")
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
			require.Equal(t, 2, w.bill.consumed[id])
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
	require.Equal(t, 2, w.bill.consumed["msg_1"])
	requireCode(t, errOf(w.svc.Decide(ctx, "team_1", "msg_1", "mem_hc", false)), fault.Conflict, fault.CodeConflict)

	m, err = w.svc.Decide(ctx, "team_1", "msg_2", "mem_hc", false)
	require.NoError(t, err)
	require.Equal(t, domain.StatusRejected, w.store.messages["msg_2"].Status)
	require.Equal(t, domain.StatusRejected, m.Status)
	require.Zero(t, w.bill.consumed["msg_2"], "a rejected send costs nothing")
	require.Zero(t, w.store.messages["msg_2"].QueuedCount)
}
