package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// riverUI sends one request to the service's River UI, without following
// redirects, and returns the answer and its body.
func riverUI(t *testing.T, method, path string, hdr http.Header, body string) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, env.svc.AdminURL+path, rd)
	require.NoError(t, err)
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}

// TestRiverUIOnTheAdminListener: River's UI answers the admin token only
// (401 with the admin envelope and a request id otherwise), serves its page
// and River's jobs with it, takes the sign-in form through the admin
// listener's edge, and refuses actions (the service runs without
// RIVER_UI_ACTIONS).
func TestRiverUIOnTheAdminListener(t *testing.T) {
	t.Parallel()
	bearer := http.Header{"Authorization": {"Bearer " + harness.AdminToken}}

	for _, h := range []http.Header{nil, {"Authorization": {"Bearer not-the-admin-token"}}} {
		res, body := riverUI(t, "GET", "/admin/river/api/jobs?state=completed", h, "")
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, body)
		var envl struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &envl), body)
		require.Equal(t, "unauthorized", envl.Error.Code)
		require.NotEmpty(t, res.Header.Get("X-Request-Id"), "the admin listener's edge answered")
	}
	res, _ := riverUI(t, "GET", "/admin/river/", nil, "")
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, "the page too")

	res, body := riverUI(t, "GET", "/admin/river/api/queues", bearer, "")
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	require.Contains(t, body, `"name":"webhooks"`, "the service's queues, as River's producers registered them")
	page := http.Header{"Authorization": bearer["Authorization"], "Accept": {"text/html"}}
	res, body = riverUI(t, "GET", "/admin/river/", page, "")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, body, "<title>River</title>")

	res, body = riverUI(t, "POST", "/admin/river/api/jobs/retry", http.Header{"Authorization": bearer["Authorization"],
		"Content-Type": {"application/json"}}, `{"ids":["1"]}`)
	require.Equal(t, http.StatusForbidden, res.StatusCode, body)
	require.Contains(t, body, `"code":"forbidden"`)

	form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	res, body = riverUI(t, "POST", "/admin/river/sign-in", form, url.Values{"token": {harness.AdminToken}}.Encode())
	require.Equal(t, http.StatusSeeOther, res.StatusCode, body)
	require.Len(t, res.Cookies(), 1)
	signedIn := http.Header{"Cookie": {res.Cookies()[0].Name + "=" + res.Cookies()[0].Value}}
	res, body = riverUI(t, "GET", "/admin/river/api/queues", signedIn, "")
	require.Equal(t, http.StatusOK, res.StatusCode, "the sign-in cookie lets a browser in: %s", body)
}

// TestRiverUIInTheBrowser: an operator signs in with the admin token in
// the form, and River's UI (its scripts and API under /admin/river/, on
// the cookie) shows the service's queues.
func TestRiverUIInTheBrowser(t *testing.T) {
	t.Parallel()
	tab := chrome(t).NewTab(t)
	base := env.svc.AdminURL + "/admin/river"
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/queues")))
	body, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("body")))
	require.NoError(t, err)
	require.Contains(t, body, "unauthorized", "signed out: the admin envelope")

	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/sign-in")))
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("token"), harness.AdminToken)))
	_, err = chromedp.RunResponse(tab, chromedp.Click(`//button[normalize-space()="Sign in"]`))
	require.NoError(t, err)
	loc, err := chromedp.Run(tab, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(loc, base+"/"), "signed in, the form leads to the UI: %s", loc)

	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/queues")))
	waitFor(t, 30*time.Second, func() bool {
		body, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("body")))
		return err == nil && strings.Contains(body, "webhooks") && strings.Contains(body, "default")
	})
}
