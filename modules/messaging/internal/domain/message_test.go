package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNextWeekKeepsLocalTimeAcrossDST(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	cases := []struct{ from, want string }{
		{"2027-03-13T17:30:00-05:00", "2027-03-20T17:30:00-04:00"}, // spring forward between
		{"2027-11-06T17:30:00-04:00", "2027-11-13T17:30:00-05:00"}, // fall back between
		{"2027-06-01T09:00:00-04:00", "2027-06-08T09:00:00-04:00"},
		{"2027-03-07T02:30:00-05:00", "2027-03-14T03:30:00-04:00"}, // 02:30 does not exist on 03-14: moves forward
	}
	for _, c := range cases {
		from, _ := time.Parse(time.RFC3339, c.from)
		want, _ := time.Parse(time.RFC3339, c.want)
		require.True(t, NextWeek(from, ny).Equal(want), "%s -> %s, want %s", c.from, NextWeek(from, ny).In(ny), c.want)
	}
}

func TestWithinUntilUsesTheCalendarDate(t *testing.T) {
	t.Parallel()
	ny, _ := time.LoadLocation("America/New_York")
	untilFromDB := time.Date(2027, 3, 20, 0, 0, 0, 0, time.UTC) // a date column read back
	require.True(t, WithinUntil(time.Date(2027, 3, 20, 17, 30, 0, 0, ny), untilFromDB, ny))
	require.True(t, WithinUntil(time.Date(2027, 3, 20, 23, 59, 0, 0, ny), untilFromDB, ny), "late evening local is still the 20th")
	require.False(t, WithinUntil(time.Date(2027, 3, 21, 0, 30, 0, 0, ny), untilFromDB, ny))
}

func TestCheckMergeTags(t *testing.T) {
	t.Parallel()
	fields := map[string]bool{"medical": true, "jersey": false}
	require.NoError(t, CheckMergeTags("no tags {} here { }", fields))
	for text, code := range map[string]string{
		"Hi {first_name}":    CodeMergeTagsUnsupported,
		"#{jersey}":          CodeMergeTagsUnsupported,
		"{MEDICAL} note":     CodePrivateField,
		"{jersey} {medical}": CodePrivateField,
	} {
		err := CheckMergeTags(text, fields)
		require.Error(t, err, text)
		require.Contains(t, err.Error(), code, text)
	}
}

func TestScheduleBounds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	require.Error(t, CheckScheduledFor(now.Add(59*time.Second), now))
	require.NoError(t, CheckScheduledFor(now.Add(time.Minute), now))
	require.NoError(t, CheckScheduledFor(now.Add(ScheduleMaxAhead), now))
	require.Error(t, CheckScheduledFor(now.Add(ScheduleMaxAhead+time.Second), now))
	_, err := ParseScheduledFor("2027-01-01T10:00:00")
	require.Error(t, err, "an offset is required")
}

func TestRender(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Eagles: Practice at 5\nReply STOP to opt out.", Render("Eagles", "Practice at 5"))
}
