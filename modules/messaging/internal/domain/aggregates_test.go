package domain

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/fault"
)

// requireFault asserts err is a fault of kind with code ("" for no error).
func requireFault(t *testing.T, err error, kind fault.Kind, code string) {
	t.Helper()
	if code == "" {
		require.NoError(t, err)
		return
	}
	f, ok := fault.As(err)
	require.True(t, ok, "want a fault, got %v", err)
	require.Equal(t, code, f.Code, f.Message)
	require.Equal(t, kind, f.Kind)
}

func TestValidTemplate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, tname, body, mt string
		dashboard             bool
		want                  TemplateFields
		code                  string
	}{
		{name: "defaults to standard", tname: "Practice", body: "See you at 5", want: TemplateFields{"Practice", "See you at 5", TypeStandard}},
		{name: "reminder kept", tname: "P", body: "b", mt: TypeReminder, want: TemplateFields{"P", "b", TypeReminder}},
		{name: "empty name", tname: "", body: "b", code: fault.CodeInvalidRequest},
		{name: "101 runes", tname: strings.Repeat("é", 101), body: "b", code: fault.CodeInvalidRequest},
		{name: "100 runes", tname: strings.Repeat("é", 100), body: "b", want: TemplateFields{strings.Repeat("é", 100), "b", TypeStandard}},
		{name: "invisible name", tname: " \u200b ", body: "b", code: fault.CodeInvalidRequest},
		{name: "blank body", tname: "P", body: "  ", code: fault.CodeInvalidRequest},
		{name: "long body", tname: "P", body: strings.Repeat("a", MaxTextRunes+1), code: fault.CodeInvalidRequest},
		{name: "urgent from the API", tname: "P", body: "b", mt: TypeUrgentAlert, code: CodeUrgentNotAllowed},
		{name: "urgent from the dashboard", tname: "P", body: "b", mt: TypeUrgentAlert, dashboard: true, want: TemplateFields{"P", "b", TypeUrgentAlert}},
		{name: "unknown type", tname: "P", body: "b", mt: "shout", code: fault.CodeInvalidRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, err := ValidTemplate(c.tname, c.body, c.mt, c.dashboard)
			requireFault(t, err, fault.Invalid, c.code)
			require.Equal(t, c.want, f)
		})
	}
	_, err := ValidTemplate("P", "", "", false)
	f, _ := fault.As(err)
	require.True(t, strings.HasPrefix(f.Message, "body: "), "the body's message names the field: %q", f.Message)
}

func TestTemplateNameAndRoom(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, NameTaken(nil))
	require.NoError(t, NameTaken(&Template{ID: "tpl_1", DeletedAt: &now}), "a deleted template's name is free")
	err := NameTaken(&Template{ID: "tpl_1"})
	requireFault(t, err, fault.Conflict, CodeTemplateExists)
	f, _ := fault.As(err)
	require.Equal(t, "tpl_1", f.Fields["existing_template_id"])

	require.NoError(t, CheckTemplateRoom(TemplateLimit-1))
	requireFault(t, CheckTemplateRoom(TemplateLimit), fault.Conflict, CodeTemplateLimit)
}

func TestTemplateLifecycle(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Hour)
	tpl := NewTemplate("tpl_1", "team_1", TemplateFields{"Practice", "b", TypeStandard}, t0)
	require.Equal(t, Template{ID: "tpl_1", TeamID: "team_1", Name: "Practice", Body: "b", MessageType: TypeStandard, CreatedAt: t0, UpdatedAt: t0}, tpl)
	require.True(t, tpl.Live())

	require.NoError(t, tpl.Delete(false, t1))
	require.False(t, tpl.Live())
	require.Equal(t, t1, *tpl.DeletedAt)
	require.Equal(t, t1, tpl.UpdatedAt)

	tpl.Restore(TemplateFields{"Practice", "new", TypeReminder}, t1.Add(time.Hour))
	require.True(t, tpl.Live())
	require.Equal(t, "new", tpl.Body)
	require.Equal(t, TypeReminder, tpl.MessageType)
	require.Equal(t, t0, tpl.CreatedAt, "restoring keeps the template's creation")

	tpl.SetAside()
	require.Equal(t, "Practice (deleted tpl_1)", tpl.Name)
}

func TestTemplateChange(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	std := Template{ID: "tpl_1", Name: "Practice", Body: "b", MessageType: TypeReminder}
	cases := []struct {
		name string
		t    Template
		c    TemplateChange
		want TemplateFields
		kind fault.Kind
		code string
	}{
		{name: "nothing changes", t: std, want: TemplateFields{"Practice", "b", TypeReminder}},
		{name: "body only", t: std, c: TemplateChange{Body: s("new")}, want: TemplateFields{"Practice", "new", TypeReminder}},
		{name: "all three", t: std, c: TemplateChange{Name: s("Game"), Body: s("x"), MessageType: s(TypeAnnouncement)}, want: TemplateFields{"Game", "x", TypeAnnouncement}},
		{name: "empty type is standard", t: std, c: TemplateChange{MessageType: s("")}, want: TemplateFields{"Practice", "b", TypeStandard}},
		{name: "cannot become urgent", t: std, c: TemplateChange{MessageType: s(TypeUrgentAlert)}, kind: fault.Invalid, code: CodeUrgentNotAllowed},
		{name: "urgent is protected", t: Template{Name: "U", Body: "b", MessageType: TypeUrgentAlert}, c: TemplateChange{Body: s("x")}, kind: fault.Forbidden, code: CodeTemplateProtected},
		{name: "bad name", t: std, c: TemplateChange{Name: s("")}, kind: fault.Invalid, code: fault.CodeInvalidRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			before := c.t
			f, err := c.t.Change(c.c)
			requireFault(t, err, c.kind, c.code)
			require.Equal(t, c.want, f)
			require.Equal(t, before, c.t, "Change checks; only Apply changes the template")
		})
	}
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	tpl := std
	tpl.Apply(TemplateFields{"Game", "x", TypeStandard}, now)
	require.Equal(t, Template{ID: "tpl_1", Name: "Game", Body: "x", MessageType: TypeStandard, UpdatedAt: now}, tpl)
}

func TestTemplateDeleteAndSendRules(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		mt                  string
		dashboard           bool
		deleteCode, sendErr string
	}{
		{mt: TypeStandard},
		{mt: TypeStandard, dashboard: true},
		{mt: TypeUrgentAlert, deleteCode: CodeTemplateProtected, sendErr: CodeUrgentNotAllowed},
		{mt: TypeUrgentAlert, dashboard: true},
	}
	for _, c := range cases {
		tpl := Template{ID: "tpl_1", MessageType: c.mt}
		requireFault(t, tpl.Delete(c.dashboard, now), fault.Forbidden, c.deleteCode)
		require.Equal(t, c.deleteCode == "", !tpl.Live(), "deleted exactly when allowed (%s, dashboard %v)", c.mt, c.dashboard)
		requireFault(t, tpl.Sendable(c.dashboard), fault.Invalid, c.sendErr)
	}
}

func TestScheduledRules(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	at := time.Date(2027, 1, 2, 9, 0, 0, 0, time.FixedZone("x", -5*3600))
	one := NewScheduled("sch_1", "team_1", "key_1", "mem_1", []byte(`{}`), at, nil, now)
	require.Equal(t, Scheduled{ID: "sch_1", TeamID: "team_1", KeyID: "key_1", MemberID: "mem_1", Request: []byte(`{}`),
		ScheduledFor: at.UTC(), Status: ScheduledPending, CreatedAt: now, UpdatedAt: now}, one)
	require.Equal(t, time.UTC, one.ScheduledFor.Location())
	require.False(t, one.Weekly())
	until := time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)
	weekly := NewScheduled("sch_2", "team_1", "", "mem_1", nil, at, &until, now)
	require.True(t, weekly.Weekly())
	require.Equal(t, &until, weekly.RepeatUntil)

	require.NoError(t, CheckScheduledRoom(ScheduledLimit-1))
	requireFault(t, CheckScheduledRoom(ScheduledLimit), fault.Conflict, CodeScheduledLimit)

	cancel := []struct {
		status string
		ok     bool
	}{{ScheduledPending, true}, {ScheduledCancelled, false}, {ScheduledStopped, false}, {ScheduledCompleted, false}}
	for _, c := range cancel {
		s := Scheduled{Status: c.status, UpdatedAt: now}
		err := s.Cancel(now.Add(time.Minute))
		if !c.ok {
			requireFault(t, err, fault.NotFound, fault.CodeNotFound)
			require.Contains(t, err.Error(), "(it is "+c.status+")")
			require.Equal(t, Scheduled{Status: c.status, UpdatedAt: now}, s, "a refused cancel changes nothing")
			continue
		}
		require.NoError(t, err)
		require.Equal(t, Scheduled{Status: ScheduledCancelled, StatusReason: ScheduledCancelled, UpdatedAt: now.Add(time.Minute)}, s)
	}
}

func TestScheduledRuns(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	s := Scheduled{Status: ScheduledPending}
	require.True(t, s.Due(0))
	require.False(t, s.Due(1), "a job for another occurrence")
	s.Started(now)
	require.Equal(t, 1, s.Runs)
	require.Equal(t, now, s.UpdatedAt)
	require.False(t, s.Due(0), "the job that started it is stale now")
	stopped := s
	stopped.Stop("payment_required")
	require.Equal(t, ScheduledStopped, stopped.Status)
	require.Equal(t, "payment_required", stopped.StatusReason)
	require.False(t, stopped.Due(1))

	first := time.Date(2027, 3, 13, 22, 30, 0, 0, time.UTC) // 17:30 EST
	until := time.Date(2027, 3, 20, 0, 0, 0, 0, time.UTC)   // a date
	cases := []struct {
		name   string
		s      Scheduled
		more   bool
		wantAt time.Time
	}{
		{name: "one-off completes", s: Scheduled{ScheduledFor: first}, wantAt: first},
		{name: "weekly within until moves a week, same local time", s: Scheduled{ScheduledFor: first, RepeatEvery: RepeatWeek, RepeatUntil: &until},
			more: true, wantAt: time.Date(2027, 3, 20, 21, 30, 0, 0, time.UTC)}, // 17:30 EDT
		{name: "weekly past until completes", s: Scheduled{ScheduledFor: first.AddDate(0, 0, 7), RepeatEvery: RepeatWeek, RepeatUntil: &until},
			wantAt: first.AddDate(0, 0, 7)},
		{name: "weekly without until completes", s: Scheduled{ScheduledFor: first, RepeatEvery: RepeatWeek}, wantAt: first},
	}
	for _, c := range cases {
		c.s.Status = ScheduledPending
		more := c.s.Advance(ny)
		require.Equal(t, c.more, more, c.name)
		require.True(t, c.wantAt.Equal(c.s.ScheduledFor), "%s: at %s, want %s", c.name, c.s.ScheduledFor, c.wantAt)
		if more {
			require.Equal(t, ScheduledPending, c.s.Status, c.name)
			require.Equal(t, time.UTC, c.s.ScheduledFor.Location(), c.name)
		} else {
			require.Equal(t, ScheduledCompleted, c.s.Status, c.name)
		}
	}
}

func TestNewMessage(t *testing.T) {
	t.Parallel()
	base := Message{ID: "msg_1", TeamID: "team_1", Text: "hi"}
	cases := []struct {
		name       string
		recipients int
		approval   bool
		status     string
		code       string
	}{
		{name: "queued", recipients: 3, status: StatusQueued},
		{name: "awaits approval", recipients: 3, approval: true, status: StatusPendingApproval},
		{name: "no one, awaiting approval", recipients: 0, approval: true, status: StatusPendingApproval},
		{name: "no one to text", recipients: 0, code: fault.CodeConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, err := NewMessage(base, c.recipients, c.approval)
			requireFault(t, err, fault.Conflict, c.code)
			if c.code != "" {
				return
			}
			want := base
			want.Recipients, want.Status = c.recipients, c.status
			require.Equal(t, want, m)
		})
	}
}

func TestMessageDecision(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, status := range []string{StatusQueued, StatusSent, StatusRejected, StatusExpired} {
		m := Message{Status: status}
		requireFault(t, m.Decide("mem_1", true, now), fault.Conflict, fault.CodeConflict)
		require.Equal(t, Message{Status: status}, m, "a refused decision changes nothing")
	}
	rejected := Message{Status: StatusPendingApproval}
	require.NoError(t, rejected.Decide("mem_1", false, now))
	require.Equal(t, Message{Status: StatusRejected, DecidedAt: &now, DecidedBy: "mem_1"}, rejected)

	approved := Message{Status: StatusPendingApproval}
	require.NoError(t, approved.Decide("mem_1", true, now))
	require.Equal(t, StatusPendingApproval, approved.Status, "approval waits for the recipients")
	approved.Approved(4, 1)
	require.Equal(t, Message{Status: StatusQueued, Recipients: 4, SkippedUndeliverable: 1, DecidedAt: &now, DecidedBy: "mem_1"}, approved)
	empty := Message{Status: StatusPendingApproval}
	empty.Approved(0, 2)
	require.Equal(t, StatusSent, empty.Status, "nothing to hand over: sent at once")
}

func TestMessageResendRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		m    Message
		ok   bool
	}{
		{name: "sent, all final", m: Message{Status: StatusSent, DeliveredCount: 2, FailedCount: 1}, ok: true},
		{name: "queued status but all final", m: Message{Status: StatusQueued, FailedCount: 1}, ok: true},
		{name: "pending approval", m: Message{Status: StatusPendingApproval}},
		{name: "rejected", m: Message{Status: StatusRejected}},
		{name: "expired", m: Message{Status: StatusExpired}},
		{name: "texts queued", m: Message{Status: StatusQueued, QueuedCount: 1, FailedCount: 1}},
		{name: "texts at the carrier", m: Message{Status: StatusSent, SentCount: 1, FailedCount: 1}},
	}
	for _, c := range cases {
		err := c.m.CheckResend()
		if c.ok {
			require.NoError(t, err, c.name)
		} else {
			requireFault(t, err, fault.Conflict, fault.CodeConflict)
		}
	}
	require.NoError(t, ResentAlready(""))
	requireFault(t, ResentAlready("msg_2"), fault.Conflict, fault.CodeConflict)
	require.Contains(t, ResentAlready("msg_2").Error(), "msg_2")

	fs := []FailedDelivery{{Phone: "+1", ErrorCode: "30003"}, {Phone: "+2", ErrorCode: "30006"}, {Phone: "+3", ErrorCode: CodeOptedOut},
		{Phone: "+4", ErrorCode: CodeCarrierOptedOut}, {Phone: "+1", ErrorCode: "x"}}
	require.Equal(t, map[string]bool{"+1": true}, ResendPhones(fs, landlineOnly), "landlines and opt-outs are not resent; +1 once")
	require.Equal(t, map[string]bool{"+1": true, "+2": true}, ResendPhones(fs, nil), "without a classifier only opt-outs stay out")
}

func TestMessageCounts(t *testing.T) {
	t.Parallel()
	m := Message{QueuedCount: 1, SentCount: 2, DeliveredCount: 3, FailedCount: 4, UnconfirmedCount: 5, SkippedCount: 2}
	require.Equal(t, Counts{Total: 15, Queued: 1, Sent: 2, Delivered: 3, Failed: 4, Unconfirmed: 5, Skipped: 2}, m.Counts())
}
