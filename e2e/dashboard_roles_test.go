package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/browser"
)

// The role table of DASHBOARD.md, tried against every page and action of
// the dashboard: what a role may not use is absent from its nav and
// answers 403, and changes nothing.

// may is a row of the role table: the roles it allows.
type may map[string]bool

var (
	mayLead      = may{"head_coach": true, "team_director": true}
	mayStaff     = may{"head_coach": true, "team_director": true, "coach": true}
	mayView      = may{"head_coach": true, "team_director": true, "coach": true, "board_member": true}
	dashboardAll = []string{"head_coach", "team_director", "coach", "board_member", "guardian"}
)

// rolePages are the pages with their nav link ("" for none) and who may
// see them.
var rolePages = []struct {
	path, nav string
	who       may
}{
	{"/app/compose", "Compose", mayStaff},
	{"/app/messages", "Messages", mayView},
	{"/app/scheduled", "Scheduled", mayView},
	{"/app/approvals", "Approvals", mayLead},
	{"/app/inbox", "Inbox", mayView},
	{"/app/roster", "Roster", mayView},
	{"/app/roster/groups", "", mayView},
	{"/app/roster/fields", "", mayView},
	{"/app/roster/opt-outs", "", mayView},
	{"/app/roster/import", "", mayStaff},
	{"/app/templates", "Templates", mayStaff},
	{"/app/campaigns", "Campaigns", mayStaff},
	{"/app/analytics", "Analytics", mayView},
	{"/app/settings", "Settings", mayLead},
	{"/app/settings/activity", "", mayLead},
	{"/app/settings/webhooks", "", mayLead},
	{"/app/settings/quiet-hours", "", mayLead},
}

// roleActions are state-changing requests with who may make them.
var roleActions = []struct {
	path string
	form url.Values
	who  may
}{
	{"/app/compose", url.Values{"text": {"Role sweep"}, "audience": {"all"}, "action": {"send"}}, mayStaff},
	{"/app/approvals/msg_none/approve", nil, mayLead},
	{"/app/inbox/read", nil, mayStaff},
	{"/app/roster", url.Values{"name": {"Role Sweep"}, "phone": {"+12025550100"}, "role": {"athlete"}}, mayStaff},
	{"/app/roster/groups", url.Values{"name": {"Role sweep group"}}, mayStaff},
	{"/app/roster/fields", url.Values{"label": {"Role sweep"}, "key": {"role_sweep"}}, mayStaff},
	{"/app/templates", url.Values{"name": {"Role sweep"}, "text": {"Hello"}}, mayStaff},
	{"/app/campaigns", url.Values{"name": {"Role sweep"}, "audience": {"all"}}, mayStaff},
	{"/app/settings/keys", url.Values{"name": {"Role sweep"}}, mayLead},
	{"/app/settings/staff", url.Values{"name": {"Role Sweep"}, "phone": {"+12025550101"}, "role": {"coach"}}, mayLead},
	{"/app/settings/webhooks", url.Values{"url": {"https://example.com/hook"}, "events": {"member.joined"}}, mayLead},
	{"/app/settings/quiet-hours", url.Values{"enabled": {"1"}, "start": {"22:00"}, "end": {"07:00"}}, mayLead},
}

func TestDashboardRoleTable(t *testing.T) {
	t.Parallel()
	lead := newStaff(t, "head_coach")
	for _, role := range dashboardAll {
		t.Run(role, func(t *testing.T) {
			s := lead
			if role != "head_coach" {
				s = addStaff(t, lead.teamID, lead.teamName, role, teamNumber())
			}
			h := newHTTPSession(t)
			home := h.signIn(s)
			nav := "" // a login without a staff role has no nav
			if i, j := strings.Index(home, "<nav"), strings.Index(home, "</nav>"); i >= 0 && j > i {
				nav = home[i:j]
			}
			for _, p := range rolePages {
				resp, _ := h.get(p.path)
				want := http.StatusForbidden
				if p.who[role] {
					want = http.StatusOK
				}
				require.Equal(t, want, resp.StatusCode, "%s GET %s", role, p.path)
				if p.nav != "" {
					require.Equal(t, p.who[role], strings.Contains(nav, `href="`+p.path+`"`), "%s: nav link %s", role, p.nav)
				}
			}
			csrf := csrfOf(t, home)
			for _, a := range roleActions {
				if a.who[role] {
					continue // allowed: each flow's own test checks what it does
				}
				form := url.Values{"csrf": {csrf}}
				for k, v := range a.form {
					form[k] = v
				}
				resp, _ := h.post(a.path, form)
				require.Equal(t, http.StatusForbidden, resp.StatusCode, "%s POST %s", role, a.path)
			}
		})
	}
	// Nothing a refused action asked for was written.
	require.Zero(t, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_members WHERE team_id = $1 AND name = 'Role Sweep'`, lead.teamID))
	require.Zero(t, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_groups WHERE team_id = $1`, lead.teamID))
	require.Zero(t, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_custom_fields WHERE team_id = $1`, lead.teamID))
}

// Every page of the dashboard, with data on it, at a phone's 390 px: no
// horizontal scroll, and every form control has a visible label (a
// <label for> or an enclosing <label>), checked by a script in the page.
func TestDashboardEveryPageFitsAndIsLabelled(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "head_coach")
	fams := addFamilies(t, s.teamID)
	pending := rosterAdd(t, s.teamID, map[string]any{"name": "Priya Pending with a rather long family name", "phone": teamNumber(), "role": "athlete", "status": "pending"})
	r := do(t, s.api, "POST", "/messages", map[string]any{"text": "Practice moved to 6pm " + strings.Repeat("see the field map ", 8), "audience": "families"})
	require.Equal(t, 201, r.Status, string(r.Body))
	var msg struct {
		ID string `json:"id"`
	}
	require.NoError(t, r.Data(&msg))
	inject(t, env.admin, fams[0].phone, s.number, "Is practice still on? "+strings.Repeat("thanks ", 10))
	tab := chrome(t).NewTab(t, browser.Viewport(390, 844))
	signInBrowser(t, tab, s)
	for _, p := range []string{"/app/roster/groups", "/app/roster/fields"} { // a group and a field to show
		navigate(t, tab, p)
	}
	navigate(t, tab, "/app/roster/groups")
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("group-name"), "U14 Red Dragons Travel")))
	click(t, tab, "Create group")
	navigate(t, tab, "/app/roster/fields")
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("f-label"), "Jersey"), chromedp.SendKeys(chromedp.ID("f-key"), "jersey")))
	click(t, tab, "Add field")

	pages := []string{"/app/", "/app/compose", "/app/messages", "/app/messages/" + msg.ID, "/app/scheduled", "/app/approvals", "/app/inbox",
		"/app/roster", "/app/roster/" + pending, "/app/roster/groups", "/app/roster/fields", "/app/roster/opt-outs", "/app/roster/import",
		"/app/templates", "/app/campaigns", "/app/analytics", "/app/settings", "/app/settings/activity", "/app/settings/webhooks",
		"/app/settings/quiet-hours"}
	for _, p := range pages {
		navigate(t, tab, p)
		wide, err := browser.HasHorizontalScroll(tab)
		require.NoError(t, err)
		require.False(t, wide, "%s scrolls sideways at 390 px", p)
		unlabelled, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("input,select,textarea"))
  .filter(e => e.type !== "hidden")
  .filter(e => !(e.id && document.querySelector('label[for="' + e.id + '"]')) && !e.closest("label"))
  .map(e => e.name || e.outerHTML)`))
		require.NoError(t, err)
		require.Empty(t, unlabelled, "%s: form controls without a label", p)
		h1s, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("h1").length`))
		require.NoError(t, err)
		require.Equal(t, 1, h1s, "%s has one h1", p)
	}
}
