package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// tzMember is a member's id and own time zone as the APIs show them.
type tzMember struct {
	ID       string  `json:"id"`
	TimeZone *string `json:"time_zone"`
}

// TestMemberTimeZone: a member's own time zone (for quiet hours) is
// an optional addition to v1: set by POST /members, read back, left alone by
// a PATCH without it, cleared by null or "", refused when unknown (400
// invalid_request, nothing changed), set and cleared by the admin API, and
// imported from a CSV time_zone column; every member view shows it, null
// when unset.
func TestMemberTimeZone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f, api := newTeam(t, harness.TeamOptions{})
	tz := func(r *harness.Response, want int) tzMember {
		t.Helper()
		require.Equal(t, want, r.Status, string(r.Body))
		var m tzMember
		require.NoError(t, r.Data(&m))
		var raw map[string]json.RawMessage
		require.NoError(t, r.Data(&raw))
		require.Contains(t, raw, "time_zone", "every member view has time_zone, null when unset")
		return m
	}
	zone := func(m tzMember) string {
		if m.TimeZone == nil {
			return "<null>"
		}
		return *m.TimeZone
	}

	// Public API.
	ann := tz(do(t, api, "POST", "/members", map[string]any{"name": "Ann Zone", "phone": "2025550710", "time_zone": "America/Chicago"}), 201)
	require.Equal(t, "America/Chicago", zone(ann))
	require.Equal(t, "America/Chicago", zone(tz(do(t, api, "GET", "/members/"+ann.ID, nil), 200)))
	bob := tz(do(t, api, "POST", "/members", map[string]any{"name": "Bob Zone", "phone": "2025550711"}), 201)
	require.Equal(t, "<null>", zone(bob), "unset when omitted")
	require.Equal(t, "<null>", zone(tz(do(t, api, "POST", "/members", map[string]any{"name": "Cy Zone", "phone": "2025550712", "time_zone": nil}), 201)))

	require.Equal(t, "America/Chicago", zone(tz(do(t, api, "PATCH", "/members/"+ann.ID, map[string]any{"name": "Ann Zoned"}), 200)), "left alone when omitted")
	require.Equal(t, "<null>", zone(tz(do(t, api, "PATCH", "/members/"+ann.ID, map[string]any{"time_zone": nil}), 200)), "null clears it")
	require.Equal(t, "<null>", zone(tz(do(t, api, "GET", "/members/"+ann.ID, nil), 200)))
	require.Equal(t, "Pacific/Honolulu", zone(tz(do(t, api, "PATCH", "/members/"+ann.ID, map[string]any{"time_zone": "Pacific/Honolulu"}), 200)))
	require.Equal(t, "<null>", zone(tz(do(t, api, "PATCH", "/members/"+ann.ID, map[string]any{"time_zone": ""}), 200)), `"" clears it`)
	require.Equal(t, "America/Denver", zone(tz(do(t, api, "PATCH", "/members/"+ann.ID, map[string]any{"time_zone": "America/Denver"}), 200)))

	for _, bad := range []string{"Mars/Olympus", "Local", "EST"} {
		requireCode(t, do(t, api, "PATCH", "/members/"+ann.ID, map[string]any{"time_zone": bad}), 400, "invalid_request")
		requireCode(t, do(t, api, "POST", "/members", map[string]any{"name": "Dee Zone", "phone": "2025550713", "time_zone": bad}), 400, "invalid_request")
	}
	requireCode(t, do(t, api, "PATCH", "/members/"+ann.ID, map[string]any{"time_zone": 5}), 400, "invalid_request")
	require.Equal(t, "America/Denver", zone(tz(do(t, api, "GET", "/members/"+ann.ID, nil), 200)), "a refused change changes nothing")
	require.Zero(t, countRows(t, `SELECT count(*) FROM roster_members WHERE team_id = $1 AND name = 'Dee Zone'`, f.TeamID))

	r := do(t, api, "GET", "/members?phone=2025550710", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	var page struct {
		Data []tzMember `json:"data"`
	}
	require.NoError(t, r.JSON(&page))
	require.Len(t, page.Data, 1)
	require.Equal(t, "America/Denver", zone(page.Data[0]), "lists show it")

	// Admin API.
	adm := func(method, path string, body any, want int) tzMember {
		t.Helper()
		r, err := env.admin.Do(ctx, method, "/teams/"+f.TeamID+path, body)
		require.NoError(t, err)
		return tz(r, want)
	}
	coach := adm("POST", "/members", map[string]any{"name": "Coach Zone", "phone": "2025550714", "role": "coach", "time_zone": "America/New_York"}, 201)
	require.Equal(t, "America/New_York", zone(coach))
	require.Equal(t, "America/New_York", zone(adm("PATCH", "/members/"+coach.ID, map[string]any{"is_blocked": false}, 200)), "left alone when omitted")
	require.Equal(t, "UTC", zone(adm("PATCH", "/members/"+coach.ID, map[string]any{"time_zone": "UTC"}, 200)))
	require.Equal(t, "<null>", zone(adm("PATCH", "/members/"+coach.ID, map[string]any{"time_zone": nil}, 200)))
	r, err := env.admin.Do(ctx, "PATCH", "/teams/"+f.TeamID+"/members/"+coach.ID, map[string]any{"time_zone": "Mars/Olympus"})
	require.NoError(t, err)
	requireCode(t, r, 400, "invalid_request")
	require.Equal(t, "<null>", zone(adm("POST", "/members", map[string]any{"name": "Plain Zone", "phone": "2025550715"}, 201)))

	// CSV import.
	csv := "name,phone,Time_Zone\n" +
		"Imp One,2025550720,America/Los_Angeles\n" + // 2 created, set
		"Imp Two,2025550721,\n" + // 3 created, unset
		"Imp Three,2025550722,Mars/Olympus\n" + // 4 invalid_request
		"Imp Four,2025550723, America/Los_Angeles \n" // 5 created, set (trimmed)
	r = importCSV(t, f.TeamID, csv)
	require.Equal(t, 200, r.Status, string(r.Body))
	var res harness.ImportResult
	require.NoError(t, r.Data(&res))
	require.Equal(t, 3, res.Created, string(r.Body))
	require.Equal(t, 1, res.Failed, string(r.Body))
	require.Len(t, res.Rows, 4)
	require.Equal(t, "failed", res.Rows[2].Status)
	require.Equal(t, "invalid_request", res.Rows[2].Error.Code)
	require.Contains(t, res.Rows[2].Error.Message, "time_zone")
	for i, want := range map[int]string{0: "America/Los_Angeles", 1: "<null>", 3: "America/Los_Angeles"} {
		require.Equal(t, "created", res.Rows[i].Status)
		require.Equal(t, want, zone(tz(do(t, api, "GET", "/members/"+res.Rows[i].MemberID, nil), 200)), "line %d", res.Rows[i].Line)
	}
	require.Equal(t, 1, countRows(t, `SELECT count(*) FROM roster_members WHERE team_id = $1 AND phone = '+12025550720' AND time_zone = 'America/Los_Angeles'`, f.TeamID))
}

// TestMemberTimeZoneDashboard: the member page shows the member's own time
// zone and its Change form sets it (Time zone), clears it (empty) and
// refuses an unknown one on the page, changing nothing.
func TestMemberTimeZoneDashboard(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "head_coach")
	id := rosterAdd(t, s.teamID, map[string]any{"name": "Tia Zone", "phone": teamNumber(), "role": "athlete"})
	tab := chrome(t).NewTab(t)
	signInBrowser(t, tab, s)
	navigate(t, tab, "/app/roster/"+id)
	require.Equal(t, "from the phone's area code", textOf(t, tab, "#member-tz"))
	apiZone := func() string {
		t.Helper()
		var m tzMember
		require.NoError(t, do(t, s.api, "GET", "/members/"+id, nil).Data(&m))
		if m.TimeZone == nil {
			return "<null>"
		}
		return *m.TimeZone
	}

	set := func(v string) {
		t.Helper()
		// The input the "Time zone" label names (SetValue refuses "").
		_, err := chromedp.Run(tab, chromedp.Evaluate[bool](fmt.Sprintf(
			`(() => { const i = document.getElementById([...document.querySelectorAll("label")].find(l => l.textContent.trim() === "Time zone").htmlFor); i.value = %q; return true })()`, v)))
		require.NoError(t, err)
		click(t, tab, "Save changes")
	}
	set("America/Chicago")
	require.Equal(t, "America/Chicago", textOf(t, tab, "#member-tz"))
	require.Equal(t, "America/Chicago", apiZone())

	set("Mars/Olympus")
	require.Contains(t, textOf(t, tab, "p.error"), "time_zone")
	require.Equal(t, "America/Chicago", apiZone(), "a refused change changes nothing")

	navigate(t, tab, "/app/roster/"+id)
	set("")
	require.Equal(t, "from the phone's area code", textOf(t, tab, "#member-tz"))
	require.Equal(t, "<null>", apiZone())
}
