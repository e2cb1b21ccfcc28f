package jobsui_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/jobsui"
	"github.com/teamtext/teamtext/platform/metrics"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

const token = "river-ui-test-admin-token"

type parkedArgs struct{}

func (parkedArgs) Kind() string { return "test.parked" }

// env is the UI over a migrated database holding one job scheduled far
// ahead (nothing works it), served by an httptest server.
type env struct {
	srv   *httptest.Server
	d     *db.DB
	clk   *clock.Fake
	jobID int64
}

func newEnv(t *testing.T, actions bool) *env {
	t.Helper()
	ctx := context.Background()
	d := server.Migrated(t, db.PlatformMigrations())
	log := slog.New(slog.DiscardHandler)
	j, err := jobs.New(d, clock.Real{}, log, jobs.Options{})
	require.NoError(t, err)
	r, err := jobs.NewRunner(j, []jobs.Registration{func(w *river.Workers) {
		river.AddWorker(w, river.WorkFunc(func(context.Context, *river.Job[parkedArgs]) error { return nil }))
	}}, metrics.New(), jobs.Options{})
	require.NoError(t, err)
	e := &env{d: d, clk: clock.NewFake(time.Now())}
	require.NoError(t, d.Tx(ctx, func(ctx context.Context) error {
		res, err := j.Insert(ctx, parkedArgs{}, &river.InsertOpts{ScheduledAt: time.Now().Add(24 * time.Hour)})
		if err == nil {
			e.jobID = res.Job.ID
		}
		return err
	}))
	ui, err := jobsui.New(r.Client(), jobsui.Options{Token: token, Actions: actions, Clock: e.clk, Log: log})
	require.NoError(t, err)
	require.NoError(t, ui.Start(ctx))
	t.Cleanup(func() { _ = ui.Stop(ctx) })
	mux := http.NewServeMux()
	ui.Mount(mux)
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	return e
}

type call struct {
	method, path, bearer, body string
	cookie                     *http.Cookie
	form                       url.Values
}

func (e *env) do(t *testing.T, c call) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	if c.form != nil {
		body = strings.NewReader(c.form.Encode())
	}
	req, err := http.NewRequest(c.method, e.srv.URL+c.path, body)
	require.NoError(t, err)
	switch {
	case c.form != nil:
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	case c.body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	if c.cookie != nil {
		req.AddCookie(c.cookie)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}

// errorCode reads the admin error envelope's code.
func errorCode(t *testing.T, body string) string {
	t.Helper()
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &env), body)
	return env.Error.Code
}

func (e *env) state(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, e.d.Pool.QueryRow(context.Background(), `SELECT state FROM river_job WHERE id = $1`, e.jobID).Scan(&s))
	return s
}

// TestRiverUIAnswersOnlyTheAdminToken: without the token, with a wrong one
// or a forged cookie, every path is 401 with the admin envelope; with the
// bearer token the UI and its API serve River's jobs.
func TestRiverUIAnswersOnlyTheAdminToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	for _, c := range []call{
		{method: "GET", path: "/admin/river/"},
		{method: "GET", path: "/admin/river/api/jobs?state=scheduled"},
		{method: "GET", path: "/admin/river/api/jobs?state=scheduled", bearer: "not-the-admin-token"},
		{method: "GET", path: "/admin/river/api/jobs?state=scheduled", cookie: &http.Cookie{Name: jobsui.CookieName, Value: token}},
		{method: "GET", path: "/admin/river/api/jobs?state=scheduled", cookie: &http.Cookie{Name: jobsui.CookieName,
			Value: strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10) + ".00ff"}},
		{method: "POST", path: "/admin/river/api/jobs/cancel", body: `{"ids":["1"]}`},
	} {
		res, body := e.do(t, c)
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, "%+v: %s", c, body)
		require.Equal(t, "unauthorized", errorCode(t, body))
		require.Contains(t, body, "/admin/river/sign-in", "the answer says how to get in")
	}

	res, body := e.do(t, call{method: "GET", path: "/admin/river/api/jobs?state=scheduled", bearer: token})
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	require.Contains(t, body, `"kind":"test.parked"`)
	req, err := http.NewRequest("GET", e.srv.URL+"/admin/river/", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Authorization", "Bearer "+token)
	page, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	html, _ := io.ReadAll(page.Body)
	_ = page.Body.Close()
	require.Equal(t, http.StatusOK, page.StatusCode)
	require.Contains(t, string(html), "/admin/river/api", "the page points the UI at its API under the prefix")
}

// TestRiverUISignIn: the form sets a cookie only for the right token; the
// cookie then lets the browser in until it expires.
func TestRiverUISignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	res, body := e.do(t, call{method: "GET", path: "/admin/river/sign-in"})
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, body, `type="password"`)

	res, body = e.do(t, call{method: "POST", path: "/admin/river/sign-in", form: url.Values{"token": {"wrong-token-wrong-token"}}})
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	require.Contains(t, body, "not the admin token")
	require.Empty(t, res.Cookies())

	res, _ = e.do(t, call{method: "POST", path: "/admin/river/sign-in", form: url.Values{"token": {token}}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/admin/river/", res.Header.Get("Location"))
	require.Len(t, res.Cookies(), 1)
	c := res.Cookies()[0]
	require.Equal(t, jobsui.CookieName, c.Name)
	require.True(t, c.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, c.SameSite)
	require.Equal(t, "/admin/river/", c.Path)
	require.NotContains(t, c.Value, token, "the cookie holds no secret")

	res, body = e.do(t, call{method: "GET", path: "/admin/river/api/jobs?state=scheduled", cookie: c})
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	require.Contains(t, body, `"kind":"test.parked"`)

	e.clk.Advance(jobsui.CookieLifetime + time.Second)
	res, body = e.do(t, call{method: "GET", path: "/admin/river/api/jobs?state=scheduled", cookie: c})
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, "an expired sign-in: %s", body)
}

// TestRiverUIIsReadOnlyUnlessActionsAreAllowed: with actions off a cancel
// is 403 and the job stays scheduled; with RIVER_UI_ACTIONS it cancels.
func TestRiverUIIsReadOnlyUnlessActionsAreAllowed(t *testing.T) {
	t.Parallel()
	off := newEnv(t, false)
	cancel := call{method: "POST", path: "/admin/river/api/jobs/cancel", bearer: token,
		body: `{"ids":["` + strconv.FormatInt(off.jobID, 10) + `"]}`}
	res, body := off.do(t, cancel)
	require.Equal(t, http.StatusForbidden, res.StatusCode, body)
	require.Equal(t, "forbidden", errorCode(t, body))
	require.Contains(t, body, "RIVER_UI_ACTIONS")
	for _, c := range []call{
		{method: "PUT", path: "/admin/river/api/queues/default/pause", bearer: token},
		{method: "PATCH", path: "/admin/river/api/queues/default", bearer: token, body: `{"metadata":{}}`},
		{method: "POST", path: "/admin/river/api/jobs/delete", bearer: token, body: `{"ids":["1"]}`},
	} {
		res, body := off.do(t, c)
		require.Equal(t, http.StatusForbidden, res.StatusCode, "%s %s: %s", c.method, c.path, body)
	}
	require.Equal(t, "scheduled", off.state(t))

	on := newEnv(t, true)
	cancel.body = `{"ids":["` + strconv.FormatInt(on.jobID, 10) + `"]}`
	res, body = on.do(t, cancel)
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	require.Equal(t, "cancelled", on.state(t))
}
