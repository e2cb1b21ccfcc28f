package service_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/ingest"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/fault"
)

var apiSender = service.Sender{TeamID: "team_1", KeyID: "key_1", MemberID: "mem_hc", Source: "api"}

func TestSendNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newSendWorld(t)
	out, err := w.svc.Send(ctx, apiSender, service.SendInput{Text: "Practice at 5", Audience: "all"})
	require.NoError(t, err)
	require.Nil(t, out.Scheduled)
	m := w.store.messages[out.Message.ID]
	require.Equal(t, domain.StatusQueued, m.Status)
	require.Equal(t, "Tigers: Practice at 5\n"+domain.OptOutLine, m.Rendered)
	require.Equal(t, 2, m.Recipients)
	require.Equal(t, 2, w.charged(m.ID))
	require.Equal(t, []job{{args: ingest.UnconfirmArgs{MessageID: m.ID}, at: t0.Add(ingest.UnconfirmedAfter)}}, w.jobs.inserted)

	w.team(func(t *rosterapi.Team) { t.ApprovalRequired = true })
	out, err = w.svc.Send(ctx, apiSender, service.SendInput{Text: "Game moved", Audience: "all"})
	require.NoError(t, err)
	require.Equal(t, domain.StatusPendingApproval, out.Message.Status)
	require.Zero(t, w.charged(out.Message.ID), "nothing is charged before approval")
	require.Equal(t, job{args: service.ExpireArgs{MessageID: out.Message.ID}, at: t0.Add(domain.ApprovalExpiry)}, w.jobs.inserted[1])

	w.team(func(t *rosterapi.Team) { t.ApprovalRequired = false })
	w.svc.Audience = rostertest.New(w.clock) // no one to text
	requireCode(t, errOf(w.svc.Send(ctx, apiSender, service.SendInput{Text: "hi", Audience: "all"})), fault.Conflict, fault.CodeConflict)
}

func TestSendScheduled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newSendWorld(t)
	at := t0.Add(time.Hour)
	in := service.SendInput{Text: "Practice at 5", Audience: "all", ScheduledFor: at.Format(time.RFC3339),
		Repeat: &service.Repeat{Every: "week", Until: "2027-02-01"}}
	out, err := w.svc.Send(ctx, apiSender, in)
	require.NoError(t, err)
	require.Nil(t, out.Message)
	sch := w.store.scheduled[out.Scheduled.ID]
	returned := *out.Scheduled
	day := time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)
	returned.RepeatUntil = &day // the store keeps the date (a date column)
	require.Equal(t, returned, sch, "stored as returned")
	require.Equal(t, domain.ScheduledPending, sch.Status)
	require.True(t, sch.Weekly())
	require.Equal(t, "2027-02-01", sch.RepeatUntil.Format("2006-01-02"))
	var stored service.SendInput
	require.NoError(t, json.Unmarshal(sch.Request, &stored))
	require.Equal(t, service.SendInput{Text: "Practice at 5", Audience: "all"}, stored, "the request is kept without its time and repetition")
	require.Equal(t, []job{{args: service.ScheduledArgs{ScheduledID: sch.ID}, at: at}}, w.jobs.inserted)
	require.Empty(t, w.store.messages, "nothing is sent now")

	for i := len(w.store.scheduled); i < domain.ScheduledLimit; i++ {
		w.schedule(t, "sch_"+strconv.Itoa(i), at, nil)
	}
	requireCode(t, errOf(w.svc.Send(ctx, apiSender, service.SendInput{Text: "x", Audience: "all", ScheduledFor: at.Format(time.RFC3339)})),
		fault.Conflict, domain.CodeScheduledLimit)
	require.Len(t, w.store.scheduled, domain.ScheduledLimit)
}

func TestResend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newSendWorld(t)
	w.store.messages["msg_1"] = domain.Message{ID: "msg_1", TeamID: "team_1", Audience: "all", Text: "Practice at 5", Status: domain.StatusSent,
		DeliveredCount: 1, FailedCount: 2}
	w.store.failed["msg_1"] = []domain.FailedDelivery{{Phone: "+15550000001", ErrorCode: "30003"}, {Phone: "+15550000002", ErrorCode: domain.CodeOptedOut}}
	w.store.messages["msg_going"] = domain.Message{ID: "msg_going", TeamID: "team_1", Status: domain.StatusQueued, QueuedCount: 1, FailedCount: 1}

	requireCode(t, errOf(w.svc.Resend(ctx, apiSender, "msg_1", "all")), fault.Invalid, fault.CodeInvalidRequest)
	requireCode(t, errOf(w.svc.Resend(ctx, apiSender, "msg_x", service.ResendOnlyFailed)), fault.NotFound, fault.CodeNotFound)
	requireCode(t, errOf(w.svc.Resend(ctx, apiSender, "msg_going", service.ResendOnlyFailed)), fault.Conflict, fault.CodeConflict)

	out, err := w.svc.Resend(ctx, apiSender, "msg_1", service.ResendOnlyFailed)
	require.NoError(t, err)
	m := out.Message
	require.Equal(t, "msg_1", m.ResendOf)
	require.Equal(t, "Practice at 5", m.Text)
	require.Equal(t, 1, m.Recipients, "only the failure worth resending, not the opt-out")
	require.Equal(t, 1, w.store.messages[m.ID].QueuedCount)

	f := requireCode(t, errOf(w.svc.Resend(ctx, apiSender, "msg_1", service.ResendOnlyFailed)), fault.Conflict, fault.CodeConflict)
	require.Contains(t, f.Message, m.ID, "resent already: the resend is named")
}
