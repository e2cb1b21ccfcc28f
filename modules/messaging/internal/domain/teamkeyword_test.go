package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
)

func TestValidKeywordWord(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"schedule": "SCHEDULE", " Fields2 ": "FIELDS2", "u12": "U12", strings.Repeat("a", 20): strings.Repeat("A", 20)} {
		got, err := domain.ValidKeywordWord(in, "TIGERS12")
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "  ", "two words", "sched-ule", "snack!", "café", "ıce", strings.Repeat("a", 21), "a\x00b"} {
		_, err := domain.ValidKeywordWord(bad, "TIGERS12")
		require.True(t, isInvalid(err), "%q: %v", bad, err)
	}
}

func TestReservedKeywords(t *testing.T) {
	t.Parallel()
	reserved := []string{
		"STOP", "stopall", "Unsubscribe", "CANCEL", "end", "QUIT", "revoke", "OPTOUT", // STOP and its synonyms
		"START", "unstop", // START
		"HELP", "info", // HELP
		"JOIN", "athlete", "Parent", // the join keywords
		"tigers12", "TIGERS12", // the team's code, in any case
	}
	for _, w := range reserved {
		_, err := domain.ValidKeywordWord(w, "Tigers12")
		require.Error(t, err, w)
		require.True(t, isInvalid(err), "%s: %v", w, err)
		require.Contains(t, err.Error(), "reserved", w)
	}
	// A word next to a reserved one is not reserved; no code reserves nothing more.
	for _, w := range []string{"STOPS", "HELPER", "JOINS", "TIGERS1"} {
		_, err := domain.ValidKeywordWord(w, "Tigers12")
		require.NoError(t, err, w)
	}
	_, err := domain.ValidKeywordWord("SCHEDULE", "")
	require.NoError(t, err)
}

func TestValidKeywordReply(t *testing.T) {
	t.Parallel()
	got, err := domain.ValidKeywordReply("  Games at 5, fields.example.org  ")
	require.NoError(t, err)
	require.Equal(t, "Games at 5, fields.example.org", got)
	_, err = domain.ValidKeywordReply(strings.Repeat("é", domain.MaxKeywordReplyRunes))
	require.NoError(t, err, "the limit counts characters, not bytes")
	for _, bad := range []string{"", "   ", "\u200b", strings.Repeat("x", domain.MaxKeywordReplyRunes+1), "a\x00b", "bad \xff utf8"} {
		_, err := domain.ValidKeywordReply(bad)
		require.True(t, isInvalid(err), "%q: %v", bad, err)
	}
}

func TestKeywordWord(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"schedule": "SCHEDULE", " Schedule. ": "SCHEDULE", "SCHEDULE!!": "SCHEDULE", "\tu12\n": "U12",
		"schedule please": "", "sched-ule": "", "": "", "?!": "", "café": "", strings.Repeat("a", 21): "",
	} {
		require.Equal(t, want, domain.KeywordWord(body), "%q", body)
	}
}

func TestNewKeywordReply(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	in := &domain.Inbound{ID: "inb_1", TeamID: "team_1", FromPhone: "+12025550101"}
	k := &domain.TeamKeyword{ID: "kwd_1", TeamID: "team_1", Keyword: "SCHEDULE", Reply: "Games at 5"}
	rp := domain.NewKeywordReply("rpl_1", in, k, "Tigers", now)
	require.Equal(t, domain.Reply{ID: "rpl_1", TeamID: "team_1", InboundID: "inb_1", Kind: domain.ReplyKeyword,
		ToPhone: "+12025550101", Body: "Tigers: Games at 5", Segments: 1, Status: domain.ReplyQueued, CreatedAt: now}, *rp)
	k.Reply = strings.Repeat("x", 155)
	require.Equal(t, 2, domain.NewKeywordReply("rpl_2", in, k, "Tigers", now).Segments, "the team's name counts")
}

func isInvalid(err error) bool {
	f, ok := fault.As(err)
	return ok && f.Code == fault.CodeInvalidRequest
}
