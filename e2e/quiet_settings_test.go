package e2e

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// quietHours is the quiet_hours member of a team's messaging settings.
type quietHours struct {
	Enabled        bool   `json:"enabled"`
	EnabledDefault bool   `json:"enabled_default"`
	Start          string `json:"start"`
	End            string `json:"end"`
}

func quietOf(t *testing.T, r *harness.Response) quietHours {
	t.Helper()
	require.Equal(t, 200, r.Status, string(r.Body))
	var s struct {
		HelpText   string     `json:"help_text"`
		QuietHours quietHours `json:"quiet_hours"`
	}
	require.NoError(t, r.Data(&s))
	require.NotEmpty(t, s.HelpText, "the HELP reply is still there")
	return s.QuietHours
}

// Quiet hours, the team setting: a team that never
// chose has 21:00–08:00 and follows QUIET_HOURS_DEFAULT (off in the
// suite); PATCH changes any of enabled, start and end and keeps the rest;
// a bad time or start == end is 400 invalid_request naming the field and
// changes nothing; an unknown team is 404.
func TestQuietHoursSetting(t *testing.T) {
	t.Parallel()
	f, _ := newTeam(t, harness.TeamOptions{})
	path := "/teams/" + f.TeamID + "/messaging-settings"

	require.Equal(t, quietHours{Enabled: false, EnabledDefault: true, Start: "21:00", End: "08:00"}, quietOf(t, do(t, env.admin, "GET", path, nil)))

	require.Equal(t, quietHours{Enabled: true, Start: "21:00", End: "08:00"},
		quietOf(t, do(t, env.admin, "PATCH", path, map[string]any{"quiet_hours": map[string]any{"enabled": true}})))
	require.Equal(t, quietHours{Enabled: true, Start: "22:30", End: "08:00"},
		quietOf(t, do(t, env.admin, "PATCH", path, map[string]any{"quiet_hours": map[string]any{"start": "22:30"}})))
	require.Equal(t, quietHours{Enabled: true, Start: "13:00", End: "14:00"},
		quietOf(t, do(t, env.admin, "PATCH", path, map[string]any{"quiet_hours": map[string]any{"start": "13:00", "end": "14:00"}})),
		"a window that does not cross midnight")
	require.Equal(t, quietHours{Enabled: false, Start: "13:00", End: "14:00"},
		quietOf(t, do(t, env.admin, "PATCH", path, map[string]any{"quiet_hours": map[string]any{"enabled": false}})),
		"off by the team's choice, not the default")
	custom := "Tigers: coach texts. Reply STOP to opt out."
	r := do(t, env.admin, "PATCH", path, map[string]any{"help_text": custom})
	require.Equal(t, quietHours{Enabled: false, Start: "13:00", End: "14:00"}, quietOf(t, r), "a HELP reply change keeps the quiet hours")

	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"start": "25:00"}, "quiet_hours.start"},
		{map[string]any{"end": "8:00"}, "quiet_hours.end"},
		{map[string]any{"enabled": true, "start": "14:00"}, "quiet_hours.start"}, // start == end (14:00)
		{map[string]any{"start": "09:15", "end": "09:15"}, "quiet_hours.start"},
	} {
		r := do(t, env.admin, "PATCH", path, map[string]any{"quiet_hours": c.body, "help_text": ""})
		requireCode(t, r, 400, "invalid_request")
		require.Contains(t, string(r.Body), c.field, c.body)
	}
	got := quietOf(t, do(t, env.admin, "GET", path, nil))
	require.Equal(t, quietHours{Enabled: false, Start: "13:00", End: "14:00"}, got, "a refused PATCH changes nothing")
	var s struct {
		HelpText string `json:"help_text"`
	}
	require.NoError(t, do(t, env.admin, "GET", path, nil).Data(&s))
	require.Equal(t, custom, s.HelpText, "nor the HELP reply given with it")

	requireCode(t, do(t, env.admin, "GET", "/teams/team_nope/messaging-settings", nil), 404, "not_found")
	requireCode(t, do(t, env.admin, "PATCH", "/teams/team_nope/messaging-settings", map[string]any{"quiet_hours": map[string]any{"enabled": true}}), 404, "not_found")
}

// Settings › Quiet hours in the dashboard, for a head coach (the role
// table's sweep checks who may see and save it): the page shows the
// operator's default until the team chooses; Save sets all three and is in
// the activity log; a start equal to the end is refused on the page and
// changes nothing.
func TestQuietHoursSettingDashboard(t *testing.T) {
	t.Parallel()
	s, h, page := openLinkedSettings(t, "head_coach", "/app/settings/quiet-hours")
	require.Contains(t, page, "the operator's default")
	require.Contains(t, page, `value="21:00"`)
	require.Contains(t, page, `value="08:00"`)
	require.NotContains(t, page, "checked", "off: the suite's QUIET_HOURS_DEFAULT")

	resp, _ := h.post("/app/settings/quiet-hours", url.Values{"csrf": {csrfOf(t, page)}, "enabled": {"1"}, "start": {"20:30"}, "end": {"07:45"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/app/settings/quiet-hours?saved=1", resp.Header.Get("Location"))
	path := "/teams/" + s.teamID + "/messaging-settings"
	require.Equal(t, quietHours{Enabled: true, Start: "20:30", End: "07:45"}, quietOf(t, do(t, env.admin, "GET", path, nil)))
	_, page = h.get("/app/settings/quiet-hours?saved=1")
	require.Contains(t, page, "Quiet hours saved.")
	require.Contains(t, page, "checked")

	resp, refused := h.post("/app/settings/quiet-hours", url.Values{"csrf": {csrfOf(t, page)}, "start": {"06:00"}, "end": {"06:00"}})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, refused, `role="alert"`)
	require.Contains(t, refused, "must differ")
	require.Equal(t, quietHours{Enabled: true, Start: "20:30", End: "07:45"}, quietOf(t, do(t, env.admin, "GET", path, nil)), "nothing changed")

	var entries []struct {
		MemberID string `json:"member_id"`
		Action   string `json:"action"`
	}
	r := do(t, env.admin, "GET", "/teams/"+s.teamID+"/activity", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&entries))
	require.Len(t, entries, 1, "the refusal is not recorded")
	require.Equal(t, "changed quiet hours", entries[0].Action)
	require.Equal(t, s.memberID, entries[0].MemberID)
}
