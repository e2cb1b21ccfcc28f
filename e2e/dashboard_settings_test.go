package e2e

import (
	"context"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// Settings, Developers (issue 27, item 4): Create key with a Name shows
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
	api := harness.NewClient(env.svc.PublicURL+"/api/v1", key)
	got, err := api.Do(context.Background(), "GET", "/team", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, got.Status, string(got.Body))

	navigate(t, tab, "/app/settings")
	page := textOf(t, tab, "main")
	require.NotContains(t, page, key, "shown once")
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
