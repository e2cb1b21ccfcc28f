package e2e

import (
	"context"
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
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/browser"
)

// The dashboard's Campaigns and Analytics pages.

// act runs chromedp actions in tab, at most 20 seconds.
func act(t *testing.T, tab context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, actions...), "on %s", location(t, tab))
}

// get runs one chromedp action in tab that reads something, at most 20
// seconds, and returns what it read.
func get[T any](t *testing.T, tab context.Context, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	require.NoError(t, err, "on %s", location(t, tab))
	return v
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

// Analytics: after some sends, a delivery report and a text received, the
// page's table of days (the chart's figures) sums to GET /api/v1/analytics
// for the same range, and its six totals are the API's. The range ends
// today in the team's time zone unless another is picked; a bad range is a
// 400 on the page. At 390 px neither Analytics nor Campaigns scrolls sideways.
func TestDashboardAnalytics(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "head_coach")
	fams := addFamilies(t, s.teamID)
	for _, text := range []string{"Practice at 5", "Bring water"} {
		r := do(t, s.api, "POST", "/messages", map[string]any{"text": text, "audience": "families"})
		require.Equal(t, 201, r.Status, string(r.Body))
	}
	inject(t, env.admin, fams[0].phone, s.number, "See you there")
	waitFor(t, 60*time.Second, func() bool {
		return countRowsIn(t, env.pg.URL, `SELECT count(*) FROM messaging_deliveries WHERE team_id = $1
AND status IN ('delivered', 'failed', 'delivery_unconfirmed')`, s.teamID) == 6 &&
			countRowsIn(t, env.pg.URL, `SELECT count(*) FROM messaging_inbound WHERE team_id = $1`, s.teamID) == 1
	})
	var team struct {
		TimeZone string `json:"time_zone"`
	}
	r := do(t, env.admin, "GET", "/teams/"+s.teamID, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&team))
	loc, err := time.LoadLocation(team.TimeZone)
	require.NoError(t, err)

	tab := chrome(t).NewTab(t, browser.Viewport(390, 844))
	signInBrowser(t, tab, s)
	navigate(t, tab, "/app/analytics")
	require.Equal(t, "Analytics", textOf(t, tab, "h1"))
	from, to := get(t, tab, chromedp.Value(chromedp.ID("from"))), get(t, tab, chromedp.Value(chromedp.ID("to")))
	require.Equal(t, time.Now().In(loc).Format(time.DateOnly), to, "the default range ends today, in the team's zone")
	end, err := time.Parse(time.DateOnly, to)
	require.NoError(t, err)
	require.Equal(t, end.AddDate(0, 0, -29).Format(time.DateOnly), from, "30 days")

	// The sends' UTC day, and the days around it.
	today := time.Now().UTC()
	from, to = today.AddDate(0, 0, -3).Format(time.DateOnly), today.AddDate(0, 0, 1).Format(time.DateOnly)
	act(t, tab, chromedp.SetValue(chromedp.ID("from"), from), chromedp.SetValue(chromedp.ID("to"), to))
	click(t, tab, "Show")
	require.Contains(t, location(t, tab), "from="+from)
	main := textOf(t, tab, "main")
	for _, label := range []string{"Broadcasts", "Deliveries", "Delivery rate", "Texts received", "New members", "Opt-outs"} {
		require.Contains(t, main, label)
	}
	rows := get(t, tab, chromedp.Evaluate[[][]string](`[...document.querySelectorAll('#days tbody tr')].map(r => [...r.cells].map(c => c.textContent.trim()))`))
	require.Len(t, rows, 5, "one row per day of the range")
	var sum [4]int64 // broadcasts, sent, delivered, failed
	for _, row := range rows {
		require.Len(t, row, 6)
		for i := range sum {
			n, err := strconv.ParseInt(row[i+1], 10, 64)
			require.NoError(t, err, row)
			sum[i] += n
		}
	}
	var api struct {
		From          string  `json:"from"`
		To            string  `json:"to"`
		Broadcasts    int64   `json:"broadcasts"`
		Deliveries    int64   `json:"deliveries"`
		Delivered     int64   `json:"delivered"`
		DeliveryRate  float64 `json:"delivery_rate"`
		TextsReceived int64   `json:"texts_received"`
		NewMembers    int     `json:"new_members"`
		OptOuts       int     `json:"opt_outs"`
	}
	r = do(t, s.api, "GET", "/analytics?from="+from+"&to="+to, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&api))
	require.Equal(t, int64(2), api.Broadcasts)
	require.Equal(t, int64(6), api.Deliveries)
	require.Equal(t, [3]int64{api.Broadcasts, api.Deliveries, api.Delivered}, [3]int64(sum[:3]), "the days sum to the API's totals")
	failed := countRowsIn(t, env.pg.URL, `SELECT count(*) FROM messaging_deliveries WHERE team_id = $1 AND status = 'failed'`, s.teamID)
	require.EqualValues(t, failed, sum[3])
	for id, want := range map[string]string{
		"total-broadcasts": strconv.FormatInt(api.Broadcasts, 10), "total-deliveries": strconv.FormatInt(api.Deliveries, 10),
		"total-rate": fmt.Sprintf("%.1f%%", api.DeliveryRate*100), "total-received": strconv.FormatInt(api.TextsReceived, 10),
		"total-members": strconv.Itoa(api.NewMembers), "total-optouts": strconv.Itoa(api.OptOuts),
	} {
		require.Equal(t, want, textOf(t, tab, "#"+id), id)
	}
	require.EqualValues(t, 1, api.TextsReceived)
	svg := get(t, tab, chromedp.Evaluate[int](`document.querySelectorAll('main svg[role=img] rect').length + (document.querySelector('main svg [style]') ? 1000 : 0)`))
	require.Greater(t, svg, 0, "the chart is drawn")
	require.Less(t, svg, 1000, "no inline style in the chart")
	for _, p := range []string{"/app/analytics?from=" + from + "&to=" + to, "/app/analytics", "/app/campaigns"} {
		navigate(t, tab, p)
		if dir := os.Getenv("BROWSER_ARTIFACTS"); dir != "" { // pictures of each page at phone width, for people
			name := strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "_").Replace(strings.TrimPrefix(p, "/app/"))
			require.NoError(t, browser.Screenshot(tab, filepath.Join(dir, "phone", name+".png")))
		}
		wide, err := browser.HasHorizontalScroll(tab)
		require.NoError(t, err)
		require.False(t, wide, "%s scrolls sideways at 390 px", p)
	}

	h := newHTTPSession(t)
	h.signIn(s)
	resp, page := h.get("/app/analytics?from=2025-01-01&to=2026-12-31")
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, page, "at most 366 days")
	require.Contains(t, page, `value="2025-01-01"`, "the form keeps the range typed")
	resp, _ = h.get("/app/analytics?from=yesterday")
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
}
