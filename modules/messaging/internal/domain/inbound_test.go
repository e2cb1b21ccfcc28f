package domain_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
)

func TestStageInbound(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("EST", -5*3600))
	p, err := domain.StageInbound("SM1", "+12025550101", "+12025550100", " Stop. ", at)
	require.NoError(t, err)
	require.True(t, p.Keyword, "a keyword text is filed first")
	require.Equal(t, domain.InboundLane("+12025550101"), p.Lane)
	require.Equal(t, time.UTC, p.ReceivedAt.Location())
	require.True(t, p.ReceivedAt.Equal(at.Truncate(time.Microsecond)), "kept as Postgres keeps it")
	require.Equal(t, 123456000, p.ReceivedAt.Nanosecond())

	p, err = domain.StageInbound("SM2", "+12025550101", "+12025550100", "stop please", at)
	require.NoError(t, err)
	require.False(t, p.Keyword)

	for name, args := range map[string][4]string{
		"no provider id": {"", "+12025550101", "+12025550100", "hi"},
		"no sender":      {"SM3", "", "+12025550100", "hi"},
		"no team number": {"SM3", "+12025550101", "", "hi"},
	} {
		_, err := domain.StageInbound(args[0], args[1], args[2], args[3], at)
		require.Error(t, err, name)
	}
	_, err = domain.StageInbound("SM3", "+12025550101", "+12025550100", "hi", time.Time{})
	require.ErrorContains(t, err, "received_at")
}

func TestInboundLane(t *testing.T) {
	t.Parallel()
	seen := map[int]bool{}
	for i := range 200 {
		n := fmt.Sprintf("+1202555%04d", i)
		l := domain.InboundLane(n)
		require.GreaterOrEqual(t, l, 0)
		require.Less(t, l, domain.InboundLanes)
		require.Equal(t, l, domain.InboundLane(n), "one number, one lane")
		seen[l] = true
	}
	require.Len(t, seen, domain.InboundLanes, "200 numbers spread over every lane")
}

func TestInboundInInbox(t *testing.T) {
	t.Parallel()
	require.True(t, (&domain.Inbound{}).InInbox())
	require.False(t, (&domain.Inbound{Held: true}).InInbox(), "held while the renewal is overdue")
	require.False(t, (&domain.Inbound{Keyword: domain.KeywordHelp}).InInbox(), "keywords are the service's")
	require.True(t, (&domain.Inbound{Keyword: domain.KeywordStop}).Visible(), "keywords are listed by GET /inbound-messages")
	require.False(t, (&domain.Inbound{Held: true}).Visible())
}

func TestInboundMarkReadKeepsTheFirst(t *testing.T) {
	t.Parallel()
	t1 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var in domain.Inbound
	require.True(t, in.Unread())
	in.MarkRead(t1)
	require.False(t, in.Unread())
	in.MarkRead(t1.Add(time.Hour))
	require.Equal(t, t1, *in.ReadAt)
}

func TestInboundReplied(t *testing.T) {
	t.Parallel()
	read := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	t1, t2 := read.Add(time.Hour), read.Add(2*time.Hour)
	in := domain.Inbound{ID: "inb_1", TeamID: "team_1", FromPhone: "+12025550101"}
	first := domain.NewStaffReply("rpl_1", &in, "mem_coach", "Tigers", "See you at 5", t1)
	in.Replied(first)
	require.Equal(t, t1, *in.RepliedAt)
	require.Equal(t, t1, *in.ReadAt, "replying marks it read")
	require.Equal(t, &domain.LatestReply{Body: "Tigers: See you at 5", MemberID: "mem_coach", SentAt: t1}, in.LatestReply)

	in.Replied(domain.NewStaffReply("rpl_2", &in, "mem_dir", "Tigers", "Field 2", t2))
	require.Equal(t, t1, *in.RepliedAt, "replied_at is the first reply's")
	require.Equal(t, &domain.LatestReply{Body: "Tigers: Field 2", MemberID: "mem_dir", SentAt: t2}, in.LatestReply, "the latest replaces it")

	already := domain.Inbound{ReadAt: &read}
	already.Replied(first)
	require.Equal(t, read, *already.ReadAt, "an earlier read is kept")
}

func TestInboundRelease(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	in := domain.Inbound{Held: true}
	in.Release(at)
	require.False(t, in.Held)
	require.Equal(t, at, *in.ReleasedAt)
	require.True(t, in.InInbox())
}

func TestInboxFilter(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]domain.InboxFilter{"": domain.InboxAll, "all": domain.InboxAll, "unread": domain.InboxUnread, "replied": domain.InboxReplied} {
		f, err := domain.ParseInboxFilter(in)
		require.NoError(t, err, in)
		require.Equal(t, want, f, in)
	}
	for _, bad := range []string{"read", "ALL", " unread"} {
		_, err := domain.ParseInboxFilter(bad)
		f, ok := fault.As(err)
		require.True(t, ok, bad)
		require.Equal(t, fault.CodeInvalidRequest, f.Code, bad)
	}

	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	unread := &domain.Inbound{}
	read := &domain.Inbound{ReadAt: &at}
	replied := &domain.Inbound{ReadAt: &at, RepliedAt: &at}
	for _, tc := range []struct {
		f    domain.InboxFilter
		want [3]bool // unread, read, replied
	}{
		{domain.InboxAll, [3]bool{true, true, true}},
		{domain.InboxUnread, [3]bool{true, false, false}},
		{domain.InboxReplied, [3]bool{false, false, true}},
	} {
		require.Equal(t, tc.want, [3]bool{tc.f.Matches(unread), tc.f.Matches(read), tc.f.Matches(replied)}, tc.f)
	}
}

func TestMatchKeywordWholeText(t *testing.T) {
	t.Parallel()
	require.Equal(t, domain.KeywordStop, domain.MatchKeyword(" Opt-Out! "))
	require.Equal(t, domain.KeywordStart, domain.MatchKeyword("UNSTOP"))
	require.Equal(t, domain.KeywordHelp, domain.MatchKeyword("info?"))
	require.Equal(t, domain.Keyword(""), domain.MatchKeyword("STOP STOP"))
	require.Equal(t, domain.Keyword(""), domain.MatchKeyword("please stop"))
}
