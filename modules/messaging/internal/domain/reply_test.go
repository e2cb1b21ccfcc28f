package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
)

func TestNewReplies(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	in := &domain.Inbound{ID: "inb_1", TeamID: "team_1", FromPhone: "+12025550101"}

	rp := domain.NewStaffReply("rpl_1", in, "mem_coach", "Tigers", "See you at 5", now)
	require.Equal(t, domain.Reply{ID: "rpl_1", TeamID: "team_1", InboundID: "inb_1", Kind: domain.ReplyStaff, MemberID: "mem_coach",
		ToPhone: "+12025550101", Body: "Tigers: See you at 5", Segments: 1, Status: domain.ReplyQueued, CreatedAt: now}, *rp)
	require.True(t, rp.Pending())

	long := domain.NewStaffReply("rpl_2", in, "mem_coach", "Tigers", strings.Repeat("x", 160), now)
	require.Equal(t, 2, long.Segments, "the team prefix counts")

	help := domain.NewHelpReply("rpl_3", in, domain.DefaultHelpText("Tigers"), now)
	require.Equal(t, domain.ReplyHelp, help.Kind)
	require.Empty(t, help.MemberID)
	require.Equal(t, domain.DefaultHelpText("Tigers"), help.Body, "HELP answers without the team prefix")
	require.Equal(t, domain.Segments(help.Body).Segments, help.Segments)
}

func TestReplySentAndFailed(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rp := domain.NewStaffReply("rpl_1", &domain.Inbound{}, "mem", "T", "hi", now)
	rp.Sent("SM1", now.Add(time.Second))
	require.Equal(t, domain.ReplySent, rp.Status)
	require.Equal(t, "SM1", rp.ProviderMessageID)
	require.Equal(t, now.Add(time.Second), *rp.SentAt)
	require.False(t, rp.Pending(), "a retried job sends nothing more")

	rp = domain.NewStaffReply("rpl_2", &domain.Inbound{}, "mem", "T", "hi", now)
	rp.Fail("21610")
	require.Equal(t, domain.ReplyFailed, rp.Status)
	require.Equal(t, "21610", rp.ErrorCode)
	require.False(t, rp.Pending())
}

func TestHelpText(t *testing.T) {
	t.Parallel()
	require.Equal(t, domain.DefaultHelpText("Tigers"), domain.HelpText("", "Tigers"))
	require.Equal(t, "Own text. Reply STOP to opt out.", domain.HelpText("Own text. Reply STOP to opt out.", "Tigers"))
	require.Contains(t, domain.DefaultHelpText("Tigers"), "Reply STOP")

	got, err := domain.ValidHelpText("  Tigers texts. Reply stop to opt out.  ")
	require.NoError(t, err)
	require.Equal(t, "Tigers texts. Reply stop to opt out.", got)
	got, err = domain.ValidHelpText("   ")
	require.NoError(t, err)
	require.Empty(t, got, "blank restores the default")
	_, err = domain.ValidHelpText("Tigers texts.")
	f, _ := fault.As(err)
	require.Equal(t, fault.CodeInvalidRequest, f.Code, "must tell how to opt out")
	_, err = domain.ValidHelpText(strings.Repeat("é", domain.MaxHelpTextRunes-4) + " STOP")
	require.Error(t, err, "over the limit in characters, not bytes")
	_, err = domain.ValidHelpText(strings.Repeat("é", domain.MaxHelpTextRunes-5) + " STOP")
	require.NoError(t, err)
}
