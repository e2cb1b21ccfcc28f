package e2e

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/browser"
)

// The dashboard's daily work: Compose with merge tags, a
// message's progress, approvals in two browsers, inbox replies, roles, and
// pages a phone can use. Each flow drives headless Chromium.

// rosterAdd puts someone on a team's roster through the admin API.
func rosterAdd(t *testing.T, teamID string, fields map[string]any) string {
	t.Helper()
	r := do(t, env.admin, "POST", "/teams/"+teamID+"/members", fields)
	require.Equal(t, 201, r.Status, string(r.Body))
	var m struct {
		ID string `json:"id"`
	}
	require.NoError(t, r.Data(&m))
	return m.ID
}

// family is three roster entries of the families audience.
type family struct {
	first, phone string
}

func addFamilies(t *testing.T, teamID string) []family {
	t.Helper()
	fs := []family{{"Ava", teamNumber()}, {"Benjamin", teamNumber()}, {"Chloé", teamNumber()}}
	for _, f := range fs {
		rosterAdd(t, teamID, map[string]any{"name": f.first + " Rivera", "phone": f.phone, "role": "guardian"})
	}
	return fs
}

// click clicks the button named name and waits for the page it loads.
func click(t *testing.T, tab context.Context, name string) {
	t.Helper()
	_, err := chromedp.RunResponse(tab, chromedp.Click(fmt.Sprintf(`//button[normalize-space()=%q]`, name)))
	require.NoError(t, err)
}

// textOf is the text of the first element sel matches, waiting at most
// 10 seconds for it to appear.
func textOf(t *testing.T, tab context.Context, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err, "%s on %s", sel, location(t, tab))
	return s
}

func navigate(t *testing.T, tab context.Context, path string) {
	t.Helper()
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(env.svc.PublicURL+path)))
}

func location(t *testing.T, tab context.Context) string {
	t.Helper()
	loc, err := chromedp.Run(tab, chromedp.Location())
	require.NoError(t, err)
	return strings.TrimPrefix(loc, env.svc.PublicURL)
}

var messagePath = regexp.MustCompile(`^/app/messages/(msg_[A-Za-z0-9]+)$`)

// composeAndSend writes text for audience on Compose, previews it, checks
// the preview's credits, sends it and returns the message id it lands on.
func composeAndSend(t *testing.T, tab context.Context, text, audience, wantCredits string) string {
	t.Helper()
	navigate(t, tab, "/app/compose")
	require.NoError(t, chromedp.Do(tab,
		chromedp.SendKeys(chromedp.ID("text"), text),
		chromedp.SetValue(chromedp.ID("audience"), audience)))
	click(t, tab, "Preview")
	if wantCredits != "" {
		require.Equal(t, wantCredits, textOf(t, tab, "#credits"))
	}
	click(t, tab, "Send")
	m := messagePath.FindStringSubmatch(location(t, tab))
	require.NotNil(t, m, "after Send the browser lands on the message's page, not %s", location(t, tab))
	return m[1]
}

// bodiesTo are the outbox's bodies to phone.
func bodiesTo(t *testing.T, teamID, phone string) []string {
	t.Helper()
	var out []string
	for _, e := range outbox(t, env.admin, teamID) {
		if e["to"] == phone {
			out = append(out, fmt.Sprint(e["body"]))
		}
	}
	return out
}

// Sign in with the code from the outbox, Compose with {first_name}: the
// preview shows one recipient's text and the exact credits, Send lands on
// the message's page, which reaches delivered, and each recipient's text
// carries their own first name. With JavaScript on and off.
func TestDashboardComposeMergeTags(t *testing.T) {
	t.Parallel()
	for _, js := range []bool{true, false} {
		t.Run(fmt.Sprintf("javascript=%v", js), func(t *testing.T) {
			t.Parallel()
			s := newStaff(t, "team_director")
			fams := addFamilies(t, s.teamID)
			var opts []browser.Option
			if !js {
				opts = append(opts, browser.JavaScriptDisabled())
			}
			tab := chrome(t).NewTab(t, opts...)
			signInBrowser(t, tab, s)

			// Chloé (é is in GSM-7): one segment each, so 3 credits.
			id := composeAndSend(t, tab, "Practice moved to 6pm, {first_name}. Bring water!", "families", "3 credits")

			r := do(t, s.api, "GET", "/messages/"+id, nil)
			require.Equal(t, 200, r.Status, string(r.Body))
			var msg map[string]any
			require.NoError(t, r.Data(&msg))
			require.Equal(t, "dashboard", msg["source"], "the API lists the dashboard's send with its source")
			require.Equal(t, s.memberID, msg["member_id"], "and who sent it")

			waitFor(t, 60*time.Second, func() bool {
				if !js {
					navigate(t, tab, "/app/messages/"+id)
				}
				// Read by script: the poll may swap the block between a
				// query for its node and a read of its text.
				got, err := chromedp.Run(tab, chromedp.Evaluate[string](`(document.querySelector("[data-progress] .stat:nth-child(3) b")||{}).textContent||""`))
				require.NoError(t, err)
				return got == "3"
			})
			for _, f := range fams {
				got := bodiesTo(t, s.teamID, f.phone)
				require.Len(t, got, 1, "one text to %s", f.first)
				require.Contains(t, got[0], "Practice moved to 6pm, "+f.first+". Bring water!")
			}
		})
	}
}

// With JavaScript, the preview appears as the coach types, without
// pressing Preview.
func TestDashboardLivePreview(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "head_coach")
	addFamilies(t, s.teamID)
	tab := chrome(t).NewTab(t)
	signInBrowser(t, tab, s)
	navigate(t, tab, "/app/compose")
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("text"), "Game at noon")))
	waitFor(t, 15*time.Second, func() bool {
		n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("#credits").length`))
		return err == nil && n == 1
	})
	require.Equal(t, "5 credits", textOf(t, tab, "#credits"), "everyone: the harness's head coach, the staff member and three families")
	require.Contains(t, textOf(t, tab, ".preview"), "Game at noon")
}

// A coach's send waits for approval; a team director approves it in
// another browser and it goes out; a rejected one never does.
func TestDashboardApprovals(t *testing.T) {
	t.Parallel()
	director := newStaff(t, "team_director")
	r := do(t, env.admin, "PATCH", "/teams/"+director.teamID, map[string]any{"approval_required": true})
	require.Equal(t, 200, r.Status, string(r.Body))
	fams := addFamilies(t, director.teamID)
	coach := addStaff(t, director.teamID, director.teamName, "coach", teamNumber())
	r = do(t, env.admin, "PATCH", "/teams/"+director.teamID+"/members/"+coach.memberID, map[string]any{"can_send_broadcasts": true})
	require.Equal(t, 200, r.Status, string(r.Body))

	coachTab := chrome(t).NewTab(t)
	signInBrowser(t, coachTab, coach)
	held := composeAndSend(t, coachTab, "Bus leaves at 7, {first_name}", "families", "3 credits")
	require.Contains(t, textOf(t, coachTab, "main"), "pending_approval")
	refused := composeAndSend(t, coachTab, "Pizza after the game", "families", "3 credits")

	dirTab := chrome(t).NewTab(t)
	signInBrowser(t, dirTab, director)
	navigate(t, dirTab, "/app/approvals")
	_, err := chromedp.RunResponse(dirTab, chromedp.Click(
		`//li[.//p[contains(., "Pizza after the game")]]//button[normalize-space()="Reject"]`))
	require.NoError(t, err)
	_, err = chromedp.RunResponse(dirTab, chromedp.Click(
		`//li[.//p[contains(., "Bus leaves at 7")]]//button[normalize-space()="Approve"]`))
	require.NoError(t, err)
	require.Equal(t, "/app/messages/"+held, location(t, dirTab), "the approver lands on the message")

	waitFor(t, 30*time.Second, func() bool {
		for _, f := range fams {
			if len(bodiesTo(t, director.teamID, f.phone)) == 0 {
				return false
			}
		}
		return true
	})
	for _, f := range fams {
		bodies := bodiesTo(t, director.teamID, f.phone)
		require.Len(t, bodies, 1, "the rejected send never goes out")
		require.Contains(t, bodies[0], "Bus leaves at 7, "+f.first, "rendered for today's roster when approved")
	}
	r = do(t, director.api, "GET", "/messages/"+refused, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), `"rejected"`)
}

// An inbound text shows in the inbox under the member's roster name;
// Send reply texts that one number. A name that is markup shows as text.
func TestDashboardInboxReply(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "coach")
	parent := teamNumber()
	hostile := `<img src=x onerror=alert(1)>`
	rosterAdd(t, s.teamID, map[string]any{"name": hostile, "phone": parent, "role": "guardian"})
	text(t, env.admin, env.pg.URL, parent, s.number, "Is practice still on?")

	tab := chrome(t).NewTab(t)
	signInBrowser(t, tab, s)
	navigate(t, tab, "/app/inbox")
	item := `//li[.//p[contains(., "Is practice still on?")]]`
	who, err := chromedp.Run(tab, chromedp.Text(item+`//b[@class="who"]`))
	require.NoError(t, err)
	require.Equal(t, hostile, who, "the roster name, shown as text")
	require.Empty(t, browser.Dialogs(tab), "no script ran")

	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(item+`//textarea`, "Yes, 5pm as usual")))
	_, err = chromedp.RunResponse(tab, chromedp.Click(item+`//button[normalize-space()="Send reply"]`))
	require.NoError(t, err)
	waitFor(t, 30*time.Second, func() bool {
		for _, b := range bodiesTo(t, s.teamID, parent) {
			if strings.Contains(b, "Yes, 5pm as usual") {
				return true
			}
		}
		return false
	})
}

// Roles and tenancy over plain HTTP: a coach may not use Approvals, a
// board member may not Compose (GET or POST), another team's message is
// 404, and a POST without the CSRF token changes nothing.
func TestDashboardRolesAndTenancy(t *testing.T) {
	t.Parallel()
	director := newStaff(t, "team_director")
	addFamilies(t, director.teamID)
	coach := addStaff(t, director.teamID, director.teamName, "coach", teamNumber())
	board := addStaff(t, director.teamID, director.teamName, "board_member", teamNumber())
	other := newStaff(t, "head_coach")

	h := newHTTPSession(t)
	h.signIn(director)
	_, page := h.get("/app/compose")
	csrf := csrfOf(t, page)
	resp, _ := h.post("/app/compose", url.Values{"text": {"No token"}, "audience": {"all"}, "action": {"send"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = h.post("/app/compose", url.Values{"csrf": {csrf}, "text": {"Field day Saturday"}, "audience": {"all"}, "action": {"send"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/app/messages/")
	r := do(t, director.api, "GET", "/messages?limit=10", nil)
	require.Equal(t, 200, r.Status)
	require.Contains(t, string(r.Body), id)
	require.NotContains(t, string(r.Body), "No token", "the refused POST sent nothing")
	resp, _ = h.get("/app/messages/" + id)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 1, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_activity WHERE team_id = $1 AND member_id = $2
		AND action = 'sent message' AND object = $3 AND client_ip = '127.0.0.1'`, director.teamID, director.memberID, id),
		"the send is in the activity log: who, what, which message, from where")
	require.Equal(t, 0, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_activity WHERE team_id = $1 AND action = 'sent message' AND object <> $2`, director.teamID, id),
		"and the refused POST is not")

	o := newHTTPSession(t)
	o.signIn(other)
	resp, _ = o.get("/app/messages/" + id)
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "another team's message")
	resp, _ = o.get("/app/messages/" + id + "/progress")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	c := newHTTPSession(t)
	home := c.signIn(coach)
	require.NotContains(t, home, `href="/app/approvals"`, "no Approvals link for a coach")
	resp, _ = c.get("/app/approvals")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	b := newHTTPSession(t)
	home = b.signIn(board)
	require.NotContains(t, home, `href="/app/compose"`, "no Compose link for a board member")
	resp, _ = b.get("/app/compose")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = b.post("/app/compose", url.Values{"csrf": {csrfOf(t, home)}, "text": {"Board says hi"}, "audience": {"all"}, "action": {"send"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = b.get("/app/inbox")
	require.Equal(t, http.StatusOK, resp.StatusCode, "a board member sees the inbox")
}

// At a phone's 390 px width no page of the daily work scrolls sideways.
func TestDashboardPhoneWidth(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "head_coach")
	addFamilies(t, s.teamID)
	tab := chrome(t).NewTab(t, browser.Viewport(390, 844))
	navigate(t, tab, "/app/sign-in")
	wide, err := browser.HasHorizontalScroll(tab)
	require.NoError(t, err)
	require.False(t, wide, "the sign-in page scrolls sideways at 390 px")
	signInBrowser(t, tab, s)
	id := composeAndSend(t, tab, "A long message to check wrapping: "+strings.Repeat("supercalifragilistic ", 6), "families", "")
	park := teamNumber()
	rosterAdd(t, s.teamID, map[string]any{"name": "Sam Okafor", "phone": park, "role": "athlete"})
	text(t, env.admin, env.pg.URL, park, s.number, "Running 10 minutes late to the bus, sorry!")
	for _, p := range []string{"/app/", "/app/compose", "/app/messages", "/app/messages/" + id, "/app/scheduled", "/app/approvals", "/app/inbox", "/app/settings", "/app/settings/activity", "/app/templates"} {
		navigate(t, tab, p)
		if dir := os.Getenv("BROWSER_ARTIFACTS"); dir != "" { // pictures of each page at phone width, for people
			name := strings.Trim(strings.NewReplacer("/", "_").Replace(strings.TrimPrefix(p, "/app")), "_")
			require.NoError(t, browser.Screenshot(tab, filepath.Join(dir, "phone", cmp.Or(name, "home")+".png")))
		}
		wide, err := browser.HasHorizontalScroll(tab)
		require.NoError(t, err)
		require.False(t, wide, "%s scrolls sideways at 390 px", p)
	}
}

var assetRef = regexp.MustCompile(`(?:href|src)="(/app/assets/[^"]+)"`)

// Every page of the daily work weighs at most 60 KB on first load, its
// assets included, on a team with messages and fifty texts in
// the inbox.
func TestDashboardPageWeight(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "head_coach")
	fams := addFamilies(t, s.teamID)
	for i := range 50 {
		if i < 5 { // the send limits allow a few a minute
			r := do(t, s.api, "POST", "/messages", map[string]any{"text": fmt.Sprintf("Reminder %d: %s", i, strings.Repeat("bring your water bottle ", 5)), "audience": "families"})
			require.Equal(t, 201, r.Status, string(r.Body))
		}
		inject(t, env.admin, fams[i%len(fams)].phone, s.number, fmt.Sprintf("Question %d: %s", i, strings.Repeat("what time is the bus? ", 5)))
	}
	waitFor(t, 30*time.Second, func() bool {
		return countRowsIn(t, env.pg.URL, `SELECT count(*) FROM messaging_inbound WHERE team_id = $1`, s.teamID) == 50
	})
	h := newHTTPSession(t)
	h.signIn(s)
	_, list := h.get("/app/messages")
	m := regexp.MustCompile(`/app/messages/(msg_[A-Za-z0-9]+)`).FindStringSubmatch(list)
	require.NotNil(t, m)
	for _, p := range []string{"/app/", "/app/compose", "/app/messages", "/app/messages/" + m[1], "/app/scheduled", "/app/approvals", "/app/inbox", "/app/settings", "/app/settings/activity", "/app/templates"} {
		resp, page := h.get(p)
		require.Equal(t, http.StatusOK, resp.StatusCode, p)
		total := len(page)
		for _, a := range assetRef.FindAllStringSubmatch(page, -1) {
			ar, body := h.get(a[1])
			require.Equal(t, http.StatusOK, ar.StatusCode, a[1])
			total += len(body)
		}
		t.Logf("%s: %d bytes with its assets", p, total)
		require.LessOrEqual(t, total, 60*1024, "%s weighs %d bytes with its assets", p, total)
	}
}

// Compose with Send at and Repeat weekly until schedules a weekly series in
// the team's local time; Scheduled lists it and Cancel ends it.
func TestDashboardSchedule(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "team_director")
	addFamilies(t, s.teamID)
	h := newHTTPSession(t)
	home := h.signIn(s)
	ny, err := time.LoadLocation("America/New_York") // the harness's teams' zone
	require.NoError(t, err)
	first := time.Now().In(ny).AddDate(0, 0, 2)
	first = time.Date(first.Year(), first.Month(), first.Day(), 17, 30, 0, 0, ny)
	form := url.Values{"csrf": {csrfOf(t, home)}, "text": {"Weekly practice tonight"}, "audience": {"families"},
		"send_at": {first.Format("2006-01-02T15:04")}, "repeat_until": {first.AddDate(0, 0, 21).Format(time.DateOnly)}}

	form.Set("action", "preview")
	resp, page := h.post("/app/compose", form)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Regexp(t, `<button type="submit" name="action" value="send"[^>]*>Schedule</button>`, page, "the button reads Schedule when a time is set")

	form.Set("action", "send")
	resp, _ = h.post("/app/compose", form)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/app/scheduled", resp.Header.Get("Location"))
	r := do(t, s.api, "GET", "/scheduled", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	var list []struct {
		ID           string    `json:"id"`
		ScheduledFor time.Time `json:"scheduled_for"`
		Repeat       *struct {
			Until string `json:"until"`
		} `json:"repeat"`
	}
	require.NoError(t, r.Data(&list))
	require.Len(t, list, 1)
	require.True(t, first.Equal(list[0].ScheduledFor), "5:30 PM in the team's zone: %s", list[0].ScheduledFor)
	require.NotNil(t, list[0].Repeat)
	require.Equal(t, first.AddDate(0, 0, 21).Format(time.DateOnly), list[0].Repeat.Until)

	_, page = h.get("/app/scheduled")
	require.Contains(t, page, "Weekly practice tonight")
	resp, _ = h.post("/app/scheduled/"+list[0].ID+"/cancel", url.Values{"csrf": {csrfOf(t, page)}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	r = do(t, s.api, "GET", "/scheduled", nil)
	require.NoError(t, r.Data(&list))
	require.Empty(t, list, "cancelled")
}

// Merge tags cost what each recipient's own text costs: a long name that
// pushes one text into two segments makes the total 3 credits for two
// families, and the message records 3. A custom field's key is a tag; a
// recipient without a value is warned about and gets it left out. An
// unknown tag is refused on the form; the API still refuses every tag.
func TestDashboardMergeTagCredits(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "head_coach")
	r := do(t, s.api, "POST", "/custom-fields", map[string]any{"label": "Jersey", "key": "jersey"})
	require.Equal(t, 201, r.Status, string(r.Body))
	short, long := teamNumber(), teamNumber()
	al := rosterAdd(t, s.teamID, map[string]any{"name": "Al Rivera", "phone": short, "role": "guardian"})
	rosterAdd(t, s.teamID, map[string]any{"name": "Bartholomew Rivera", "phone": long, "role": "guardian"})
	r = do(t, s.api, "PATCH", "/members/"+al+"/custom-fields", map[string]any{"values": map[string]string{"jersey": "12"}})
	require.Equal(t, 200, r.Status, string(r.Body))

	// 160 GSM-7 characters with Al's name and jersey: one segment; with
	// Bartholomew's (9 letters more) and no jersey, 161 - 2: two segments.
	fixed := len(s.teamName+": ") + len("Hi , #") + len("\nReply STOP to opt out.")
	text := "Hi {first_name}, #{jersey}" + strings.Repeat("x", 160-fixed-len("Al12"))
	h := newHTTPSession(t)
	home := h.signIn(s)
	form := url.Values{"csrf": {csrfOf(t, home)}, "text": {text}, "audience": {"families"}}
	resp, preview := h.post("/app/compose/preview", form)
	require.Equal(t, http.StatusOK, resp.StatusCode, preview)
	require.Contains(t, preview, `<dd id="credits">3 credits</dd>`, "1 + 2 segments")
	require.Contains(t, preview, "<dt>Largest segment count</dt><dd>2</dd>")
	require.Contains(t, preview, "Hi Al, #12xx", "the first recipient's text")
	require.Contains(t, preview, "1 recipient has no value for {jersey}")

	form.Set("action", "send")
	resp, _ = h.post("/app/compose", form)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/app/messages/")
	r = do(t, s.api, "GET", "/messages/"+id, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	var m struct {
		Credits  int `json:"credits"`
		Segments int `json:"segments_per_recipient"`
	}
	require.NoError(t, r.Data(&m))
	require.Equal(t, 3, m.Credits)
	require.Equal(t, 2, m.Segments, "the largest")
	waitFor(t, 30*time.Second, func() bool { return len(bodiesTo(t, s.teamID, long)) == 1 && len(bodiesTo(t, s.teamID, short)) == 1 })
	require.Contains(t, bodiesTo(t, s.teamID, long)[0], "Hi Bartholomew, #xx")
	require.Contains(t, bodiesTo(t, s.teamID, short)[0], "Hi Al, #12xx")

	form.Set("text", "Hi {frist_name}")
	resp, page := h.post("/app/compose", form)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, page, "{frist_name} is not a merge tag")
	r = do(t, s.api, "POST", "/messages", map[string]any{"text": "Hi {first_name}", "audience": "families"})
	require.Equal(t, 400, r.Status)
	require.Equal(t, "merge_tags_unsupported", r.ErrorCode(), "the API still refuses tags")
}
