package domain

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/fault"
)

func TestParseReplyOptions(t *testing.T) {
	t.Parallel()
	got, err := ParseReplyOptions([]string{"yes", "No", "MAYBE"})
	require.NoError(t, err)
	require.Equal(t, []string{"YES", "NO", "MAYBE"}, got)

	got, err = ParseReplyOptions(nil)
	require.NoError(t, err)
	require.Nil(t, got)

	got, err = ParseReplyOptions([]string{"1", "2", "A3", "Sí"})
	require.NoError(t, err)
	require.Equal(t, []string{"1", "2", "A3", "SÍ"}, got)

	bad := map[string][]string{
		"empty list":         {},
		"one option":         {"YES"},
		"ten options":        {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"},
		"empty option":       {"YES", ""},
		"two words":          {"YES", "NOT SURE"},
		"punctuation":        {"YES", "NO!"},
		"duplicate":          {"YES", "yes"},
		"duplicate exact":    {"NO", "NO"},
		"too long":           {"YES", strings.Repeat("N", 21)},
		"invalid utf-8":      {"YES", "N\xff"},
		"nul byte":           {"YES", "N\x00"},
		"emoji":              {"YES", "👍"},
		"hyphenated":         {"YES", "NO-GO"},
		"leading whitespace": {"YES", " NO"},
	}
	for name, opts := range bad {
		_, err := ParseReplyOptions(opts)
		require.Error(t, err, name)
		var f *fault.Error
		require.ErrorAs(t, err, &f, name)
		require.Equal(t, fault.Invalid, f.Kind, name)
		require.Equal(t, fault.CodeInvalidRequest, f.Code, name)
	}
	nine := []string{"A", "B", "C", "D", "E", "F", "G", "H", "I"}
	got, err = ParseReplyOptions(nine)
	require.NoError(t, err)
	require.Len(t, got, 9)
}

func TestReplyLine(t *testing.T) {
	t.Parallel()
	require.Equal(t, "", ReplyLine(nil))
	require.Equal(t, "Reply YES or NO", ReplyLine([]string{"YES", "NO"}))
	require.Equal(t, "Reply YES, NO or MAYBE", ReplyLine([]string{"YES", "NO", "MAYBE"}))
	require.Equal(t, "Reply 1, 2, 3 or 4", ReplyLine([]string{"1", "2", "3", "4"}))
}

func TestRenderPoll(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Lions: Practice Sat?\nReply STOP to opt out.\nReply YES, NO or MAYBE",
		RenderPoll("Lions", "Practice Sat?", []string{"YES", "NO", "MAYBE"}))
	require.Equal(t, Render("Lions", "Hi"), RenderPoll("Lions", "Hi", nil))
}

// The reply line counts in the segments: a text that fits one segment
// alone takes two with it.
func TestPollSegments(t *testing.T) {
	t.Parallel()
	opts := []string{"YES", "NO", "MAYBE"}
	// "T: " (3) + text + "\n" (1) + opt-out line (22) = 160 septets exactly.
	text := strings.Repeat("a", 160-3-1-len(OptOutLine))
	plain := Segments(Render("T", text))
	require.Equal(t, 1, plain.Segments)
	require.Equal(t, 160, plain.Units)
	poll := Segments(RenderPoll("T", text, opts))
	require.Equal(t, 160+1+len("Reply YES, NO or MAYBE"), poll.Units)
	require.Equal(t, 2, poll.Segments)
	require.Equal(t, GSM7, poll.Encoding)
	// A short poll stays one segment.
	require.Equal(t, 1, Segments(RenderPoll("T", "Game on?", opts)).Segments)
}

func TestReplyUntil(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at, err := ReplyUntil("", true, now)
	require.NoError(t, err)
	require.Equal(t, now.Add(7*24*time.Hour), *at)

	at, err = ReplyUntil("2026-05-03T08:00:00-04:00", true, now)
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 5, 3, 12, 0, 0, 0, time.UTC), *at)

	at, err = ReplyUntil("", false, now)
	require.NoError(t, err)
	require.Nil(t, at)

	for name, raw := range map[string]string{
		"past":        "2026-04-30T12:00:00Z",
		"now":         "2026-05-01T12:00:00Z",
		"31 days":     "2026-06-01T12:00:01Z",
		"no offset":   "2026-05-03T08:00:00",
		"date only":   "2026-05-03",
		"not a time":  "tomorrow",
		"empty-ish":   " ",
		"bad numbers": "2026-13-40T00:00:00Z",
	} {
		_, err := ReplyUntil(raw, true, now)
		require.Error(t, err, name)
	}
	_, err = ReplyUntil("2026-05-31T12:00:00Z", true, now) // exactly 30 days
	require.NoError(t, err)
	_, err = ReplyUntil("2026-05-03T08:00:00Z", false, now)
	require.ErrorContains(t, err, "reply_until needs reply_options")
}

func TestMatchOption(t *testing.T) {
	t.Parallel()
	opts := []string{"YES", "NO", "MAYBE", "2"}
	for body, want := range map[string]string{
		"yes": "YES", "Yes!": "YES", "  YES, see you there": "YES", "no idea?": "NO", "maybe.": "MAYBE",
		"...Maybe": "MAYBE", "2": "2", "2 kids coming": "2", "YES\nthanks": "YES",
	} {
		got, ok := MatchOption(body, opts)
		require.True(t, ok, body)
		require.Equal(t, want, got, body)
	}
	for _, body := range []string{"", "  ", "yesss", "nope", "I said yes", "👍", "22", "y"} {
		_, ok := MatchOption(body, opts)
		require.False(t, ok, body)
	}
}

func TestPollOpen(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 5, 8, 12, 0, 0, 0, time.UTC)
	require.True(t, PollOpen(&until, until.Add(-time.Second)))
	require.False(t, PollOpen(&until, until))
	require.False(t, PollOpen(nil, until))
}
