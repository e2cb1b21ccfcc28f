package e2e

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// Settings, Developers: Create key with a Name shows
// the key once; it opens the API (200) until Revoke (401). Both are in
// the activity log with their actor. A coach has no Settings (403, no
// link).
func TestDashboardKeys(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "team_director")
	r := do(t, env.admin, "PATCH", "/teams/"+s.teamID+"/members/"+s.memberID, map[string]any{"can_send_broadcasts": true})
	require.Equal(t, 200, r.Status, string(r.Body))
	tab := chrome(t).NewTab(t)
	signInBrowser(t, tab, s)
	navigate(t, tab, "/app/settings")
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("key-name"), "Scoreboard")))
	click(t, tab, "Create key")
	key := textOf(t, tab, "#new-key")
	require.NotEmpty(t, key)
	copyShown, err := chromedp.Run(tab, chromedp.Evaluate[bool](`!document.querySelector('[data-copy="new-key"]').hidden`))
	require.NoError(t, err)
	require.True(t, copyShown, "a copy button beside the new key")
	api := harness.NewClient(env.svc.PublicURL+"/api/v1", key)
	got, err := api.Do(context.Background(), "GET", "/team", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, got.Status, string(got.Body))

	navigate(t, tab, "/app/settings")
	page := textOf(t, tab, "main")
	require.NotContains(t, page, key, "shown once")
	row := textOf(t, tab, "li.key")
	require.Contains(t, row, "Scoreboard")
	require.Contains(t, row, key[:12], "listed by its prefix")
	require.Contains(t, row, "by Dana team_director", "and its creator")
	require.Contains(t, row, "last used", "and its last use")
	_, err = chromedp.RunResponse(tab, chromedp.Click(`//li[.//b[normalize-space()="Scoreboard"]]//button[normalize-space()="Revoke"]`))
	require.NoError(t, err)
	got, err = api.Do(context.Background(), "GET", "/team", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, got.Status, "revoked")

	navigate(t, tab, "/app/settings/activity")
	log := textOf(t, tab, "main table")
	require.Contains(t, log, "created key")
	require.Contains(t, log, "revoked key")
	require.Contains(t, log, "Dana team_director", "each entry names its actor")
	var entries []struct {
		MemberID   string `json:"member_id"`
		MemberName string `json:"member_name"`
		Action     string `json:"action"`
	}
	r = do(t, env.admin, "GET", "/teams/"+s.teamID+"/activity", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&entries))
	require.GreaterOrEqual(t, len(entries), 2)
	require.Equal(t, "revoked key", entries[0].Action, "newest first, for the operator too")
	require.Equal(t, "created key", entries[1].Action)
	require.Equal(t, s.memberID, entries[1].MemberID)
	require.Equal(t, "Dana team_director", entries[1].MemberName)
	require.Equal(t, 404, do(t, env.admin, "GET", "/teams/team_nope/activity", nil).Status)

	coach := addStaff(t, s.teamID, s.teamName, "coach", teamNumber())
	h := newHTTPSession(t)
	home := h.signIn(coach)
	require.NotContains(t, home, `href="/app/settings"`)
	resp, _ := h.get("/app/settings")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = h.get("/app/settings/activity")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}

// Templates: a coach saves and deletes standard
// templates but may not make an urgent-alert one (no such option, 403);
// a head coach may, and only she sees it in Compose. A board member has
// no Templates (403, no link).
func TestDashboardTemplates(t *testing.T) {
	t.Parallel()
	head := newStaff(t, "head_coach")
	coach := addStaff(t, head.teamID, head.teamName, "coach", teamNumber())
	r := do(t, env.admin, "PATCH", "/teams/"+head.teamID+"/members/"+coach.memberID, map[string]any{"can_send_broadcasts": true})
	require.Equal(t, 200, r.Status, string(r.Body))
	board := addStaff(t, head.teamID, head.teamName, "board_member", teamNumber())

	c := newHTTPSession(t)
	home := c.signIn(coach)
	require.Contains(t, home, `href="/app/templates"`)
	_, page := c.get("/app/templates")
	require.NotContains(t, page, `value="urgent_alert"`, "no urgent type for a coach")
	csrf := csrfOf(t, page)
	resp, _ := c.post("/app/templates", url.Values{"csrf": {csrf}, "name": {"Rain"}, "body": {"Practice is cancelled: rain."}, "message_type": {"announcement"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	resp, _ = c.post("/app/templates", url.Values{"csrf": {csrf}, "name": {"Storm"}, "body": {"Off the field now."}, "message_type": {"urgent_alert"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, page = c.post("/app/templates", url.Values{"csrf": {csrf}, "name": {"Rain"}, "body": {"Again"}, "message_type": {"standard"}})
	require.Equal(t, http.StatusConflict, resp.StatusCode, "a name in use")
	require.Contains(t, page, `name="body" required>Again</textarea>`, "the form keeps what was typed")

	h := newHTTPSession(t)
	h.signIn(head)
	_, page = h.get("/app/templates")
	require.Contains(t, page, "Practice is cancelled: rain.")
	resp, _ = h.post("/app/templates", url.Values{"csrf": {csrfOf(t, page)}, "name": {"Storm"}, "body": {"Off the field now."}, "message_type": {"urgent_alert"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	_, compose := h.get("/app/compose")
	require.Contains(t, compose, "Storm (urgent alert)", "the head coach's Compose offers it")
	_, compose = c.get("/app/compose")
	require.NotContains(t, compose, "Storm", "a coach's does not")

	r = do(t, head.api, "GET", "/templates", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	var ts []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	require.NoError(t, r.Data(&ts))
	ids := map[string]string{}
	for _, tpl := range ts {
		ids[tpl.Name] = tpl.ID
	}
	require.Contains(t, ids, "Rain", "the API sees the dashboard's template")
	resp, _ = c.post("/app/templates/"+ids["Rain"]+"/delete", url.Values{"csrf": {csrf}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	_, page = c.get("/app/templates")
	require.NotContains(t, page, "Practice is cancelled: rain.", "deleted")

	b := newHTTPSession(t)
	home = b.signIn(board)
	require.NotContains(t, home, `href="/app/templates"`)
	resp, _ = b.get("/app/templates")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}
