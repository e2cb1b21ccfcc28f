package domain

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/teamtext/teamtext/platform/fault"
)

func TestParseClock(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]Clock{"00:00": 0, "08:00": 480, "21:00": 1260, "23:59": 1439, "13:05": 785} {
		c, err := ParseClock(s)
		require.NoError(t, err, s)
		require.Equal(t, want, c, s)
		require.Equal(t, s, c.String())
	}
	for _, s := range []string{"", "25:00", "24:00", "12:60", "8:00", "08:0", "08-00", "0800", " 08:00", "08:00 ", "+8:00", "ab:cd", "08:00:00", "٠٨:٠٠"} {
		_, err := ParseClock(s)
		requireFault(t, err, fault.Invalid, fault.CodeInvalidRequest)
	}
}

func TestClockRoundTrips(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		c := Clock(rapid.IntRange(0, 24*60-1).Draw(t, "clock"))
		back, err := ParseClock(c.String())
		if err != nil || back != c {
			t.Fatalf("%d → %q → %d, %v", c, c.String(), back, err)
		}
	})
}

func TestQuietHoursRule(t *testing.T) {
	t.Parallel()
	d := DefaultQuietHours(true)
	require.Equal(t, QuietHours{Enabled: true, Start: 21 * 60, End: 8 * 60}, d)
	require.Equal(t, "21:00", d.Start.String())
	require.Equal(t, "08:00", d.End.String())
	require.False(t, DefaultQuietHours(false).Enabled)

	q, err := NewQuietHours(true, 13*60, 14*60)
	require.NoError(t, err, "a window that does not cross midnight")
	require.Equal(t, QuietHours{Enabled: true, Start: 780, End: 840}, q)
	_, err = NewQuietHours(false, 21*60, 21*60)
	requireFault(t, err, fault.Invalid, fault.CodeInvalidRequest)
	_, err = NewQuietHours(true, -1, 60)
	requireFault(t, err, fault.Invalid, fault.CodeInvalidRequest)
	_, err = NewQuietHours(true, 0, 24*60)
	requireFault(t, err, fault.Invalid, fault.CodeInvalidRequest)

	on, off := true, false
	unset := QuietHoursSetting{Start: DefaultQuietStart, End: DefaultQuietEnd}
	require.Equal(t, DefaultQuietHours(true), unset.Rule(true), "unset follows the operator's default")
	require.Equal(t, DefaultQuietHours(false), unset.Rule(false))
	require.False(t, QuietHoursSetting{Enabled: &off, Start: 1, End: 2}.Rule(true).Enabled, "the team's choice wins")
	require.Equal(t, QuietHours{Enabled: true, Start: 1, End: 2}, QuietHoursSetting{Enabled: &on, Start: 1, End: 2}.Rule(false))
}
