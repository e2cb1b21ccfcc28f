package e2e

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// The dashboard's roster pages in a real browser.

var importPath = regexp.MustCompile(`^/app/roster/import/(imp_[A-Za-z0-9]+)$`)

// A 5,000-row CSV with 100 bad rows, uploaded with the CSV file field:
// the browser lands on the import's page, which shows progress until every
// row has its outcome, then the totals and each rejected row by its CSV
// line (the header is line 1). The rejected rows download as CSV holding
// the rows as written, their line and the reason. The members are on the
// roster through the same use case as the admin import (consent import).
func TestDashboardRosterImport(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "coach")
	var b strings.Builder
	w := csv.NewWriter(&b)
	require.NoError(t, w.Write([]string{"name", "phone", "role"}))
	var badLines []int
	for i := range 5000 {
		phone := fmt.Sprintf("+1202556%04d", i)
		if i%50 == 49 {
			phone = "not a phone"
			badLines = append(badLines, i+2)
		}
		require.NoError(t, w.Write([]string{fmt.Sprintf("Player %04d", i), phone, "athlete"}))
	}
	w.Flush()
	file := filepath.Join(t.TempDir(), "spring roster.csv")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o600))

	br := chrome(t)
	inBrowser, err := br.Upload(t.Context(), file)
	require.NoError(t, err)
	tab := br.NewTab(t)
	signInBrowser(t, tab, s)
	navigate(t, tab, "/app/roster")
	_, err = chromedp.RunResponse(tab, chromedp.Click(`//a[normalize-space()="Import"]`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(tab, chromedp.SetUploadFiles(`//input[@id=//label[normalize-space()="CSV file"]/@for]`, []string{inBrowser})))
	click(t, tab, "Import")
	m := importPath.FindStringSubmatch(location(t, tab))
	require.NotNil(t, m, "after Import the browser lands on the import's page, not %s", location(t, tab))
	// The page follows the job: a progress bar (or, if the job was quicker
	// than the page, the outcome) in the block its script refreshes.
	require.NotEmpty(t, textOf(t, tab, "[data-progress]"))
	waitFor(t, 60*time.Second, func() bool {
		got, err := chromedp.Run(tab, chromedp.Evaluate[string](`(document.getElementById("import-result")||{}).textContent||""`))
		require.NoError(t, err)
		return got != ""
	})
	require.Equal(t, "4900 added, 100 rejected.", textOf(t, tab, "#import-result"))
	rejected := textOf(t, tab, "#rejected tbody")
	for _, l := range badLines[:3] {
		require.Regexp(t, fmt.Sprintf(`(?m)^\s*%d\b`, l), rejected, "rejected rows are named by their CSV line")
	}

	href, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('a[href$="rejected.csv"]').href`))
	require.NoError(t, err)
	body, err := chromedp.Run(tab, chromedp.Evaluate[string](`fetch(`+strconv.Quote(href)+`).then(r => r.text())`,
		chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 101, "the header and every rejected row")
	require.Equal(t, []string{"name", "phone", "role", "line", "error"}, rows[0])
	for i, r := range rows[1:] {
		require.Equal(t, strconv.Itoa(badLines[i]), r[3])
		require.Equal(t, "not a phone", r[1], "the row as written, to fix and import again")
		require.NotEmpty(t, r[4])
	}

	require.Equal(t, 4900, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_members WHERE team_id = $1 AND name LIKE 'Player %'`, s.teamID))
	require.Equal(t, 4900, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_members WHERE team_id = $1 AND consent_source = 'import'`, s.teamID),
		"the admin import's use case: consent source import")
	resp, err := chromedp.RunResponse(tab, chromedp.Navigate(env.svc.PublicURL+"/app/settings/activity"))
	require.NoError(t, err)
	require.Equal(t, http.StatusForbidden, int(resp.Status), "a coach has no activity log")
	r := do(t, env.admin, "GET", "/teams/"+s.teamID+"/activity?action=imported+members", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), `"member_name":"Dana coach"`)
}

// The roster's pages in a browser: Add member with a group, Search by
// name and by the phone's digits, filter by group and role, Approve a
// pending member in their row, Block, clear the undeliverable mark, and
// Make public on a private custom field. Each is in the activity log with
// its actor.
func TestDashboardRosterPages(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "head_coach")
	tab := chrome(t).NewTab(t)
	signInBrowser(t, tab, s)

	navigate(t, tab, "/app/roster/groups")
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("group-name"), "U12 Blue")))
	click(t, tab, "Create group")
	require.Contains(t, textOf(t, tab, "main ul"), "U12 Blue")

	navigate(t, tab, "/app/roster")
	phone := teamNumber()
	require.NoError(t, chromedp.Do(tab,
		chromedp.SendKeys(chromedp.ID("m-name"), "Maya Lindqvist"),
		chromedp.SendKeys(chromedp.ID("m-phone"), harness.National(phone)),
		chromedp.SetValue(chromedp.ID("m-role"), "guardian"),
		chromedp.Click(`//label[normalize-space()="U12 Blue"]`)))
	click(t, tab, "Add member")
	memberID := strings.TrimPrefix(location(t, tab), "/app/roster/")
	require.True(t, strings.HasPrefix(memberID, "mem_"), "Add member lands on the member's page, not %s", location(t, tab))
	require.Equal(t, "Maya Lindqvist", textOf(t, tab, "h1"))
	rosterAdd(t, s.teamID, map[string]any{"name": "Oskar Berg", "phone": teamNumber(), "role": "athlete"})

	for _, q := range []string{"lindq", phone[len(phone)-7:]} {
		navigate(t, tab, "/app/roster?q="+q)
		list := textOf(t, tab, "main table tbody")
		require.Contains(t, list, "Maya Lindqvist", "search %q", q)
		require.NotContains(t, list, "Oskar Berg", "search %q", q)
	}
	navigate(t, tab, "/app/roster")
	require.NoError(t, chromedp.Do(tab, chromedp.SetValue(chromedp.ID("r-role"), "athlete")))
	click(t, tab, "Filter")
	list := textOf(t, tab, "main table tbody")
	require.Contains(t, list, "Oskar Berg")
	require.NotContains(t, list, "Maya Lindqvist", "filtered by role")
	groupPage := textOf(t, tab, "#r-group")
	require.Contains(t, groupPage, "U12 Blue")
	navigate(t, tab, "/app/roster")
	groupID, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector("#r-group option:nth-child(2)").value`))
	require.NoError(t, err)
	navigate(t, tab, "/app/roster?group="+groupID)
	list = textOf(t, tab, "main table tbody")
	require.Contains(t, list, "Maya Lindqvist")
	require.NotContains(t, list, "Oskar Berg", "filtered by group")

	// Approve a pending member inside their row.
	pending := rosterAdd(t, s.teamID, map[string]any{"name": "Priya Pending", "phone": teamNumber(), "role": "athlete", "status": "pending"})
	navigate(t, tab, "/app/roster?status=pending")
	_, err = chromedp.RunResponse(tab, chromedp.Click(`//tr[.//a[normalize-space()="Priya Pending"]]//button[normalize-space()="Approve"]`))
	require.NoError(t, err)
	r := do(t, s.api, "GET", "/members/"+pending, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), `"status":"active"`)

	// The member's page lists their latest texts.
	r = do(t, s.api, "POST", "/messages", map[string]any{"text": "Practice moved to 6pm", "audience": "families"})
	require.Equal(t, 201, r.Status, string(r.Body))
	waitFor(t, 20*time.Second, func() bool {
		navigate(t, tab, "/app/roster/"+memberID)
		return strings.Contains(textOf(t, tab, "main"), "Practice moved to 6pm")
	})
	require.Contains(t, textOf(t, tab, "#member-texts"), "Practice moved to 6pm")

	// Block, and clear the undeliverable mark, on the member's page.
	conn, err := pgx.Connect(t.Context(), env.pg.URL)
	require.NoError(t, err)
	defer conn.Close(t.Context())
	execSQL(t, conn, `INSERT INTO roster_undeliverable (team_id, phone, failures, last_code, last_failed_at, since) VALUES ($1, $2, 3, '30006', now(), now())`,
		s.teamID, phone)
	navigate(t, tab, "/app/roster/"+memberID)
	require.Contains(t, textOf(t, tab, "#undeliverable"), "undeliverable since")
	click(t, tab, "Clear undeliverable mark")
	require.Equal(t, "yes", textOf(t, tab, "#undeliverable"))
	click(t, tab, "Block")
	require.Equal(t, "active, blocked", textOf(t, tab, "#member-status"))
	r = do(t, s.api, "GET", "/members/"+memberID, nil)
	require.Contains(t, string(r.Body), `"is_blocked":true`)
	require.Contains(t, string(r.Body), `"undeliverable_since":null`)

	// A private custom field made public (only the dashboard may).
	navigate(t, tab, "/app/roster/fields")
	require.NoError(t, chromedp.Do(tab,
		chromedp.SendKeys(chromedp.ID("f-label"), "Allergies"),
		chromedp.SendKeys(chromedp.ID("f-key"), "allergies"),
		chromedp.Click(chromedp.ID("f-private"))))
	click(t, tab, "Add field")
	require.Contains(t, textOf(t, tab, "li.field"), "private")
	_, err = chromedp.RunResponse(tab, chromedp.Click(`//li[.//b[normalize-space()="Allergies"]]//button[normalize-space()="Make public"]`))
	require.NoError(t, err)
	require.Contains(t, textOf(t, tab, "li.field"), "public")
	r = do(t, s.api, "GET", "/custom-fields", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), `"private":false`)

	navigate(t, tab, "/app/settings/activity")
	require.NoError(t, chromedp.Do(tab, chromedp.SetValue(chromedp.ID("act-what"), "made field public")))
	click(t, tab, "Filter")
	filtered := textOf(t, tab, "main table tbody")
	require.Contains(t, filtered, "made field public")
	require.NotContains(t, filtered, "created group", "filtered by action")
	export, err := chromedp.Run(tab, chromedp.Evaluate[string](`fetch(document.querySelector('a[href^="/app/settings/activity.csv"]').href).then(r => r.text())`,
		chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	rows, err := csv.NewReader(strings.NewReader(export)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"time", "person", "member_id", "action", "object", "client_ip"}, rows[0])
	require.Len(t, rows, 2, "the export holds what the filter shows")
	require.Equal(t, "Dana head_coach", rows[1][1])
	require.Equal(t, "made field public", rows[1][3])
	navigate(t, tab, "/app/settings/activity")
	log := textOf(t, tab, "main table")
	for _, a := range []string{"created group", "added member", "approved member", "cleared undeliverable mark", "blocked member", "added field", "made field public"} {
		require.Contains(t, log, a)
	}
	require.Contains(t, log, "Dana head_coach")
}

// Roles on the roster (DASHBOARD.md): a coach changes the roster but not
// the staff (no staff role to give, 403 when forced); a board member sees
// the roster but changes nothing (no Add member, 403). Another team's
// member answers 404.
func TestDashboardRosterRoles(t *testing.T) {
	t.Parallel()
	lead := newStaff(t, "team_director")
	coach := addStaff(t, lead.teamID, lead.teamName, "coach", teamNumber())
	board := addStaff(t, lead.teamID, lead.teamName, "board_member", teamNumber())

	c := newHTTPSession(t)
	home := c.signIn(coach)
	require.Contains(t, home, `href="/app/roster"`)
	_, page := c.get("/app/roster")
	require.Contains(t, page, "Add member")
	require.NotContains(t, page, `value="head_coach"`+">Head coach</option></select>", "no staff role to give")
	resp, _ := c.post("/app/roster", url.Values{"csrf": {csrfOf(t, page)}, "name": {"Sneaky Coach"}, "phone": {teamNumber()}, "role": {"head_coach"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = c.post("/app/roster/"+board.memberID+"/block", url.Values{"csrf": {csrfOf(t, page)}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "a coach does not block staff")
	resp, _ = c.post("/app/roster", url.Values{"csrf": {csrfOf(t, page)}, "name": {"Noor Haddad"}, "phone": {teamNumber()}, "role": {"athlete"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)

	b := newHTTPSession(t)
	home = b.signIn(board)
	require.Contains(t, home, `href="/app/roster"`)
	resp, page = b.get("/app/roster")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, page, "Noor Haddad")
	require.NotContains(t, page, "Add member")
	resp, _ = b.post("/app/roster", url.Values{"csrf": {csrfOf(t, page)}, "name": {"Board Add"}, "phone": {teamNumber()}, "role": {"athlete"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = b.get("/app/roster/import")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	stranger := newStaff(t, "head_coach")
	resp, _ = c.get("/app/roster/" + stranger.memberID)
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "another team's member")
}

// Invite a coach in Settings: the invitee gets a text with the sign-in
// link, signs in with the code from the outbox, and may use the roster
// but not Settings. The page warns, before a change, what a lead's demotion
// does to their keys and webhooks.
func TestDashboardInviteStaff(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "team_director")
	tab := chrome(t).NewTab(t)
	signInBrowser(t, tab, s)
	navigate(t, tab, "/app/settings")
	require.Contains(t, textOf(t, tab, "#staff"), "revoked for good")
	phone := teamNumber()
	require.NoError(t, chromedp.Do(tab,
		chromedp.SendKeys(chromedp.ID("i-name"), "Jordan Vega"),
		chromedp.SendKeys(chromedp.ID("i-phone"), harness.National(phone)),
		chromedp.SetValue(chromedp.ID("i-role"), "coach")))
	click(t, tab, "Invite")
	require.Contains(t, textOf(t, tab, "#staff"), "Jordan Vega")
	var invite string
	waitFor(t, 20*time.Second, func() bool {
		for _, b := range bodiesTo(t, s.teamID, phone) {
			if strings.Contains(b, "/app/sign-in") {
				invite = b
			}
		}
		return invite != ""
	})
	require.Regexp(t, `https?://\S+/app/sign-in$`, invite, "the link is PUBLIC_BASE_URL's sign-in page")

	var m []struct {
		ID string `json:"id"`
	}
	r := do(t, s.api, "GET", "/members?phone="+url.QueryEscape(phone), nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&m))
	require.Len(t, m, 1)
	coachTab := chrome(t).NewTab(t)
	signInBrowser(t, coachTab, staff{teamID: s.teamID, teamName: s.teamName, memberID: m[0].ID, phone: phone})
	nav := textOf(t, coachTab, "nav")
	require.Contains(t, nav, "Roster")
	require.NotContains(t, nav, "Settings")

	navigate(t, tab, "/app/settings/activity")
	require.Contains(t, textOf(t, tab, "main table"), "invited staff")
}
