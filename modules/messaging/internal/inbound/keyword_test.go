package inbound_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/platform/fault"
)

func TestMatchKeyword(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]domain.Keyword{
		"STOP": domain.KeywordStop, "stop": domain.KeywordStop, "  Stop \n": domain.KeywordStop, "Stop.": domain.KeywordStop,
		"stop!!": domain.KeywordStop, "¡STOP!": domain.KeywordStop, "\"stop\"": domain.KeywordStop, "StopAll": domain.KeywordStop,
		"unsubscribe": domain.KeywordStop, "CANCEL": domain.KeywordStop, "end": domain.KeywordStop, "Quit": domain.KeywordStop,
		"revoke": domain.KeywordStop, "opt out": domain.KeywordStop, "OPT  OUT": domain.KeywordStop, "Opt-Out": domain.KeywordStop,
		"optout": domain.KeywordStop, "\tOPT\tOUT.": domain.KeywordStop,
		"START": domain.KeywordStart, " start ": domain.KeywordStart, "Unstop": domain.KeywordStart, "start.": domain.KeywordStart,
		"HELP": domain.KeywordHelp, "help?": domain.KeywordHelp, " Info ": domain.KeywordHelp,
		"stop please": "", "please stop": "", "don't stop": "", "STOP STOP": "", "stopp": "", "": "", "   ": "", "...": "",
		"opt": "", "running late": "", "help me find the field": "", "s t o p": "", "STOP 🛑": "",
	} {
		require.Equal(t, want, domain.MatchKeyword(body), "%q", body)
	}
}

func TestParseRange(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 23, 59, 0, 0, time.FixedZone("X", -5*3600)) // 2026-11-23 04:59 UTC
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		require.NoError(t, err)
		return d
	}
	for _, tc := range []struct {
		name, from, to   string
		wantFrom, wantTo string
		invalid          bool
	}{
		{name: "default: the last 30 days, today by UTC", wantFrom: "2026-10-25", wantTo: "2026-11-23"},
		{name: "to only", to: "2026-01-31", wantFrom: "2026-01-02", wantTo: "2026-01-31"},
		{name: "from only", from: "2026-11-01", wantFrom: "2026-11-01", wantTo: "2026-11-23"},
		{name: "one day", from: "2026-03-01", to: "2026-03-01", wantFrom: "2026-03-01", wantTo: "2026-03-01"},
		{name: "366 days", from: "2024-01-01", to: "2024-12-31", wantFrom: "2024-01-01", wantTo: "2024-12-31"},
		{name: "367 days", from: "2024-01-01", to: "2025-01-01", invalid: true},
		{name: "from after to", from: "2026-03-02", to: "2026-03-01", invalid: true},
		{name: "from in the future without to", from: "2026-12-01", invalid: true},
		{name: "not a date", from: "yesterday", invalid: true},
		{name: "a timestamp", to: "2026-03-01T00:00:00Z", invalid: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			from, to, err := inbound.ParseRange(tc.from, tc.to, now)
			if tc.invalid {
				f, ok := fault.As(err)
				require.True(t, ok, "%v", err)
				require.Equal(t, fault.CodeInvalidRequest, f.Code)
				return
			}
			require.NoError(t, err)
			require.Equal(t, day(tc.wantFrom), from)
			require.Equal(t, day(tc.wantTo), to)
		})
	}
}

func TestRate(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0.0, inbound.Rate(0, 0))
	require.Equal(t, 0.6667, inbound.Rate(2, 3))
	require.Equal(t, 1.0, inbound.Rate(5, 4), "never above 1")
	require.Equal(t, 0.9999, inbound.Rate(999_949, 1_000_000))
}

func TestValidHelpText(t *testing.T) {
	t.Parallel()
	got, err := domain.ValidHelpText("  Tigers: coach texts. Reply STOP to opt out.  ")
	require.NoError(t, err)
	require.Equal(t, "Tigers: coach texts. Reply STOP to opt out.", got)
	got, err = domain.ValidHelpText(" ")
	require.NoError(t, err)
	require.Empty(t, got, "blank restores the default")
	_, err = domain.ValidHelpText("Tigers: coach texts.")
	require.Error(t, err, "must say how to opt out")
	require.Contains(t, domain.DefaultHelpText("Tigers"), "Tigers: ")
	require.Contains(t, domain.DefaultHelpText("Tigers"), "Msg & data rates may apply")
	require.Contains(t, domain.DefaultHelpText("Tigers"), "Reply STOP to opt out.")
}
