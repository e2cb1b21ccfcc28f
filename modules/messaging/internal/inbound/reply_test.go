package inbound_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi/billingtest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
)

// The reply use cases over in-memory stores: who may reply, to what, and
// what a reply records, charges and queues; the reply job's outcomes.

type replyFixture struct {
	replies *inbound.Replies
	inbox   *memInbox
	store   *memReplies
	jobs    *queued
	roster  *rostertest.Roster
	billing *billingtest.Accounts
	carrier *texts
	clock   *clock.Fake
}

// repliesOf returns replies for team_1 ("Tigers", teamNumber) whose inbox
// has one text from parent (inb_p) and a HELP from a stranger; team_2 has
// no number. c, when not nil, is the carrier.
func repliesOf(t *testing.T, c carrier.Carrier) *replyFixture {
	t.Helper()
	r := newRoster(t, clock.NewFake(t0), []rosterapi.Team{
		{ID: "team_1", Name: "Tigers", Code: "tigers", Number: teamNumber},
		{ID: "team_2", Name: "Lions", Code: "lions"},
	},
		rosterapi.Member{ID: "mem_coach", TeamID: "team_1", Role: rosterapi.RoleHeadCoach, Status: "active"},
		rosterapi.Member{ID: "mem_blocked", TeamID: "team_1", Role: rosterapi.RoleCoach, Status: "active", IsBlocked: true},
		rosterapi.Member{ID: "mem_pending", TeamID: "team_1", Role: rosterapi.RoleCoach, Status: "pending"},
		rosterapi.Member{ID: "mem_kid", TeamID: "team_1", Role: rosterapi.RoleAthlete, Status: "active"},
		rosterapi.Member{ID: "mem_lion", TeamID: "team_2", Role: rosterapi.RoleHeadCoach, Status: "active"},
	)
	f := &replyFixture{
		inbox: &memInbox{texts: []domain.Inbound{
			{ID: "inb_p", TeamID: "team_1", FromPhone: parent, Body: "When is practice?", ReceivedAt: t0.Add(-time.Hour)},
			{ID: "inb_help", TeamID: "team_1", FromPhone: stranger, Body: "HELP", Keyword: domain.KeywordHelp, ReceivedAt: t0.Add(-time.Hour)},
			{ID: "inb_l", TeamID: "team_2", FromPhone: parent, Body: "hi", ReceivedAt: t0.Add(-time.Hour)},
		}},
		store: newMemReplies(), jobs: &queued{}, roster: r, carrier: &texts{}, clock: clock.NewFake(t0),
		billing: newBilling(t, "team_1", "team_2"),
	}
	if c == nil {
		c = f.carrier
	}
	f.replies = inbound.NewReplies(inbound.ReplyDeps{Tx: inline{}, Jobs: f.jobs, Store: f.store, Inbox: f.inbox, Clock: f.clock,
		Teams: r, Members: r, Lookup: r, OptOuts: r, Billing: f.billing, Carrier: c, Log: slog.New(slog.DiscardHandler)})
	return f
}

func TestStaffReply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := repliesOf(t, nil)

	item, err := f.replies.Reply(ctx, inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_p", MemberID: "mem_coach", Body: "See you at 5"})
	require.NoError(t, err)
	require.Equal(t, t0, *item.RepliedAt)
	require.Equal(t, t0, *item.ReadAt, "replying marks it read")
	require.Equal(t, &domain.LatestReply{Body: "Tigers: See you at 5", MemberID: "mem_coach", SentAt: t0}, item.LatestReply)

	rps := f.store.all()
	require.Len(t, rps, 1)
	rp := rps[0]
	require.Equal(t, domain.Reply{ID: rp.ID, TeamID: "team_1", InboundID: "inb_p", Kind: domain.ReplyStaff, MemberID: "mem_coach",
		ToPhone: parent, Body: "Tigers: See you at 5", Segments: 1, Status: domain.ReplyQueued, CreatedAt: t0}, rp)
	require.Equal(t, []any{inbound.ReplyArgs{TeamID: "team_1", ReplyID: rp.ID}}, anys(f.jobs.jobs()), "its send job")
	require.Equal(t, 1, creditsUsed(t, f.billing, "team_1"), "staff replies are charged by segment")

	f.clock.Advance(time.Hour)
	item, err = f.replies.Reply(ctx, inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_p", MemberID: "mem_coach", Body: "Field 2"})
	require.NoError(t, err)
	require.Equal(t, t0, *item.RepliedAt, "replied_at is the first reply's")
	require.Equal(t, "Tigers: Field 2", item.LatestReply.Body)
	require.Equal(t, t0.Add(time.Hour), item.LatestReply.SentAt)
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func TestStaffReplyRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, tc := range map[string]struct {
		in    inbound.ReplyInput
		setup func(t *testing.T, f *replyFixture)
		kind  string // fault code
	}{
		"athlete":           {in: inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_p", MemberID: "mem_kid", Body: "x"}, kind: fault.CodeForbidden},
		"blocked staff":     {in: inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_p", MemberID: "mem_blocked", Body: "x"}, kind: fault.CodeForbidden},
		"pending staff":     {in: inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_p", MemberID: "mem_pending", Body: "x"}, kind: fault.CodeForbidden},
		"keyword text":      {in: inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_help", MemberID: "mem_coach", Body: "x"}, kind: fault.CodeNotFound},
		"other team's text": {in: inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_l", MemberID: "mem_coach", Body: "x"}, kind: fault.CodeNotFound},
		"blank body":        {in: inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_p", MemberID: "mem_coach", Body: "  "}, kind: fault.CodeInvalidRequest},
		"no number":         {in: inbound.ReplyInput{TeamID: "team_2", MessageID: "inb_l", MemberID: "mem_lion", Body: "x"}, kind: inbound.CodeNoSender},
		"overdue": {in: inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_p", MemberID: "mem_coach", Body: "x"}, kind: inbound.CodePaymentRequired,
			setup: func(t *testing.T, f *replyFixture) { setOverdue(t, f.billing, "team_1", true) }},
		"opted out": {in: inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_p", MemberID: "mem_coach", Body: "x"}, kind: inbound.CodeOptedOut,
			setup: func(t *testing.T, f *replyFixture) {
				require.NoError(t, f.roster.OptOutBySMS(context.Background(), "team_1", parent))
			}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := repliesOf(t, nil)
			if tc.setup != nil {
				tc.setup(t, f)
			}
			_, err := f.replies.Reply(ctx, tc.in)
			ft, ok := fault.As(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, tc.kind, ft.Code)
			require.Empty(t, f.store.all(), "nothing recorded")
			require.Empty(t, f.jobs.jobs(), "nothing queued")
			require.Zero(t, creditsUsed(t, f.billing, tc.in.TeamID), "nothing charged")
			for _, in := range f.inbox.texts {
				require.Nil(t, in.RepliedAt, in.ID)
			}
		})
	}
}

func TestSendReply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := repliesOf(t, nil)
	_, err := f.replies.Reply(ctx, inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_p", MemberID: "mem_coach", Body: "See you at 5"})
	require.NoError(t, err)
	id := f.store.all()[0].ID
	f.clock.Advance(time.Second)

	require.NoError(t, f.replies.SendReply(ctx, inbound.ReplyArgs{TeamID: "team_1", ReplyID: id}))
	require.NoError(t, f.replies.SendReply(ctx, inbound.ReplyArgs{TeamID: "team_1", ReplyID: id}), "a retried job")
	require.Equal(t, []carrier.Message{{DeliveryID: id, TeamID: "team_1", From: teamNumber, To: parent, Body: "Tigers: See you at 5", Segments: 1}},
		f.carrier.Sent(), "handed over once, the reply id as the idempotency key")
	rp := f.store.get(id)
	require.Equal(t, domain.ReplySent, rp.Status)
	require.Equal(t, "SMtest"+id, rp.ProviderMessageID)
	require.Equal(t, t0.Add(time.Second), *rp.SentAt)

	require.NoError(t, f.replies.SendReply(ctx, inbound.ReplyArgs{TeamID: "team_2", ReplyID: id}), "another team's reply: dropped")
	require.NoError(t, f.replies.SendReply(ctx, inbound.ReplyArgs{TeamID: "team_1", ReplyID: "rpl_gone"}), "a reply gone: dropped")
	require.Len(t, f.carrier.Sent(), 1)
}

func TestSendReplyFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	f := repliesOf(t, refusing{texts: &texts{}, code: "21610"})
	_, err := f.replies.Reply(ctx, inbound.ReplyInput{TeamID: "team_1", MessageID: "inb_p", MemberID: "mem_coach", Body: "x"})
	require.NoError(t, err)
	id := f.store.all()[0].ID
	require.NoError(t, f.replies.SendReply(ctx, inbound.ReplyArgs{TeamID: "team_1", ReplyID: id}), "a refusal for good is not retried")
	rp := f.store.get(id)
	require.Equal(t, domain.ReplyFailed, rp.Status)
	require.Equal(t, "21610", rp.ErrorCode)
	require.Nil(t, rp.SentAt)

	// The team lost its number after the reply was queued.
	f = repliesOf(t, nil)
	in := f.inbox.texts[0]
	require.NoError(t, f.replies.QueueHelp(ctx, rosterapi.Team{ID: "team_2", Name: "Lions"}, &domain.Inbound{ID: "inb_x", TeamID: "team_2", FromPhone: in.FromPhone}))
	id = f.store.all()[0].ID
	require.NoError(t, f.replies.SendReply(ctx, inbound.ReplyArgs{TeamID: "team_2", ReplyID: id}))
	rp = f.store.get(id)
	require.Equal(t, domain.ReplyFailed, rp.Status)
	require.Equal(t, inbound.CodeNoSender, rp.ErrorCode)
	require.Empty(t, f.carrier.Sent())
}

func TestQueueHelpAndSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := repliesOf(t, nil)
	team := rosterapi.Team{ID: "team_1", Name: "Tigers", Number: teamNumber}
	help := &domain.Inbound{ID: "inb_help", TeamID: "team_1", FromPhone: stranger}

	require.NoError(t, f.replies.QueueHelp(ctx, team, help))
	rps := f.store.all()
	require.Len(t, rps, 1)
	require.Equal(t, domain.ReplyHelp, rps[0].Kind)
	require.Equal(t, stranger, rps[0].ToPhone)
	require.Equal(t, domain.DefaultHelpText("Tigers"), rps[0].Body)
	require.Zero(t, creditsUsed(t, f.billing, "team_1"), "compliance replies are not charged")
	require.Len(t, f.jobs.jobs(), 1)

	s, err := f.replies.Settings(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, &inbound.Settings{HelpText: domain.DefaultHelpText("Tigers"), HelpTextDefault: true}, s)

	bad := "Tigers texts."
	_, err = f.replies.SetHelpText(ctx, "team_1", &bad)
	ft, _ := fault.As(err)
	require.Equal(t, fault.CodeInvalidRequest, ft.Code)
	own := " Tigers texts. Reply STOP to opt out. "
	s, err = f.replies.SetHelpText(ctx, "team_1", &own)
	require.NoError(t, err)
	require.Equal(t, &inbound.Settings{HelpText: "Tigers texts. Reply STOP to opt out."}, s)
	s, err = f.replies.SetHelpText(ctx, "team_1", nil)
	require.NoError(t, err)
	require.False(t, s.HelpTextDefault, "nil leaves it as it is")

	require.NoError(t, f.replies.QueueHelp(ctx, team, help))
	var bodies []string
	for _, rp := range f.store.all() {
		bodies = append(bodies, rp.Body)
	}
	require.ElementsMatch(t, []string{domain.DefaultHelpText("Tigers"), "Tigers texts. Reply STOP to opt out."}, bodies)

	empty := ""
	s, err = f.replies.SetHelpText(ctx, "team_1", &empty)
	require.NoError(t, err)
	require.True(t, s.HelpTextDefault, `"" restores the default`)
}
