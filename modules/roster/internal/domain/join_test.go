package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

func TestMatchJoinKeyword(t *testing.T) {
	for body, want := range map[string]rosterapi.Role{
		"JOIN": rosterapi.RoleAthlete, " join ": rosterapi.RoleAthlete, "Join\n": rosterapi.RoleAthlete,
		"athlete": rosterapi.RoleAthlete, "PARENT": rosterapi.RoleGuardian, "\tParent ": rosterapi.RoleGuardian,
		"tigers-u12": rosterapi.RoleAthlete, "TIGERS-U12": rosterapi.RoleAthlete,
	} {
		role, kw, ok := domain.MatchJoinKeyword(body, "tigers-u12")
		require.True(t, ok, "%q", body)
		require.Equal(t, want, role, "%q", body)
		require.Equal(t, strings.ToUpper(strings.TrimSpace(body)), kw)
	}
	for _, body := range []string{"", "  ", "join please", "JOIN!", "joins", "parents", "tigers", "tigers-u12 now", "STOP", "help"} {
		_, _, ok := domain.MatchJoinKeyword(body, "tigers-u12")
		require.False(t, ok, "%q is not a join keyword", body)
	}
	_, _, ok := domain.MatchJoinKeyword("", "")
	require.False(t, ok, "no code: the empty text is no keyword")
	require.Equal(t, []string{"JOIN", "ATHLETE", "PARENT"}, domain.JoinKeywords())
	for _, w := range domain.JoinKeywords() {
		_, kw, ok := domain.MatchJoinKeyword(strings.ToLower(w), "")
		require.True(t, ok)
		require.Equal(t, w, kw)
	}
}

func TestConversationStatesAndExpiry(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	c := domain.NewConversation("jcv_1", "team_1", "+12025550101", "JOIN", "inb_1", rosterapi.RoleAthlete, t0)
	require.Equal(t, domain.JoinAwaitingName, c.State)
	require.Equal(t, t0.Add(24*time.Hour), c.ExpiresAt)
	require.True(t, c.Open(t0))
	require.True(t, c.Open(t0.Add(24*time.Hour-time.Second)))
	require.False(t, c.Expired(t0.Add(24*time.Hour-time.Second)))
	require.False(t, c.Open(t0.Add(24*time.Hour)), "expires 24 h after it started")
	require.True(t, c.Expired(t0.Add(24*time.Hour)))

	require.NoError(t, c.Joined("inb_2", "mem_1", t0.Add(time.Minute)))
	require.Equal(t, domain.JoinJoined, c.State)
	require.Equal(t, "inb_2", c.NameMessageID)
	require.Equal(t, "mem_1", c.MemberID)
	require.False(t, c.Open(t0.Add(time.Minute)))
	require.False(t, c.Expired(t0.Add(48*time.Hour)), "a closed conversation does not expire")
	require.Error(t, c.Close(domain.JoinStopped, t0.Add(2*time.Minute)), "closed once")
	require.Error(t, c.Joined("inb_3", "mem_2", t0.Add(2*time.Minute)), "a second name joins nobody")

	s := domain.NewConversation("jcv_2", "team_1", "+12025550102", "PARENT", "inb_4", rosterapi.RoleGuardian, t0)
	require.NoError(t, s.Close(domain.JoinStopped, t0.Add(time.Hour)))
	require.False(t, s.Open(t0.Add(time.Hour)))
}

func TestJoinNameAndStatus(t *testing.T) {
	n, ok := domain.JoinName("  Jordan Lee \n")
	require.True(t, ok)
	require.Equal(t, "Jordan Lee", n)
	for _, bad := range []string{"", "   ", "\u200b\u200b", strings.Repeat("a", 101)} {
		_, ok := domain.JoinName(bad)
		require.False(t, ok, "%q", bad)
	}
	require.Equal(t, domain.StatusPending, domain.JoinStatus(true))
	require.Equal(t, domain.StatusActive, domain.JoinStatus(false))
}

func TestJoinAnswersCarryTheTeamAndDisclosure(t *testing.T) {
	ask := domain.JoinAskName("Tigers U12", rosterapi.RoleGuardian)
	for _, want := range []string{"Tigers U12", "parent or guardian", "full name", "Msg frequency varies", "Msg & data rates may apply", "Reply STOP to opt out"} {
		require.Contains(t, ask, want)
	}
	for _, s := range []string{domain.JoinNameAgain("Tigers U12"), domain.JoinWelcome("Tigers U12", "Jo", true), domain.JoinWelcome("Tigers U12", "Jo", false),
		domain.JoinAlreadyListed("Tigers U12"), domain.JoinOptedOut("Tigers U12"), domain.JoinCodeText("Tigers U12", "123456"), domain.JoinDisclosure("Tigers U12")} {
		require.True(t, strings.HasPrefix(s, "Tigers U12: ") || strings.Contains(s, "Tigers U12's"), s)
	}
	require.Contains(t, domain.JoinWelcome("T", "Jo", true), "A coach will approve")
	require.Contains(t, domain.JoinOptedOut("T"), "Text START first")
}

func TestWebJoinCode(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	code, c := domain.NewJoinCode("jcd_1", "team_1", "+12025550101", "Jo", rosterapi.RoleGuardian, "198.51.100.7", t0)
	require.Len(t, code, 6)
	require.NotContains(t, string(c.Hash), code, "kept hashed")
	require.Equal(t, domain.WebDisclosureVersion, c.DisclosureVersion)
	require.False(t, c.Try("000000x", t0))
	require.Equal(t, 1, c.Attempts)
	require.False(t, c.Try(code, t0.Add(10*time.Minute)), "expired after 10 minutes")
	require.True(t, c.Try(code, t0.Add(time.Minute)))
	require.False(t, c.Try(code, t0.Add(time.Minute)), "used once")
	ev := domain.WebJoinEvidence(&c, "tigers-u12", t0)
	for _, want := range []string{"/join/tigers-u12", domain.WebDisclosureVersion, "198.51.100.7", "2026-12-07T18:00:00Z"} {
		require.Contains(t, ev, want)
	}
	for in, want := range map[string]rosterapi.Role{"athlete": rosterapi.RoleAthlete, " Guardian ": rosterapi.RoleGuardian} {
		r, err := domain.WebJoinRole(in)
		require.NoError(t, err)
		require.Equal(t, want, r)
	}
	_, err := domain.WebJoinRole("head_coach")
	require.Error(t, err, "the page gives athlete or guardian only")
}
