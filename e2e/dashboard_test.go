package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/browser"
	"github.com/teamtext/teamtext/e2e/harness"
)

// The staff dashboard (DASHBOARD.md), driven in a real browser and, for
// the headers and refusals a browser hides, over plain HTTP.

var (
	chromiumOnce sync.Once
	chromium     *browser.Browser
	chromiumErr  error
)

// chrome is the test binary's one browser, started by the first test that
// needs it and closed by TestMain.
func chrome(t *testing.T) *browser.Browser {
	t.Helper()
	chromiumOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		chromium, chromiumErr = browser.Launch(ctx)
	})
	require.NoError(t, chromiumErr)
	return chromium
}

// closeChrome stops the browser if a test started it.
func closeChrome() error {
	if chromium == nil {
		return nil
	}
	return chromium.Close()
}

// staff is a dashboard login on a fresh team with a number.
type staff struct {
	teamID, teamName, memberID, phone string
	api                               *harness.Client // the team's API key (set by newStaff)
	number                            string          // the team's number (set by newStaff)
}

func newStaff(t testing.TB, role string) staff {
	t.Helper()
	f, api := messagingTeam(t, harness.TeamOptions{})
	var team struct {
		Name   string `json:"name"`
		Number string `json:"number"`
	}
	r := do(t, env.admin, "GET", "/teams/"+f.TeamID, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&team))
	s := addStaff(t, f.TeamID, team.Name, role, teamNumber())
	s.api, s.number = api, team.Number
	return s
}

func addStaff(t testing.TB, teamID, teamName, role, phone string) staff {
	t.Helper()
	r := do(t, env.admin, "POST", "/teams/"+teamID+"/members",
		map[string]any{"name": "Dana " + role, "phone": phone, "role": role, "dashboard_login": true})
	require.Equal(t, 201, r.Status, string(r.Body))
	var m struct {
		ID string `json:"id"`
	}
	require.NoError(t, r.Data(&m))
	return staff{teamID: teamID, teamName: teamName, memberID: m.ID, phone: phone}
}

var sixDigits = regexp.MustCompile(`\b(\d{6})\b`)

// codesSent are the sign-in codes texted to phone so far.
func codesSent(t testing.TB, teamID, phone string) map[string]bool {
	return codesSentOn(t, env.admin, teamID, phone)
}

func codesSentOn(t testing.TB, admin *harness.Client, teamID, phone string) map[string]bool {
	t.Helper()
	codes := map[string]bool{}
	for _, e := range outbox(t, admin, teamID) {
		if e["to"] == phone && strings.Contains(fmt.Sprint(e["body"]), "sign-in code") {
			codes[sixDigits.FindString(fmt.Sprint(e["body"]))] = true
		}
	}
	return codes
}

// signInCode waits for a sign-in code texted to phone that is not among
// before (the codes sent earlier).
func signInCode(t testing.TB, teamID, phone string, before map[string]bool) string {
	return signInCodeOn(t, env.admin, teamID, phone, before)
}

func signInCodeOn(t testing.TB, admin *harness.Client, teamID, phone string, before map[string]bool) string {
	t.Helper()
	var code string
	waitFor(t, 20*time.Second, func() bool {
		for c := range codesSentOn(t, admin, teamID, phone) {
			if !before[c] {
				code = c
			}
		}
		return code != ""
	})
	return code
}

// signInBrowser signs s in through the pages, as a person does.
func signInBrowser(t *testing.T, tab context.Context, s staff) {
	t.Helper()
	signInBrowserOn(t, tab, env.svc.PublicURL, env.admin, s)
}

// signInBrowserOn signs s in on the service at base, whose admin API
// (admin) shows the simulator's outbox.
func signInBrowserOn(t *testing.T, tab context.Context, base string, admin *harness.Client, s staff) {
	t.Helper()
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/app/")))
	loc, err := chromedp.Run(tab, chromedp.Location())
	require.NoError(t, err)
	require.Equal(t, base+"/app/sign-in", loc, "signed out: /app/ goes to sign-in")

	before := codesSentOn(t, admin, s.teamID, s.phone)
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("identity"), harness.National(s.phone))))
	_, err = chromedp.RunResponse(tab, chromedp.Click(`//button[normalize-space()="Send code"]`))
	require.NoError(t, err)
	code := signInCodeOn(t, admin, s.teamID, s.phone, before)
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("code"), code)))
	_, err = chromedp.RunResponse(tab, chromedp.Click(`//button[normalize-space()="Sign in"]`))
	require.NoError(t, err)
}

// Sign in with the code from the simulator's outbox; the session cookie
// carries the contract's flags; Sign out ends it.
func TestDashboardSignIn(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "team_director")
	for _, js := range []bool{true, false} {
		t.Run(fmt.Sprintf("javascript=%v", js), func(t *testing.T) {
			var opts []browser.Option
			if !js {
				opts = append(opts, browser.JavaScriptDisabled())
			}
			tab := chrome(t).NewTab(t, opts...)
			signInBrowser(t, tab, s)
			h1, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("h1")))
			require.NoError(t, err)
			require.Equal(t, s.teamName, h1, "Home names the team")
			home, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("main")))
			require.NoError(t, err)
			require.Contains(t, home, s.number, "Home lists the team's sending numbers")

			cookies, err := chromedp.Call(tab, network.GetCookies, network.GetCookiesParams{URLs: []string{env.svc.PublicURL + "/app/"}})
			require.NoError(t, err)
			var session *network.Cookie
			for _, c := range cookies.Cookies {
				if c.Name == "tt_session" {
					session = c
				}
			}
			require.NotNil(t, session)
			require.True(t, session.HTTPOnly)
			require.Equal(t, network.CookieSameSiteLax, session.SameSite)
			require.Equal(t, "/app", session.Path)
			require.False(t, session.Secure, "PUBLIC_BASE_URL is http here")

			_, err = chromedp.RunResponse(tab, chromedp.Click(`//button[normalize-space()="Sign out"]`))
			require.NoError(t, err)
			require.NoError(t, chromedp.Do(tab, chromedp.Navigate(env.svc.PublicURL+"/app/")))
			loc, err := chromedp.Run(tab, chromedp.Location())
			require.NoError(t, err)
			require.Equal(t, env.svc.PublicURL+"/app/sign-in", loc, "signed out")
		})
	}
}

// A person on two teams picks each in turn; the header names the team
// picked, and Messages shows that team's sends only.
func TestDashboardTeamPicker(t *testing.T) {
	t.Parallel()
	a := newStaff(t, "head_coach")
	other := newStaff(t, "coach")
	b := addStaff(t, other.teamID, other.teamName, "team_director", a.phone)
	b.api = other.api
	said := map[string]string{}
	for _, s := range []staff{a, b} {
		said[s.teamID] = "Only for " + s.teamName
		r := do(t, s.api, "POST", "/messages", map[string]any{"text": said[s.teamID], "audience": "staff"})
		require.Equal(t, 201, r.Status, string(r.Body))
	}
	tab := chrome(t).NewTab(t)
	signInBrowser(t, tab, a)
	for _, want := range []staff{b, a} {
		_, err := chromedp.RunResponse(tab, chromedp.Click(fmt.Sprintf(`//main//button[normalize-space()=%q]`, want.teamName)))
		require.NoError(t, err)
		got, err := chromedp.Run(tab, chromedp.Text(chromedp.ID("team-name")))
		require.NoError(t, err)
		require.Equal(t, want.teamName, got)
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(env.svc.PublicURL+"/app/messages")))
		list, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("main")))
		require.NoError(t, err)
		for team, text := range said {
			if team == want.teamID {
				require.Contains(t, list, text)
			} else {
				require.NotContains(t, list, text, "another team's message")
			}
		}
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(env.svc.PublicURL+"/app/")))
	}
}

// httpSession is a cookie-keeping client of the dashboard over plain HTTP.
type httpSession struct {
	t     testing.TB
	c     *http.Client
	base  string          // the service's public URL
	admin *harness.Client // its admin API, where sign-in codes are read
}

// newHTTPSession is a client of the package's shared service.
func newHTTPSession(t testing.TB) *httpSession { return newHTTPSessionOn(t, env.svc, env.admin) }

// newHTTPSessionOn is a client of svc.
func newHTTPSessionOn(t testing.TB, svc *harness.Service, admin *harness.Client) *httpSession {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &httpSession{t: t, base: svc.PublicURL, admin: admin,
		c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (h *httpSession) get(path string) (*http.Response, string) {
	h.t.Helper()
	resp, err := h.c.Get(h.base + path)
	require.NoError(h.t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	resp.Body.Close()
	return resp, string(b)
}

func (h *httpSession) post(path string, form url.Values) (*http.Response, string) {
	h.t.Helper()
	resp, err := h.c.PostForm(h.base+path, form)
	require.NoError(h.t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	resp.Body.Close()
	return resp, string(b)
}

func csrfOf(t testing.TB, page string) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(page)
	require.NotNil(t, m, "the page has a CSRF field")
	return m[1]
}

// signInHTTP signs s in over plain HTTP and returns Home's page.
func (h *httpSession) signIn(s staff) string {
	h.t.Helper()
	before := codesSentOn(h.t, h.admin, s.teamID, s.phone)
	_, page := h.get("/app/sign-in")
	_, page = h.post("/app/sign-in", url.Values{"csrf": {csrfOf(h.t, page)}, "identity": {s.phone}})
	resp, _ := h.post("/app/sign-in/code", url.Values{"csrf": {csrfOf(h.t, page)}, "identity": {s.phone}, "code": {signInCodeOn(h.t, h.admin, s.teamID, s.phone, before)}})
	require.Equal(h.t, http.StatusSeeOther, resp.StatusCode)
	resp, home := h.get("/app/")
	require.Equal(h.t, http.StatusOK, resp.StatusCode)
	return home
}

// Every page carries the security headers; the session cookie's flags;
// a POST without the CSRF token is 403 and changes nothing; the sign-in
// answer is the same for a known and an unknown phone.
func TestDashboardRequestSafety(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "head_coach")
	h := newHTTPSession(t)

	resp, page := h.get("/app/sign-in")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	csp := resp.Header.Get("Content-Security-Policy")
	require.Contains(t, csp, "default-src 'self'")
	require.Contains(t, csp, "frame-ancestors 'none'")
	require.NotContains(t, csp, "unsafe-inline")
	require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
	require.Equal(t, "same-origin", resp.Header.Get("Referrer-Policy"))
	require.Contains(t, page, `<html lang="en">`)

	csrf := csrfOf(t, page)
	_, known := h.post("/app/sign-in", url.Values{"csrf": {csrf}, "identity": {s.phone}})
	stranger := teamNumber()
	_, unknown := h.post("/app/sign-in", url.Values{"csrf": {csrf}, "identity": {stranger}})
	require.Equal(t, strings.ReplaceAll(known, s.phone[1:], "PHONE"), strings.ReplaceAll(unknown, stranger[1:], "PHONE"), // "+" is escaped in the page
		"the same answer whether or not the phone has a login")
	require.Contains(t, known, `id="code"`, "the Code field appears")
	signInCode(t, s.teamID, s.phone, nil) // handed over, so that the sign-in below tells its own code from it

	resp, _ = h.post("/app/sign-in", url.Values{"identity": {s.phone}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "the sign-in form without its token")

	h.signIn(s)
	resp, _ = h.post("/app/sign-out", url.Values{})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "sign-out without the CSRF token")
	resp, _ = h.get("/app/")
	require.Equal(t, http.StatusOK, resp.StatusCode, "and the session is still open")

	r := do(t, env.admin, "PATCH", "/teams/"+s.teamID+"/members/"+s.memberID, map[string]any{"is_blocked": true})
	require.Equal(t, 200, r.Status, string(r.Body))
	resp, _ = h.get("/app/")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "blocked: signed out on the next request")
	require.Equal(t, "/app/sign-in", resp.Header.Get("Location"))
}

// Five wrong codes kill the code.
func TestDashboardWrongCodes(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "coach")
	h := newHTTPSession(t)
	_, page := h.get("/app/sign-in")
	csrf := csrfOf(t, page)
	h.post("/app/sign-in", url.Values{"csrf": {csrf}, "identity": {s.phone}})
	code := signInCode(t, s.teamID, s.phone, nil)
	// The newcomer's way to read it: one CLI command, the number masked.
	exit, stdout, stderr := runCLI(t, "admin", "simulator", "outbox", "--team", s.teamID, "--to", harness.National(s.phone), "--last", "1")
	require.Equal(t, 0, exit, stderr)
	require.Contains(t, stdout, code)
	require.Contains(t, stdout, "***"+s.phone[len(s.phone)-4:])
	require.NotContains(t, stdout, s.phone)
	require.Equal(t, 1, strings.Count(stdout, "\n"), "--last 1: one line")
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	for range 5 {
		resp, _ := h.post("/app/sign-in/code", url.Values{"csrf": {csrf}, "identity": {s.phone}, "code": {wrong}})
		require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	}
	resp, body := h.post("/app/sign-in/code", url.Values{"csrf": {csrf}, "identity": {s.phone}, "code": {code}})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "the right code after five wrong ones: dead")
	require.Contains(t, body, "send a new code")
}
