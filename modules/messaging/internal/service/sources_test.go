package service_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/ingest"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
)

// sendFrom sends "Practice at 5" to everyone as source does it, and
// returns the message made, or the refusal's code.
type sendFrom func(t *testing.T, w *sendWorld) (*domain.Message, string)

func refusalCode(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	f, ok := fault.As(err)
	require.True(t, ok, "a refusal is a fault: %v", err)
	return f.Code
}

func onlyMessage(t *testing.T, w *sendWorld, except string) *domain.Message {
	t.Helper()
	for id, m := range w.store.messages {
		if id != except {
			return &m
		}
	}
	return nil
}

var practice = service.SendInput{Text: "Practice at 5", Audience: "all"}

// The five ways a broadcast is made. Each goes through Service.Send.
var sources = map[domain.Source]sendFrom{
	domain.SourceAPI: func(t *testing.T, w *sendWorld) (*domain.Message, string) {
		out, err := w.svc.Send(context.Background(), service.Sender{TeamID: "team_1", KeyID: "key_1", MemberID: "mem_hc", Source: domain.SourceAPI}, practice)
		if err != nil {
			return nil, refusalCode(t, err)
		}
		return out.Message, ""
	},
	domain.SourceDashboard: func(t *testing.T, w *sendWorld) (*domain.Message, string) {
		out, err := w.svc.Send(context.Background(), service.Sender{TeamID: "team_1", MemberID: "mem_hc", Source: domain.SourceDashboard}, practice)
		if err != nil {
			return nil, refusalCode(t, err)
		}
		return out.Message, ""
	},
	domain.SourceSchedule: func(t *testing.T, w *sendWorld) (*domain.Message, string) {
		w.schedule(t, "sch_1", t0, nil)
		require.NoError(t, w.svc.RunScheduled(context.Background(), service.ScheduledArgs{ScheduledID: "sch_1"}))
		if sch := w.store.scheduled["sch_1"]; sch.Status == domain.ScheduledStopped {
			return nil, sch.StatusReason
		}
		return onlyMessage(t, w, ""), ""
	},
	domain.SourceCampaign: func(t *testing.T, w *sendWorld) (*domain.Message, string) {
		var res messagingapi.SendResult
		err := memTx{w.store}.Tx(context.Background(), func(ctx context.Context) error {
			var err error
			res, err = service.NewContract(w.svc).Send(ctx, messagingapi.SendRequest{TeamID: "team_1", MemberID: "mem_hc",
				Source: domain.SourceCampaign, Text: practice.Text, Audience: messagingapi.Audience(practice.Audience)})
			return err
		})
		if err != nil {
			return nil, refusalCode(t, err)
		}
		m := w.store.messages[res.MessageID]
		return &m, ""
	},
	// A resend goes to the original's failed recipients: here both phones
	// failed with a code worth resending.
	"resend": func(t *testing.T, w *sendWorld) (*domain.Message, string) {
		w.store.messages["msg_orig"] = domain.Message{ID: "msg_orig", TeamID: "team_1", Audience: "all", Text: practice.Text,
			Status: domain.StatusSent, FailedCount: 2}
		w.store.failed["msg_orig"] = []domain.FailedDelivery{{Phone: "+15550000001", ErrorCode: "30003"}, {Phone: "+15550000002", ErrorCode: "30003"}}
		out, err := w.svc.Resend(context.Background(), service.Sender{TeamID: "team_1", KeyID: "key_1", MemberID: "mem_hc", Source: domain.SourceAPI},
			"msg_orig", service.ResendOnlyFailed)
		if err != nil {
			return nil, refusalCode(t, err)
		}
		return out.Message, ""
	},
}

// Every source meets the same gates and is charged and planned alike:
// the same refusals, in the same order, for a team with no number, a
// payment overdue and a trial too small; and, when it goes through, one
// delivery per phone, phones × segments credits, and the job that marks
// texts unconfirmed.
func TestEverySourceSendsAlike(t *testing.T) {
	t.Parallel()
	overdue, yes, one := billingapi.PaymentOverdue, true, 1
	gates := []struct {
		name  string
		setup func(w *sendWorld)
		code  string
	}{
		{name: "no number", setup: func(w *sendWorld) { w.team(func(t *rosterapi.Team) { t.Number = "" }) }, code: domain.CodeNoSender},
		{name: "payment overdue", setup: func(w *sendWorld) { w.billing(billingapi.Patch{PaymentState: &overdue}) }, code: domain.CodePaymentRequired},
		{name: "trial too small", setup: func(w *sendWorld) { w.billing(billingapi.Patch{Trial: &yes, TrialCredits: &one}) }, code: domain.CodeTrialLimit},
		{name: "overdue before no number", setup: func(w *sendWorld) {
			w.team(func(t *rosterapi.Team) { t.Number = "" })
			w.billing(billingapi.Patch{PaymentState: &overdue})
		}, code: domain.CodeNoSender},
		{name: "goes through"},
	}
	for src, send := range sources {
		for _, g := range gates {
			t.Run(string(src)+"/"+g.name, func(t *testing.T) {
				t.Parallel()
				w := newSendWorld(t)
				w.clock.Set(t0)
				if g.setup != nil {
					g.setup(w)
				}
				m, code := send(t, w)
				require.Equal(t, g.code, code)
				if g.code != "" {
					require.Nil(t, onlyMessage(t, w, "msg_orig"), "a refused send leaves no message")
					return
				}
				require.NotNil(t, m)
				require.Equal(t, domain.StatusQueued, m.Status)
				require.Equal(t, 2, m.Recipients, "one text per phone")
				require.Equal(t, 2, w.store.messages[m.ID].QueuedCount)
				require.Equal(t, 2*m.Segments, w.charged(m.ID), "phones × segments credits")
				require.Equal(t, "Tigers: Practice at 5", m.Rendered[:len("Tigers: Practice at 5")], "the team prefix")
				var unconfirm int
				for _, j := range w.jobs.inserted {
					if a, ok := j.args.(ingest.UnconfirmArgs); ok && a.MessageID == m.ID {
						unconfirm++
					}
				}
				require.Equal(t, 1, unconfirm, "the unconfirmed-texts job")
				wantSource := src
				if src == "resend" {
					wantSource = domain.SourceAPI
					require.Equal(t, "msg_orig", m.ResendOf)
				}
				require.Equal(t, wantSource, m.Source)
			})
		}
	}
}

// The dashboard's send follows the role table and the approval policy:
// a coach's send waits when the team requires approval, a head coach's
// does not (they would approve it), urgent alerts never wait and are for
// head coaches and team directors only, and a board member cannot send.
func TestDashboardSendFollowsRoles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		member   string
		urgent   bool
		approval bool
		status   string
		code     string
	}{
		{name: "head coach, approval policy", member: "mem_hc", approval: true, status: domain.StatusQueued},
		{name: "coach, approval policy", member: "mem_co", approval: true, status: domain.StatusPendingApproval},
		{name: "coach, no policy", member: "mem_co", status: domain.StatusQueued},
		{name: "coach, urgent", member: "mem_co", urgent: true, code: domain.CodeUrgentNotAllowed},
		{name: "head coach, urgent under the policy", member: "mem_hc", urgent: true, approval: true, status: domain.StatusQueued},
		{name: "board member", member: "mem_bm", code: fault.CodeForbidden},
		{name: "not on the team", member: "mem_nobody", code: fault.CodeNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newSendWorld(t)
			w.team(func(t *rosterapi.Team) { t.ApprovalRequired = tc.approval })
			in := practice
			in.Urgent = tc.urgent
			out, err := w.svc.Send(context.Background(), service.Sender{TeamID: "team_1", MemberID: tc.member, Source: domain.SourceDashboard}, in)
			require.Equal(t, tc.code, refusalCode(t, err))
			if tc.code != "" {
				require.Empty(t, w.store.messages)
				return
			}
			require.Equal(t, tc.status, out.Message.Status)
			require.Equal(t, tc.urgent, out.Message.Urgent)
			require.Equal(t, domain.SourceDashboard, out.Message.Source)
			require.Equal(t, tc.member, out.Message.MemberID)
		})
	}
}
