package domain

import (
	"fmt"

	"github.com/teamtext/teamtext/platform/fault"
)

// QuietHours is a team's quiet-hours rule: no routine text is handed over
// between Start and End in the recipient's local time. Start
// after End crosses midnight (21:00–08:00); Start before End does not
// (13:00–14:00).
type QuietHours struct {
	Enabled    bool
	Start, End Clock // local times of day; Start == End is refused
}

// Clock is a time of day in minutes after midnight (0..1439).
type Clock int

// The default quiet window: 21:00 to 08:00, the TCPA's hours.
const (
	DefaultQuietStart Clock = 21 * 60
	DefaultQuietEnd   Clock = 8 * 60
)

// ParseClock reads "HH:MM", 00:00 to 23:59 (two digits each).
func ParseClock(s string) (Clock, error) {
	if len(s) == 5 && s[2] == ':' && digits(s[:2]) && digits(s[3:]) {
		h, m := int(s[0]-'0')*10+int(s[1]-'0'), int(s[3]-'0')*10+int(s[4]-'0')
		if h < 24 && m < 60 {
			return Clock(h*60 + m), nil
		}
	}
	return 0, fault.Invalidf("%q is not a time of day: use HH:MM, from 00:00 to 23:59", s)
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// String is "HH:MM", e.g. "21:00".
func (c Clock) String() string { return fmt.Sprintf("%02d:%02d", int(c)/60, int(c)%60) }

// DefaultQuietHours is 21:00–08:00, with enabled as given.
func DefaultQuietHours(enabled bool) QuietHours {
	return QuietHours{Enabled: enabled, Start: DefaultQuietStart, End: DefaultQuietEnd}
}

// NewQuietHours checks a rule: both times of day in range and distinct (an
// empty or a whole-day window is refused).
func NewQuietHours(enabled bool, start, end Clock) (QuietHours, error) {
	for _, c := range []Clock{start, end} {
		if c < 0 || c >= 24*60 {
			return QuietHours{}, fault.Invalidf("a time of day is from 00:00 to 23:59")
		}
	}
	if start == end {
		return QuietHours{}, fault.Invalidf("quiet_hours.start and quiet_hours.end must differ (both %s)", start)
	}
	return QuietHours{Enabled: enabled, Start: start, End: end}, nil
}

// QuietHoursSetting is a team's stored choice: Enabled nil follows the
// operator's default (QUIET_HOURS_DEFAULT).
type QuietHoursSetting struct {
	Enabled    *bool
	Start, End Clock
}

// Rule is the setting with the operator's default applied.
func (s QuietHoursSetting) Rule(enabledByDefault bool) QuietHours {
	q := QuietHours{Enabled: enabledByDefault, Start: s.Start, End: s.End}
	if s.Enabled != nil {
		q.Enabled = *s.Enabled
	}
	return q
}
