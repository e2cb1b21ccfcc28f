package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/browser"
	"github.com/teamtext/teamtext/e2e/harness"
)

// Settings, Webhooks, on a service that trusts an
// HTTPS receiver on loopback: a webhook turned off after 20 failed
// deliveries in a row is turned on in a real browser by a team director,
// who becomes its owner (spec §3); the next event reaches the receiver,
// and so does Send test event; both are in the activity log with their
// actor. Add webhook refuses a bad URL inline (nothing made), and shows a
// good one's secret once. Another team's webhook is 404.
func TestDashboardWebhookTurnOn(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t)
	rcv.SetStatus(http.StatusServiceUnavailable)
	h := startHookService(t, "wh_dash_on", rcv)
	f, api := newTeamOn(t, h.admin, h.svc, harness.TeamOptions{Extra: map[string]any{"number": teamNumber()}})
	director := hookStaff(t, h, f.TeamID, "team_director")
	w := whCreate(t, api, rcv.URL("/down"), "member.joined")

	for i := 1; i <= 20; i++ {
		whJoin(t, h.admin, f.TeamID, map[string]any{"name": fmt.Sprintf("Athlete %d", i), "phone": fmt.Sprintf("20255502%02d", i)})
	}
	waitFor(t, 30*time.Second, func() bool { return !whAdminGet(t, h.admin, f.TeamID, w.ID).Enabled })
	require.Equal(t, f.CoachID, whAdminGet(t, h.admin, f.TeamID, w.ID).OwnerID, "its key's creator owns it")

	base := h.svc.PublicURL
	tab := chrome(t).NewTab(t, browser.Viewport(390, 844))
	signInBrowserOn(t, tab, base, h.admin, director)
	navigateOn(t, tab, base, "/app/settings")
	_, err := chromedp.RunResponse(within(t, tab), chromedp.Click(`//a[normalize-space()="Webhooks"]`))
	require.NoError(t, err)
	require.Equal(t, base+"/app/settings/webhooks", locationOn(t, tab))
	item := fmt.Sprintf(`//li[.//a[@href="/app/settings/webhooks/%s"]]`, w.ID)
	row := textOf(t, tab, "li.webhook")
	require.Contains(t, row, "failed deliveries in a row", "the list says why it is off")
	require.Contains(t, row, "Head Coach", "and who owns it")
	noSideScroll(t, tab, "/app/settings/webhooks")

	_, err = chromedp.RunResponse(within(t, tab), chromedp.Click(item+`//button[normalize-space()="Turn on"]`))
	require.NoError(t, err)
	require.Equal(t, base+"/app/settings/webhooks/"+w.ID+"?done=enabled", locationOn(t, tab))
	require.Equal(t, "on", textOf(t, tab, "#state"))
	require.Equal(t, "Dana team_director", textOf(t, tab, "#owner"), "the person who turned it on owns it")
	noSideScroll(t, tab, "/app/settings/webhooks/{id}")
	got := whAdminGet(t, h.admin, f.TeamID, w.ID)
	require.True(t, got.Enabled)
	require.Nil(t, got.DisabledReason)
	require.Zero(t, got.ConsecutiveFailures)
	require.Equal(t, director.memberID, got.OwnerID, "the API shows the new owner")

	// The next event is delivered.
	rcv.SetStatus(http.StatusOK)
	late := whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Late Joiner", "phone": "2025550241"})
	waitFor(t, 30*time.Second, func() bool {
		for _, q := range rcv.Requests("/down") {
			if envelope(t, q).Type == "member.joined" && strings.Contains(string(q.Body), late) {
				return true
			}
		}
		return false
	})
	click(t, tab, "Send test event")
	require.Contains(t, textOf(t, tab, "main p.ok"), "Test event sent")
	waitFor(t, 30*time.Second, func() bool {
		for _, q := range rcv.Requests("/down") {
			if envelope(t, q).Type == "webhook.test" {
				return true
			}
		}
		return false
	})
	navigateOn(t, tab, base, "/app/settings/webhooks/"+w.ID)
	waitFor(t, 30*time.Second, func() bool {
		navigateOn(t, tab, base, "/app/settings/webhooks/"+w.ID+"?status=delivered")
		return strings.Contains(textOf(t, tab, "main"), "webhook.test")
	})
	log := textOf(t, tab, "main table")
	require.Contains(t, log, "200", "the log shows the response code")
	noSideScroll(t, tab, "the delivery log")

	// Retry: the delivery the 20th failure cancelled is sent again.
	var cancelled []struct {
		ID string `json:"id"`
	}
	require.NoError(t, api.Expect(context.Background(), 200, "GET", "/webhooks/"+w.ID+"/deliveries?status=cancelled", nil, &cancelled))
	require.Len(t, cancelled, 1, "the delivery whose failure turned it off")
	navigateOn(t, tab, base, "/app/settings/webhooks/"+w.ID+"?status=cancelled")
	_, err = chromedp.RunResponse(within(t, tab), chromedp.Click(`//tr[.//form[contains(@action, "`+cancelled[0].ID+`")]]//button[normalize-space()="Retry"]`))
	require.NoError(t, err)
	require.Contains(t, locationOn(t, tab), "?done=retried")
	waitFor(t, 30*time.Second, func() bool {
		n := 0
		for _, q := range rcv.Requests("/down") {
			if q.Header.Get("X-Service-Delivery") == cancelled[0].ID {
				n++
			}
		}
		return n == 2 // its failed attempt, and the retry
	})

	// Recover since a time, in the team's time zone.
	navigateOn(t, tab, base, "/app/settings/webhooks/"+w.ID)
	require.NoError(t, chromedp.Do(within(t, tab), chromedp.SetValue(`#since`, time.Now().Add(-time.Hour).In(newYork(t)).Format("2006-01-02T15:04"))))
	click(t, tab, "Recover")
	require.Contains(t, locationOn(t, tab), "?done=recovered")

	// The throttle.
	require.NoError(t, chromedp.Do(within(t, tab), chromedp.SetValue(`#max-per-second`, "5")))
	click(t, tab, "Save throttle")
	require.Contains(t, locationOn(t, tab), "?done=throttle")
	var throttled struct {
		MaxPerSecond *int `json:"max_per_second"`
	}
	require.NoError(t, h.admin.Expect(context.Background(), 200, "GET", "/teams/"+f.TeamID+"/webhooks/"+w.ID, nil, &throttled))
	require.NotNil(t, throttled.MaxPerSecond)
	require.Equal(t, 5, *throttled.MaxPerSecond)

	// Rotate secret: the new one is shown once.
	click(t, tab, "Rotate secret")
	rotated := textOf(t, tab, "#new-secret")
	require.True(t, strings.HasPrefix(rotated, "whsec_"))
	require.NotEqual(t, w.Secret, rotated)
	navigateOn(t, tab, base, "/app/settings/webhooks/"+w.ID)
	require.NotContains(t, textOf(t, tab, "main"), rotated, "shown once")

	// Add webhook: a bad URL is refused on the form and nothing is made;
	// a good one's secret is shown once.
	navigateOn(t, tab, base, "/app/settings/webhooks")
	require.NoError(t, chromedp.Do(within(t, tab), chromedp.SendKeys(`#url`, "http://example.com/hook"),
		chromedp.Click(`//input[@value="member.opted_out"]`)))
	click(t, tab, "Add webhook")
	require.Contains(t, textOf(t, tab, "#add-error"), "https")
	typed, err := chromedp.Run(within(t, tab), chromedp.Value(`#url`))
	require.NoError(t, err)
	require.Equal(t, "http://example.com/hook", typed, "the form keeps what was typed")
	var list []whHook
	require.NoError(t, api.Expect(context.Background(), 200, "GET", "/webhooks", nil, &list))
	require.Len(t, list, 1, "nothing was made")

	require.NoError(t, chromedp.Do(within(t, tab), chromedp.SetValue(`#url`, rcv.URL("/second"))))
	click(t, tab, "Add webhook")
	secret := textOf(t, tab, "#new-secret")
	require.True(t, strings.HasPrefix(secret, "whsec_"), "the new webhook's secret")
	navigateOn(t, tab, base, "/app/settings/webhooks")
	require.NotContains(t, textOf(t, tab, "main"), secret, "shown once")
	require.NoError(t, api.Expect(context.Background(), 200, "GET", "/webhooks", nil, &list))
	require.Len(t, list, 2)

	// Delete, from the webhook's own page.
	_, err = chromedp.RunResponse(within(t, tab), chromedp.Click(`//a[normalize-space()="`+rcv.URL("/second")+`"]`))
	require.NoError(t, err)
	click(t, tab, "Delete")
	require.Equal(t, base+"/app/settings/webhooks", locationOn(t, tab))
	require.NoError(t, api.Expect(context.Background(), 200, "GET", "/webhooks", nil, &list))
	require.Len(t, list, 1, "deleted")

	// The activity log names each action and its actor.
	navigateOn(t, tab, base, "/app/settings/activity")
	activity := textOf(t, tab, "main table")
	for _, action := range []string{"added webhook", "sent test event", "turned on webhook", "deleted webhook", "rotated webhook secret",
		"changed webhook throttle", "retried webhook delivery", "recovered webhook deliveries"} {
		require.Contains(t, activity, action)
	}
	require.Contains(t, activity, "Dana team_director")
	require.NotContains(t, activity, secret)

	// Another team's staff gets 404 for this webhook, reading or writing.
	g, _ := newTeamOn(t, h.admin, h.svc, harness.TeamOptions{Extra: map[string]any{"number": teamNumber()}})
	other := newHTTPSessionOn(t, h.svc, h.admin)
	home := other.signIn(hookStaff(t, h, g.TeamID, "head_coach"))
	resp, _ := other.get("/app/settings/webhooks/" + w.ID)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	resp, _ = other.post("/app/settings/webhooks/"+w.ID+"/delete", url.Values{"csrf": {csrfOf(t, home)}})
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.True(t, whAdminGet(t, h.admin, f.TeamID, w.ID).Enabled, "still there")

	// Refusals are shown on the page, with what was typed.
	mine := newHTTPSessionOn(t, h.svc, h.admin)
	home = mine.signIn(director)
	resp, page := mine.post("/app/settings/webhooks/"+w.ID+"/throttle", url.Values{"csrf": {csrfOf(t, home)}, "max_per_second": {"fast"}})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, page, `role="alert"`)
	require.Contains(t, page, `value="fast"`)
	resp, page = mine.post("/app/settings/webhooks/"+w.ID+"/throttle", url.Values{"csrf": {csrfOf(t, home)}, "max_per_second": {"500"}})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, page, "1 to 100")
	resp, _ = mine.post("/app/settings/webhooks/"+w.ID+"/recover", url.Values{"csrf": {csrfOf(t, home)}, "since": {"yesterday"}})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	resp, page = mine.post("/app/settings/webhooks", url.Values{"csrf": {csrfOf(t, home)}, "url": {"https://10.0.0.1/hook"}, "events": {"member.joined"}})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "a private address")
	require.Contains(t, page, `id="add-error"`)
	require.NoError(t, api.Expect(context.Background(), 200, "GET", "/webhooks", nil, &list))
	require.Len(t, list, 1, "nothing was made")
}

// openLinkedSettings signs in a new staff member with role, requires the
// settings page to link to path, and opens path (200); it returns the
// staff member, the session and the page.
func openLinkedSettings(t *testing.T, role, path string) (staff, *httpSession, string) {
	t.Helper()
	s := newStaff(t, role)
	h := newHTTPSession(t)
	h.signIn(s)
	_, settings := h.get("/app/settings")
	require.Contains(t, settings, `href="`+path+`"`)
	resp, page := h.get(path)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return s, h, page
}

// A coach has no Webhooks (403, no link); a team director does.
func TestDashboardWebhookRoles(t *testing.T) {
	t.Parallel()
	s, _, page := openLinkedSettings(t, "team_director", "/app/settings/webhooks")
	require.Equal(t, 1, strings.Count(page, "<h1"), "one h1")
	require.Contains(t, page, `<label for="url">URL</label>`)

	coach := addStaff(t, s.teamID, s.teamName, "coach", teamNumber())
	c := newHTTPSession(t)
	home := c.signIn(coach)
	require.NotContains(t, home, `href="/app/settings`)
	resp, _ := c.get("/app/settings/webhooks")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = c.post("/app/settings/webhooks", url.Values{"csrf": {csrfOf(t, home)}, "url": {"https://example.com/hook"}, "events": {"member.joined"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}

func newYork(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("America/New_York") // the harness's teams' zone
	require.NoError(t, err)
	return loc
}

// hookStaff adds a dashboard login of role who may send broadcasts (so
// may own webhooks when a head coach or team director) to a team of h.
func hookStaff(t *testing.T, h *hookService, teamID, role string) staff {
	t.Helper()
	var team struct {
		Name string `json:"name"`
	}
	require.NoError(t, h.admin.Expect(context.Background(), 200, "GET", "/teams/"+teamID, nil, &team))
	phone := teamNumber()
	var m struct {
		ID string `json:"id"`
	}
	require.NoError(t, h.admin.Expect(context.Background(), 201, "POST", "/teams/"+teamID+"/members",
		map[string]any{"name": "Dana " + role, "phone": phone, "role": role, "dashboard_login": true}, &m))
	require.NoError(t, h.admin.Expect(context.Background(), 200, "PATCH", "/teams/"+teamID+"/members/"+m.ID,
		map[string]any{"can_send_broadcasts": true}, nil))
	return staff{teamID: teamID, teamName: team.Name, memberID: m.ID, phone: phone}
}

// within is the tab with a deadline for one browser step.
func within(t *testing.T, tab context.Context) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func navigateOn(t *testing.T, tab context.Context, base, path string) {
	t.Helper()
	require.NoError(t, chromedp.Do(within(t, tab), chromedp.Navigate(base+path)))
}

func locationOn(t *testing.T, tab context.Context) string {
	t.Helper()
	loc, err := chromedp.Run(within(t, tab), chromedp.Location())
	require.NoError(t, err)
	return loc
}

// noSideScroll fails when the page scrolls sideways (the tab is 390 px wide).
func noSideScroll(t *testing.T, tab context.Context, page string) {
	t.Helper()
	wide, err := browser.HasHorizontalScroll(tab)
	require.NoError(t, err)
	require.False(t, wide, "%s scrolls sideways at 390 px", page)
}
