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

// Joining a team by text and on its sign-up page.

// joinTeam is a team with a number, its name, code and number.
type joinTeamInfo struct {
	ID, Name, Code, Number string
	api                    *harness.Client
}

func joinTeamOn(t *testing.T, admin *harness.Client, f *harness.Fixture, api *harness.Client) joinTeamInfo {
	t.Helper()
	var team struct {
		Name                 string `json:"name"`
		Code                 string `json:"code"`
		Number               string `json:"number"`
		JoinApprovalRequired *bool  `json:"join_approval_required"`
	}
	require.NoError(t, admin.Expect(context.Background(), 200, "GET", "/teams/"+f.TeamID, nil, &team))
	require.NotNil(t, team.JoinApprovalRequired)
	require.True(t, *team.JoinApprovalRequired, "joiners wait for approval by default")
	return joinTeamInfo{ID: f.TeamID, Name: team.Name, Code: team.Code, Number: team.Number, api: api}
}

// answersTo are the bodies the simulator's outbox holds for phone, oldest first.
func answersTo(t testing.TB, admin *harness.Client, teamID, phone string) []string {
	t.Helper()
	var out []string
	for _, e := range outbox(t, admin, teamID) {
		if e["to"] == phone {
			out = append(out, fmt.Sprint(e["body"]))
		}
	}
	return out
}

// waitAnswers waits until phone got n texts, and returns them.
func waitAnswers(t testing.TB, admin *harness.Client, teamID, phone string, n int) []string {
	t.Helper()
	var got []string
	waitFor(t, 30*time.Second, func() bool {
		got = answersTo(t, admin, teamID, phone)
		return len(got) >= n
	})
	require.Len(t, got, n, "%q", got)
	return got
}

// textAgain files a carrier's retried callback: the same provider id again.
func textAgain(t *testing.T, admin *harness.Client, url, from, to, body, providerID string) {
	t.Helper()
	inject(t, admin, from, to, body, providerID)
	waitFor(t, 30*time.Second, func() bool { return jobDone(t, url, providerID) })
}

// joinedMembers are the team's roster entries with phone.
func joinedMembers(t *testing.T, api *harness.Client, phone string) []member {
	t.Helper()
	r := do(t, api, "GET", "/members?phone="+url.QueryEscape(phone), nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	var ms []member
	require.NoError(t, r.Data(&ms))
	return ms
}

func conversations(t *testing.T, url, teamID, phone, state string) int {
	return countRowsIn(t, url, `SELECT count(*) FROM roster_join_conversations WHERE team_id = $1 AND phone = $2 AND state = $3`, teamID, phone, state)
}

func inboxBodies(t *testing.T, api *harness.Client) []string {
	var out []string
	for _, it := range listInbound(t, api, "/inbox?limit=200") {
		out = append(out, it.Body)
	}
	return out
}

// TestJoinByText: the whole conversation with a carrier retrying each
// callback; a second JOIN from a member; an opted-out number; STOP
// half-way; a name that cannot be used; join_approval_required false.
func TestJoinByText(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	tm := joinTeamOn(t, env.admin, f, api)
	db := env.pg.URL
	joinedBefore := eventCount(t, tm.ID, "member.joined")

	// JOIN from a number not on the roster, its callback retried: one
	// conversation, one answer asking for the name.
	const p1 = "+12025550701"
	kw := text(t, env.admin, db, p1, tm.Number, " join ")
	textAgain(t, env.admin, db, p1, tm.Number, " join ", kw)
	ask := waitAnswers(t, env.admin, tm.ID, p1, 1)[0]
	for _, want := range []string{tm.Name, "reply with your full name", "Msg frequency varies", "Msg & data rates may apply", "Reply STOP to opt out"} {
		require.Contains(t, ask, want)
	}
	require.Equal(t, 1, conversations(t, db, tm.ID, p1, "awaiting_name"))

	// The name, its callback retried: one member, pending (approval
	// required), consent keyword with the texts as evidence, no
	// member.joined; the answer says a coach will approve.
	name := text(t, env.admin, db, p1, tm.Number, "Jordan Lee")
	textAgain(t, env.admin, db, p1, tm.Number, "Jordan Lee", name)
	got := waitAnswers(t, env.admin, tm.ID, p1, 2)
	require.Contains(t, got[1], tm.Name)
	require.Contains(t, got[1], "A coach will approve")
	ms := joinedMembers(t, api, p1)
	require.Len(t, ms, 1)
	require.Equal(t, "Jordan Lee", ms[0].Name)
	require.Equal(t, "pending", ms[0].Status)
	require.Equal(t, "athlete", ms[0].Role)
	require.Equal(t, 1, conversations(t, db, tm.ID, p1, "joined"))
	require.Equal(t, joinedBefore, eventCount(t, tm.ID, "member.joined"), "pending: member.joined waits for approval")
	mc := getConsent(t, api, "/members/"+ms[0].ID+"/consent")
	require.Equal(t, "keyword", mc.Data.Consent.Source)
	var nameID string
	for _, it := range listInbound(t, api, "/inbound-messages?limit=200") {
		if it.ProviderMessageID == name {
			nameID = it.MessageID
		}
	}
	require.NotEmpty(t, nameID)
	require.Contains(t, *mc.Data.Consent.Evidence, `"JOIN"`)
	require.Contains(t, *mc.Data.Consent.Evidence, `"Jordan Lee" (message `+nameID+`)`)
	require.Len(t, mc.Data.History, 1)
	require.Equal(t, "consent_given sms changed "+ms[0].ID, step(mc.Data.History[0]))
	require.Equal(t, nameID, *mc.Data.History[0].MessageID, "the consent row keys on the name text")
	// Approval publishes member.joined (the existing path).
	require.Equal(t, 200, do(t, env.admin, "POST", "/teams/"+tm.ID+"/members/"+ms[0].ID+"/approve", nil).Status)
	require.Equal(t, joinedBefore+1, eventCount(t, tm.ID, "member.joined"))

	// JOIN again from a number on the roster: "already on the roster".
	text(t, env.admin, db, p1, tm.Number, "JOIN")
	require.Contains(t, waitAnswers(t, env.admin, tm.ID, p1, 3)[2], "already on the roster")
	require.Len(t, joinedMembers(t, api, p1), 1)

	// An opted-out number must text START first: nothing else happens.
	const p2 = "+12025550702"
	text(t, env.admin, db, p2, tm.Number, "STOP")
	text(t, env.admin, db, p2, tm.Number, "parent")
	optedOut := waitAnswers(t, env.admin, tm.ID, p2, 1)[0]
	require.Contains(t, optedOut, "Text START first")
	require.Contains(t, optedOut, tm.Name)
	require.Equal(t, 0, countRowsIn(t, db, `SELECT count(*) FROM roster_join_conversations WHERE team_id = $1 AND phone = $2`, tm.ID, p2))
	text(t, env.admin, db, p2, tm.Number, "Casey Parent")
	require.Empty(t, joinedMembers(t, api, p2))

	// STOP half-way ends the conversation: the next text is no name.
	const p3 = "+12025550703"
	text(t, env.admin, db, p3, tm.Number, "Athlete")
	waitAnswers(t, env.admin, tm.ID, p3, 1)
	text(t, env.admin, db, p3, tm.Number, "stop")
	require.Equal(t, 1, conversations(t, db, tm.ID, p3, "stopped"))
	text(t, env.admin, db, p3, tm.Number, "Sam Stopper")
	require.Empty(t, joinedMembers(t, api, p3))
	require.Contains(t, inboxBodies(t, api), "Sam Stopper", "not a step: an ordinary inbox text")

	// The team's code (any case) with a name that cannot be used: asked
	// again; PARENT after it changes the role; then the name joins.
	const p4 = "+12025550704"
	text(t, env.admin, db, p4, tm.Number, strings.ToUpper(tm.Code))
	waitAnswers(t, env.admin, tm.ID, p4, 1)
	text(t, env.admin, db, p4, tm.Number, "\u200b")
	require.Contains(t, waitAnswers(t, env.admin, tm.ID, p4, 2)[1], "we didn't get a name")
	text(t, env.admin, db, p4, tm.Number, "PARENT")
	require.Contains(t, waitAnswers(t, env.admin, tm.ID, p4, 3)[2], "as a parent or guardian")
	text(t, env.admin, db, p4, tm.Number, "Pat Doe")
	waitAnswers(t, env.admin, tm.ID, p4, 4)
	m4 := joinedMembers(t, api, p4)
	require.Len(t, m4, 1)
	require.Equal(t, "guardian", m4[0].Role)

	// join_approval_required false: the next joiner is active at once,
	// with member.joined.
	var patched struct {
		JoinApprovalRequired bool `json:"join_approval_required"`
	}
	require.NoError(t, env.admin.Expect(context.Background(), 200, "PATCH", "/teams/"+tm.ID, map[string]any{"join_approval_required": false}, &patched))
	require.False(t, patched.JoinApprovalRequired)
	const p5 = "+12025550705"
	joined := eventCount(t, tm.ID, "member.joined")
	text(t, env.admin, db, p5, tm.Number, "JOIN")
	text(t, env.admin, db, p5, tm.Number, "Alex Kim")
	welcome := waitAnswers(t, env.admin, tm.ID, p5, 2)[1]
	require.Contains(t, welcome, "welcome, Alex Kim")
	m5 := joinedMembers(t, api, p5)
	require.Len(t, m5, 1)
	require.Equal(t, "active", m5[0].Status)
	require.Equal(t, joined+1, eventCount(t, tm.ID, "member.joined"))

	// None of the answers was charged or is a broadcast; every text was
	// filed and listed.
	require.Equal(t, 0, messageCount(t, db, tm.ID))
	require.Equal(t, 11, countRowsIn(t, db, `SELECT count(*) FROM messaging_replies WHERE team_id = $1 AND kind = 'join'`, tm.ID), "one answer per step")
	var credits struct {
		CreditsUsed int `json:"credits_used"`
	}
	require.NoError(t, env.admin.Expect(context.Background(), 200, "GET", "/teams/"+tm.ID, nil, &credits))
	require.Zero(t, credits.CreditsUsed, "join answers are not charged")
	require.Len(t, listInbound(t, api, "/inbound-messages?limit=200"), 15)
}

// TestJoinByTextExpires: a conversation left half-way expires after 24 h;
// the late name is an ordinary text, and a new keyword starts again.
func TestJoinByTextExpires(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "join_expiry")
	f, api := c.team(t, harness.TeamOptions{})
	tm := joinTeamOn(t, c.admin, f, api)
	const p = "+12025550711"
	text(t, c.admin, c.url, p, tm.Number, "JOIN")
	waitAnswers(t, c.admin, tm.ID, p, 1)
	c.advance(t, 24*time.Hour+time.Minute)
	text(t, c.admin, c.url, p, tm.Number, "Late Larry")
	require.Equal(t, 1, conversations(t, c.url, tm.ID, p, "expired"))
	require.Empty(t, joinedMembers(t, api, p))
	require.Len(t, answersTo(t, c.admin, tm.ID, p), 1, "no answer to a text that is no longer a step")
	// Starting again works.
	text(t, c.admin, c.url, p, tm.Number, "join")
	waitAnswers(t, c.admin, tm.ID, p, 2)
	text(t, c.admin, c.url, p, tm.Number, "Larry Late")
	waitAnswers(t, c.admin, tm.ID, p, 3)
	require.Len(t, joinedMembers(t, api, p), 1)
}

// signUpCode waits for a sign-up code texted to phone.
func signUpCode(t testing.TB, teamID, phone string) string {
	t.Helper()
	var code string
	waitFor(t, 30*time.Second, func() bool {
		for _, b := range answersTo(t, env.admin, teamID, phone) {
			if strings.Contains(b, "sign-up code") {
				code = sixDigits.FindString(b)
			}
		}
		return code != ""
	})
	return code
}

// signUpInBrowser fills the sign-up form and answers the page after "Sign up".
func signUpInBrowser(t *testing.T, tab context.Context, tm joinTeamInfo, name, phone string) string {
	t.Helper()
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(env.svc.PublicURL+"/join/"+tm.Code)))
	h1, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("h1")))
	require.NoError(t, err)
	require.Equal(t, "Join "+tm.Name, h1)
	label, err := chromedp.Run(tab, chromedp.Text(chromedp.ID("consent-label")))
	require.NoError(t, err)
	for _, want := range []string{tm.Name, "Msg frequency varies", "Msg & data rates may apply", "STOP to opt out"} {
		require.Contains(t, label, want, "the consent box carries the disclosure")
	}
	require.NoError(t, chromedp.Do(tab,
		chromedp.SendKeys(chromedp.ID("name"), name),
		chromedp.SendKeys(chromedp.ID("phone"), harness.National(phone)),
		chromedp.Click(chromedp.ID("role-guardian")),
		chromedp.Click(chromedp.ID("consent"))))
	_, err = chromedp.RunResponse(tab, chromedp.Click(`//button[normalize-space()="Sign up"]`))
	require.NoError(t, err)
	page, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("main")))
	require.NoError(t, err)
	return page
}

// TestJoinWebSignUp: the sign-up page in a real browser: a wrong code,
// then the right one; the answer to "Sign up" is the same for a number on
// the roster; an unknown team code is 404.
func TestJoinWebSignUp(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	tm := joinTeamOn(t, env.admin, f, api)
	const known, unknown = "+12025550721", "+12025550722"
	addMember(t, api, map[string]any{"name": "Known Kim", "phone": known})

	tab := chrome(t).NewTab(t)
	fresh := signUpInBrowser(t, tab, tm, "Robin Web", unknown)
	require.Contains(t, fresh, "We texted a 6-digit code")
	code := signUpCode(t, tm.ID, unknown)
	wrong := fmt.Sprintf("%06d", (atoi(t, code)+1)%1_000_000)
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("code"), wrong)))
	_, err := chromedp.RunResponse(tab, chromedp.Click(`//button[normalize-space()="Confirm"]`))
	require.NoError(t, err)
	msg, err := chromedp.Run(tab, chromedp.Text(chromedp.ID("join-error")))
	require.NoError(t, err)
	require.Contains(t, msg, "That code is not right")
	require.Empty(t, joinedMembers(t, api, unknown), "a wrong code adds nobody")
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("code"), code)))
	_, err = chromedp.RunResponse(tab, chromedp.Click(`//button[normalize-space()="Confirm"]`))
	require.NoError(t, err)
	done, err := chromedp.Run(tab, chromedp.Text(chromedp.ID("join-done")))
	require.NoError(t, err)
	require.Contains(t, done, "A coach will approve")
	ms := joinedMembers(t, api, unknown)
	require.Len(t, ms, 1)
	require.Equal(t, "Robin Web", ms[0].Name)
	require.Equal(t, "guardian", ms[0].Role)
	require.Equal(t, "pending", ms[0].Status)
	mc := getConsent(t, api, "/members/"+ms[0].ID+"/consent")
	require.Equal(t, "web_signup", mc.Data.Consent.Source)
	for _, want := range []string{"/join/" + tm.Code, "disclosure join-web-", "client address "} {
		require.Contains(t, *mc.Data.Consent.Evidence, want)
	}
	require.Equal(t, "web", mc.Data.History[0].Channel)

	// A number on the roster: the same answer (but for the masked number
	// shown), no code, a text saying it is on the roster already.
	tab2 := chrome(t).NewTab(t)
	listed := signUpInBrowser(t, tab2, tm, "Known Kim", known)
	require.Equal(t, strings.ReplaceAll(fresh, unknown[len(unknown)-4:], "NNNN"), strings.ReplaceAll(listed, known[len(known)-4:], "NNNN"))
	waitFor(t, 30*time.Second, func() bool { return len(answersTo(t, env.admin, tm.ID, known)) == 1 })
	require.Contains(t, answersTo(t, env.admin, tm.ID, known)[0], "already on the roster")
	require.Len(t, joinedMembers(t, api, known), 1)

	// On a phone, without JavaScript: the page fits, every control has a
	// label, and signing up still works.
	phone := chrome(t).NewTab(t, browser.Viewport(390, 844), browser.JavaScriptDisabled())
	require.NoError(t, chromedp.Do(phone, chromedp.Navigate(env.svc.PublicURL+"/join/"+tm.Code)))
	wide, err := browser.HasHorizontalScroll(phone)
	require.NoError(t, err)
	require.False(t, wide, "the sign-up page scrolls sideways at 390 px")
	unlabelled, err := chromedp.Run(phone, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("input,select,textarea"))
  .filter(e => e.type !== "hidden")
  .filter(e => !(e.id && document.querySelector('label[for="' + e.id + '"]')) && !e.closest("label"))
  .map(e => e.name || e.outerHTML)`))
	require.NoError(t, err)
	require.Empty(t, unlabelled)
	require.Contains(t, signUpInBrowser(t, phone, tm, "Noel Nojs", "+12025550723"), "We texted a 6-digit code")

	// An unknown team code is the 404 page.
	resp, err := http.Get(env.svc.PublicURL + "/join/no-such-team-code")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	_, err := fmt.Sscanf(s, "%d", &n)
	require.NoError(t, err)
	return n
}

// TestJoinApprovalInSettings: Settings › Joining shows the sign-up page
// and keywords, and turns join_approval_required off and on again.
func TestJoinApprovalInSettings(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "head_coach")
	h := newHTTPSession(t)
	h.signIn(s)
	approval := func() bool {
		var team struct {
			JoinApprovalRequired bool `json:"join_approval_required"`
		}
		require.NoError(t, env.admin.Expect(context.Background(), 200, "GET", "/teams/"+s.teamID, nil, &team))
		return team.JoinApprovalRequired
	}
	resp, page := h.get("/app/settings")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, page, "/join/")
	require.Contains(t, page, `id="join-approval" name="join_approval_required" type="checkbox" value="yes" checked`)
	resp, _ = h.post("/app/settings/joining", url.Values{"csrf": {csrfOf(t, page)}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.False(t, approval(), "the box left unticked")
	_, page = h.get("/app/settings")
	require.NotContains(t, page, `value="yes" checked`)
	resp, _ = h.post("/app/settings/joining", url.Values{"csrf": {csrfOf(t, page)}, "join_approval_required": {"yes"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.True(t, approval())
	require.Equal(t, 2, countRows(t, `SELECT count(*) FROM roster_activity WHERE team_id = $1 AND action = 'changed joining'`, s.teamID))
}

// TestJoinWebSignUpRefusals: over plain HTTP, the sign-up form's
// refusals: no CSRF token, the consent box unticked, a bad phone, and the
// per-phone throttle; none sends a code or adds anyone.
func TestJoinWebSignUpRefusals(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	tm := joinTeamOn(t, env.admin, f, api)
	h := newHTTPSession(t)
	resp, page := h.get("/join/" + tm.Code)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	require.NotEmpty(t, resp.Header.Get("Content-Security-Policy"))
	csrf := csrfOf(t, page)
	const ph = "+12025550731"
	form := func(extra url.Values) url.Values {
		v := url.Values{"csrf": {csrf}, "name": {"Rae Form"}, "phone": {harness.National(ph)}, "role": {"athlete"}, "consent": {"yes"}}
		for k, x := range extra {
			v[k] = x
		}
		return v
	}
	resp, _ = h.post("/join/"+tm.Code, form(url.Values{"csrf": {"forged"}}))
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "CSRF")
	resp, page = h.post("/join/"+tm.Code, form(url.Values{"consent": nil}))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, page, "Tick the box")
	resp, page = h.post("/join/"+tm.Code, form(url.Values{"phone": {"12"}}))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, page, "US mobile number")
	resp, page = h.post("/join/"+tm.Code, form(url.Values{"name": {"Rae\x00Form"}}))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "a NUL is refused before Postgres")
	require.Contains(t, page, "Enter your name")
	resp, _ = h.post("/join/"+tm.Code, form(url.Values{"name": {"Rae\xffForm"}}))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "not UTF-8")
	resp, _ = h.post("/join/"+tm.Code, form(url.Values{"role": {"head_coach"}}))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Equal(t, 0, countRows(t, `SELECT count(*) FROM roster_join_codes WHERE team_id = $1`, tm.ID), "refusals send no code")
	for range 3 {
		resp, _ = h.post("/join/"+tm.Code, form(nil))
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	resp, page = h.post("/join/"+tm.Code, form(nil))
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "three sign-ups per number in 10 minutes")
	require.Contains(t, page, "Too many sign-ups")
	require.Equal(t, 3, countRows(t, `SELECT count(*) FROM roster_join_codes WHERE team_id = $1 AND phone = $2`, tm.ID, ph))
	require.Empty(t, joinedMembers(t, api, ph))
	resp, _ = h.get("/join/" + tm.Code + "/elsewhere")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}
