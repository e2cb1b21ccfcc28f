package e2e

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The dashboard's Campaigns and Analytics pages (issue 27, items 6 and 7).

// act runs chromedp actions in tab, at most 20 seconds.
func act(t *testing.T, tab context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, actions...), "on %s", location(t, tab))
}

// press clicks the element xpath names and waits, at most 20 seconds, for
// the page it loads.
func press(t *testing.T, tab context.Context, xpath string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	_, err := chromedp.RunResponse(ctx, chromedp.Click(xpath))
	require.NoError(t, err, "%s on %s", xpath, location(t, tab))
}

var campaignPath = regexp.MustCompile(`^/app/campaigns/(cmp_[A-Za-z0-9]+)$`)

// A head coach creates, on the Campaigns page, a campaign whose first step
// is an urgent alert a minute later; pauses it there; the API's resume is
// refused (urgent steps are the dashboard's), the page's Resume works and
// the urgent step then reaches the families (the simulator's outbox). A
// coach has no Urgent checkbox and is refused an urgent step (403) and the
// urgent campaign's actions, but creates a plain campaign. The activity
// log names each action with its actor; a board member has no Campaigns.
func TestDashboardCampaignUrgentResume(t *testing.T) {
	t.Parallel()
	head := newStaff(t, "head_coach")
	fams := addFamilies(t, head.teamID)
	coach := addStaff(t, head.teamID, head.teamName, "coach", teamNumber())
	r := do(t, env.admin, "PATCH", "/teams/"+head.teamID+"/members/"+coach.memberID, map[string]any{"can_send_broadcasts": true})
	require.Equal(t, 200, r.Status, string(r.Body))
	board := addStaff(t, head.teamID, head.teamName, "board_member", teamNumber())

	tab := chrome(t).NewTab(t)
	signInBrowser(t, tab, head)
	navigate(t, tab, "/app/campaigns")
	require.Equal(t, "Campaigns", textOf(t, tab, "h1"))
	act(t, tab,
		chromedp.SendKeys(chromedp.ID("name"), "Storm plan"),
		chromedp.SetValue(chromedp.ID("audience"), "families"),
		chromedp.SendKeys(chromedp.ID("step1-delay"), "1"),
		chromedp.SendKeys(chromedp.ID("step1-text"), "Lightning: clear the field"),
		chromedp.Click(chromedp.ID("step1-urgent")),
		chromedp.SendKeys(chromedp.ID("step2-delay"), "600"),
		chromedp.SendKeys(chromedp.ID("step2-text"), "All clear, practice is on"))
	click(t, tab, "Create campaign")
	m := campaignPath.FindStringSubmatch(location(t, tab))
	require.NotNil(t, m, "after Create the browser lands on the campaign's page, not %s", location(t, tab))
	id := m[1]
	require.Equal(t, "scheduled", textOf(t, tab, "#campaign-status"))
	camp := getCampaign(t, head.api, id)
	require.True(t, camp.HasUrgentStep)
	require.Len(t, camp.Steps, 2, "the three empty rows are ignored")
	require.True(t, camp.Steps[0].Urgent)
	require.False(t, camp.Steps[1].Urgent)
	require.Equal(t, int64(60), *camp.Steps[0].DelaySeconds)

	click(t, tab, "Pause")
	require.Equal(t, "paused", textOf(t, tab, "#campaign-status"))
	requireCode(t, campaignAction(t, head.api, id, "resume"), 403, "forbidden")

	// A coach: no Urgent checkbox, an urgent step refused, the urgent
	// campaign's actions refused; a plain campaign is fine.
	c := newHTTPSession(t)
	home := c.signIn(coach)
	require.Contains(t, home, `href="/app/campaigns"`)
	_, page := c.get("/app/campaigns")
	require.NotContains(t, page, "step1_urgent")
	require.Contains(t, page, "Storm plan")
	csrf := csrfOf(t, page)
	form := url.Values{"csrf": {csrf}, "name": {"Sneaky"}, "audience": {"families"}, "step1_delay": {"5"}, "step1_text": {"Now"}, "step1_urgent": {"1"}}
	resp, page := c.post("/app/campaigns", form)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, page, "urgent")
	require.Contains(t, page, `value="Sneaky"`, "the form keeps what was typed")
	resp, _ = c.post("/app/campaigns/"+id+"/resume", url.Values{"csrf": {csrf}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Equal(t, "paused", getCampaign(t, head.api, id).Status)
	delete(form, "step1_urgent")
	form.Set("name", "Reminders")
	resp, _ = c.post("/app/campaigns", form)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)

	// The head coach resumes it from the dashboard: the urgent step goes out.
	click(t, tab, "Resume")
	require.Equal(t, "scheduled", textOf(t, tab, "#campaign-status"))
	camp = getCampaign(t, head.api, id)
	require.Equal(t, "scheduled", camp.Status)
	require.Equal(t, []string{"pending", "pending"}, camp.stepStatuses(), "resumed before the urgent step's time")
	waitFor(t, 3*time.Minute, func() bool {
		return len(bodiesTo(t, head.teamID, fams[0].phone)) > 0 && getCampaign(t, head.api, id).Steps[0].Status == "sent"
	})
	got := bodiesTo(t, head.teamID, fams[0].phone)
	require.Len(t, got, 1)
	require.Contains(t, got[0], "Lightning: clear the field")
	navigate(t, tab, "/app/campaigns/"+id)
	require.Contains(t, textOf(t, tab, "#steps"), "sent")

	navigate(t, tab, "/app/settings/activity")
	log := textOf(t, tab, "main table")
	for _, a := range []string{"created campaign", "paused campaign", "resumed campaign"} {
		require.Contains(t, log, a)
	}
	require.Regexp(t, `Dana head_coach[^\n]*resumed campaign|resumed campaign[^\n]*Dana head_coach`, log, "the entry names its actor")
	require.Contains(t, log, "Dana coach", "the coach's campaign too")

	b := newHTTPSession(t)
	home = b.signIn(board)
	require.NotContains(t, home, `href="/app/campaigns"`)
	resp, _ = b.get("/app/campaigns")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}
