package domain_test

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the names resolve whatever the host's zoneinfo

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
)

// TestValidTimeZone: a member's time zone is optional (empty or spaces:
// unset), else an IANA name that loads, with a "/" or UTC; Local, legacy
// aliases without a "/", unknown names, paths and overlong names are
// refused with the field's 400 invalid_request.
func TestValidTimeZone(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                     "",
		"   ":                  "",
		"America/Chicago":      "America/Chicago",
		" America/New_York\t":  "America/New_York",
		"Pacific/Honolulu":     "Pacific/Honolulu",
		"America/Indiana/Knox": "America/Indiana/Knox",
		"Etc/GMT+5":            "Etc/GMT+5",
		"UTC":                  "UTC",
	} {
		got, err := domain.ValidTimeZone("time_zone", in)
		require.NoError(t, err, "%q", in)
		require.Equal(t, want, got, "%q", in)
	}
	for _, in := range []string{"Local", "EST", "GMT", "utc", "Mars/Olympus", "america/chicago", "America/Chicago/",
		"../etc/passwd", "/usr/share/zoneinfo/UTC", "America/../UTC", "America/Chi\x00cago", "America/" + strings.Repeat("x", 80)} {
		_, err := domain.ValidTimeZone("time_zone", in)
		requireCode(t, err, fault.Invalid, fault.CodeInvalidRequest)
		f, _ := fault.As(err)
		require.True(t, strings.HasPrefix(f.Message, "time_zone "), "%q: %s", in, f.Message)
	}
	_, err := domain.ValidTimeZone("rows[3].time_zone", "Nowhere")
	require.ErrorContains(t, err, "rows[3].time_zone")
}

// TestNewMemberTimeZone: an add keeps a valid zone (trimmed), from the API
// and the dashboard alike, leaves it unset when none is given, and refuses
// an invalid one after the role.
func TestNewMemberTimeZone(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	in := domain.MemberInput{Name: "Ana", Phone: "(202) 555-0143", TimeZone: " America/Chicago "}
	for _, dashboard := range []bool{false, true} {
		m, err := domain.NewMember("mem_1", "team_1", in, dashboard, now)
		require.NoError(t, err)
		require.Equal(t, "America/Chicago", m.TimeZone)
	}
	m, err := domain.NewMember("mem_1", "team_1", domain.MemberInput{Name: "Ana", Phone: "(202) 555-0143"}, false, now)
	require.NoError(t, err)
	require.Empty(t, m.TimeZone)
	_, err = domain.NewMember("mem_1", "team_1", domain.MemberInput{Name: "Ana", Phone: "(202) 555-0143", TimeZone: "Mars/Olympus"}, false, now)
	requireCode(t, err, fault.Invalid, fault.CodeInvalidRequest)
	_, err = domain.NewMember("mem_1", "team_1", domain.MemberInput{Name: "Ana", Phone: "(202) 555-0143", Role: "nope", TimeZone: "Mars/Olympus"}, false, now)
	requireCode(t, err, fault.Invalid, domain.CodeInvalidRole)
}
