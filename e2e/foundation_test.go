package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	postman "github.com/rbretecher/go-postman-collection"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

func TestGetTeam(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	resp, err := api.Do(context.Background(), http.MethodGet, "/team", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.Status, string(resp.Body))
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var team map[string]any
	require.NoError(t, resp.Data(&team))
	require.Equal(t, f.TeamID, team["id"])
	require.Equal(t, "team_plus", team["plan"])
	for _, k := range []string{"name", "code", "number", "plan", "credits_used", "credits_included"} {
		require.Contains(t, team, k)
	}
	require.EqualValues(t, 5000, team["credits_included"])
}

// TestErrorEnvelope checks every edge error of the platform: each answer has
// the spec's status, code and envelope.
func TestErrorEnvelope(t *testing.T) {
	t.Parallel()
	f, _ := newTeam(t, harness.TeamOptions{})
	ctx := context.Background()
	pub := harness.NewClient(env.svc.PublicURL, f.Key)
	adm := harness.NewClient(env.svc.AdminURL, harness.AdminToken)
	const limit = 1 << 20
	exact := `{"name":"` + strings.Repeat("a", limit-len(`{"name":""}`)) + `"}`
	require.Len(t, exact, limit)

	cases := []struct {
		name     string
		client   *harness.Client
		method   string
		path     string
		body     any
		headers  []string
		status   int
		code     string
		checkFor func(t *testing.T, r *harness.Response)
	}{
		{name: "unknown path", client: pub, method: "GET", path: "/api/v1/nothing-here", status: 404, code: "not_found"},
		{name: "trailing slash", client: pub, method: "GET", path: "/api/v1/team/", status: 404, code: "not_found"},
		{name: "unknown admin path", client: adm, method: "GET", path: "/admin/v1/nothing", status: 404, code: "not_found"},
		{name: "method not allowed keeps Allow", client: pub, method: "DELETE", path: "/api/v1/team", status: 405, code: "method_not_allowed",
			checkFor: func(t *testing.T, r *harness.Response) { require.Contains(t, r.Header.Get("Allow"), "GET") }},
		{name: "missing content type", client: adm, method: "POST", path: "/admin/v1/teams", body: `{"name":"x"}`, status: 415, code: "unsupported_media_type"},
		{name: "wrong content type", client: adm, method: "POST", path: "/admin/v1/teams", body: `{"name":"x"}`, headers: []string{"Content-Type", "text/plain"}, status: 415, code: "unsupported_media_type"},
		{name: "body one byte over 1 MiB", client: adm, method: "POST", path: "/admin/v1/teams", body: exact + " ", headers: []string{"Content-Type", "application/json"}, status: 413, code: "payload_too_large"},
		{name: "body of exactly 1 MiB is read", client: adm, method: "POST", path: "/admin/v1/teams", body: exact, headers: []string{"Content-Type", "application/json"}, status: 400, code: "invalid_request"},
		{name: "invalid json", client: adm, method: "POST", path: "/admin/v1/teams", body: `{"name":`, headers: []string{"Content-Type", "application/json"}, status: 400, code: "invalid_json"},
		{name: "unknown field", client: adm, method: "POST", path: "/admin/v1/teams", body: `{"name":"x","colour":"red"}`, headers: []string{"Content-Type", "application/json; charset=utf-8"}, status: 400, code: "unknown_field"},
		{name: "wrong type", client: adm, method: "POST", path: "/admin/v1/teams", body: `{"name":5}`, headers: []string{"Content-Type", "application/json"}, status: 400, code: "invalid_request"},
		{name: "limit over 200", client: adm, method: "GET", path: "/admin/v1/teams/" + f.TeamID + "/api-keys?limit=201", status: 400, code: "invalid_request"},
		{name: "limit not a number", client: adm, method: "GET", path: "/admin/v1/teams/" + f.TeamID + "/api-keys?limit=ten", status: 400, code: "invalid_request"},
		{name: "negative offset", client: adm, method: "GET", path: "/admin/v1/teams/" + f.TeamID + "/api-keys?offset=-1", status: 400, code: "invalid_request"},
		{name: "no key", client: harness.NewClient(env.svc.PublicURL, ""), method: "GET", path: "/api/v1/team", status: 401, code: "unauthorized"},
		{name: "garbage header", client: pub, method: "GET", path: "/api/v1/team", headers: []string{"Authorization", "Basic Zm9vOmJhcg=="}, status: 401, code: "unauthorized"},
		{name: "unknown key", client: harness.NewClient(env.svc.PublicURL, "tt_live_"+strings.Repeat("A", 40)), method: "GET", path: "/api/v1/team", status: 401, code: "invalid_key"},
		{name: "admin no token", client: harness.NewClient(env.svc.AdminURL, ""), method: "GET", path: "/admin/v1/clock", status: 401, code: "unauthorized"},
		{name: "admin wrong token", client: harness.NewClient(env.svc.AdminURL, "not-the-token-at-all"), method: "GET", path: "/admin/v1/clock", status: 401, code: "unauthorized"},
		{name: "unknown team", client: adm, method: "GET", path: "/admin/v1/teams/team_nope", status: 404, code: "not_found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := tc.client.Do(ctx, tc.method, tc.path, tc.body, tc.headers...)
			require.NoError(t, err)
			require.Equal(t, tc.status, r.Status, string(r.Body))
			require.Equal(t, "application/json", r.Header.Get("Content-Type"))
			require.Equal(t, tc.code, r.ErrorCode(), string(r.Body))
			var env struct {
				Error map[string]any `json:"error"`
			}
			require.NoError(t, r.JSON(&env))
			require.NotEmpty(t, env.Error["message"])
			require.NotEmpty(t, r.Header.Get("X-Request-Id"))
			if tc.checkFor != nil {
				tc.checkFor(t, r)
			}
		})
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	c := harness.NewClient(env.svc.PublicURL, "")
	r, err := c.Do(context.Background(), "GET", "/healthz", nil, "X-Request-Id", "trace-abc.123")
	require.NoError(t, err)
	require.Equal(t, "trace-abc.123", r.Header.Get("X-Request-Id"))
	r, err = c.Do(context.Background(), "GET", "/healthz", nil, "X-Request-Id", "bad id with spaces")
	require.NoError(t, err)
	require.NotEqual(t, "bad id with spaces", r.Header.Get("X-Request-Id"))
	require.Len(t, r.Header.Get("X-Request-Id"), 24)
}

func TestPagination(t *testing.T) {
	t.Parallel()
	f, _ := newTeam(t, harness.TeamOptions{})
	ctx := context.Background()
	for i := 0; i < 2; i++ { // the fixture made one key already
		require.NoError(t, env.admin.Expect(ctx, 201, "POST", "/teams/"+f.TeamID+"/api-keys", map[string]any{"member_id": f.CoachID, "name": "k"}, nil))
	}
	type page struct {
		Data       []map[string]any `json:"data"`
		Pagination struct {
			Limit      int  `json:"limit"`
			Offset     int  `json:"offset"`
			HasMore    bool `json:"has_more"`
			NextOffset *int `json:"next_offset"`
		} `json:"pagination"`
	}
	r, err := env.admin.Do(ctx, "GET", "/teams/"+f.TeamID+"/api-keys?limit=2", nil)
	require.NoError(t, err)
	var p page
	require.NoError(t, r.JSON(&p))
	require.Len(t, p.Data, 2)
	require.Equal(t, 2, p.Pagination.Limit)
	require.True(t, p.Pagination.HasMore)
	require.NotNil(t, p.Pagination.NextOffset)
	require.Equal(t, 2, *p.Pagination.NextOffset)
	for _, k := range p.Data {
		require.NotContains(t, k, "key", "key values are never listed")
	}

	r, err = env.admin.Do(ctx, "GET", "/teams/"+f.TeamID+"/api-keys?limit=2&offset=2", nil)
	require.NoError(t, err)
	p = page{}
	require.NoError(t, r.JSON(&p))
	require.Len(t, p.Data, 1)
	require.False(t, p.Pagination.HasMore)
	require.Nil(t, p.Pagination.NextOffset)
	require.Contains(t, string(r.Body), `"next_offset":null`)

	r, err = env.admin.Do(ctx, "GET", "/teams/"+f.TeamID+"/api-keys", nil)
	require.NoError(t, err)
	p = page{}
	require.NoError(t, r.JSON(&p))
	require.Equal(t, 50, p.Pagination.Limit, "documented default page size")
}

func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := harness.NewClient(env.svc.PublicURL+"/api/v1", "")

	// The 3.0 variant must validate with an independent loader.
	r, err := c.Do(ctx, "GET", "/openapi-3.0.json", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status)
	loader := openapi3.NewLoader()
	doc30, err := loader.LoadFromData(r.Body)
	require.NoError(t, err)
	require.NoError(t, doc30.Validate(ctx))

	// The 3.1 document loads too, and every operation is fully described.
	r, err = c.Do(ctx, "GET", "/openapi.json", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status)
	doc, err := openapi3.NewLoader().LoadFromData(r.Body)
	require.NoError(t, err)
	require.Equal(t, "3.1.0", doc.OpenAPI)
	require.Contains(t, doc.Components.SecuritySchemes, "bearer")
	require.Equal(t, "bearer", doc.Components.SecuritySchemes["bearer"].Value.Scheme)
	require.NotNil(t, doc.Paths.Find("/team"))
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			require.NotEmpty(t, op.Summary, "%s %s summary", method, path)
			require.NotEmpty(t, op.Description, "%s %s description", method, path)
			require.NotNil(t, op.Responses.Value("401"), "%s %s documents 401", method, path)
			require.NotNil(t, op.Responses.Value("500"), "%s %s documents 500", method, path)
		}
	}
	r, err = c.Do(ctx, "GET", "/openapi.yaml", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status)

	// The admin API has its own document.
	ar, err := harness.NewClient(env.svc.AdminURL+"/admin/v1", "").Do(ctx, "GET", "/openapi.json", nil)
	require.NoError(t, err)
	require.Equal(t, 200, ar.Status)
	adoc, err := openapi3.NewLoader().LoadFromData(ar.Body)
	require.NoError(t, err)
	require.NotNil(t, adoc.Paths.Find("/teams"))
}

func TestPostmanCollection(t *testing.T) {
	t.Parallel()
	r, err := harness.NewClient(env.svc.PublicURL+"/api/v1", "").Do(context.Background(), "GET", "/postman.json", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status)
	col, err := postman.ParseCollection(bytes.NewReader(r.Body))
	require.NoError(t, err)
	require.Equal(t, "https://schema.getpostman.com/json/collection/v2.1.0/collection.json", col.Info.Schema)
	vars := map[string]bool{}
	for _, v := range col.Variables {
		vars[v.Key] = true
	}
	require.True(t, vars["api_key"])
	require.True(t, vars["base_url"])
	require.NotNil(t, col.Auth)
	require.Equal(t, postman.Bearer, col.Auth.Type)
	found := false
	for _, folder := range col.Items {
		for _, it := range folder.Items {
			if it.Request != nil && it.Request.URL != nil && strings.HasSuffix(it.Request.URL.Raw, "/team") {
				found = true
			}
		}
	}
	require.True(t, found, "GET /team is in the collection")
}

// TestHealthAndMetrics: health on the public listener; metrics and Go's
// profiles on the admin listener only.
func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := harness.NewClient(env.svc.PublicURL, "")
	for _, p := range []string{"/healthz", "/readyz"} {
		r, err := c.Do(ctx, "GET", p, nil)
		require.NoError(t, err)
		require.Equal(t, 200, r.Status, p)
	}
	_, _ = c.Do(ctx, "GET", "/api/v1/team", nil)
	r, err := harness.NewClient(env.svc.AdminURL, "").Do(ctx, "GET", "/metrics", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status)
	body := string(r.Body)
	require.Contains(t, body, `teamtext_http_requests_total{api="public",method="GET",route="GET /api/v1/team",status="401"}`)
	require.Contains(t, body, "teamtext_http_request_duration_seconds_bucket")
	require.Contains(t, body, "teamtext_db_pool_max_conns")

	// Go's profiles sit beside the metrics on the admin listener, and only there.
	r, err = harness.NewClient(env.svc.AdminURL, "").Do(ctx, "GET", "/debug/pprof/goroutine?debug=1", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status)
	require.Contains(t, string(r.Body), "goroutine profile:")
	r, err = c.Do(ctx, "GET", "/debug/pprof/goroutine?debug=1", nil)
	require.NoError(t, err)
	require.Equal(t, 404, r.Status, "not on the public listener")
}

// TestReadyzPendingMigrations: a service whose database lacks a migration is
// up (healthz) but not ready (readyz 503), until the migration is applied.
func TestReadyzPendingMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := freshDatabase(t, "readyz_check")
	psql(t, "readyz_check", "DELETE FROM bun_migrations_webhooks; DROP TABLE webhook_events")
	svc := startServiceOn(t, url)
	c := harness.NewClient(svc.PublicURL, "")
	r, err := c.Do(ctx, "GET", "/healthz", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status)
	r, err = c.Do(ctx, "GET", "/readyz", nil)
	require.NoError(t, err)
	require.Equal(t, 503, r.Status, string(r.Body))
	require.Equal(t, "not_ready", r.ErrorCode())

	require.NoError(t, harness.Migrate(ctx, env.bin, url))
	r, err = c.Do(ctx, "GET", "/readyz", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status, string(r.Body))
}

func TestConfigErrorsExitTwo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		env  []string
		want string
	}{
		{[]string{"ADMIN_TOKEN=0123456789abcdef0"}, "DATABASE_URL"},
		{[]string{"DATABASE_URL=mysql://x", "ADMIN_TOKEN=0123456789abcdef0"}, "DATABASE_URL"},
		{[]string{"DATABASE_URL=postgres://x/y"}, "ADMIN_TOKEN"},
		{[]string{"DATABASE_URL=postgres://x/y", "ADMIN_TOKEN=0123456789abcdef0", "ADDR=nonsense"}, "ADDR"},
		{[]string{"DATABASE_URL=postgres://x/y", "ADMIN_TOKEN=0123456789abcdef0", "CLOCK=fast"}, "CLOCK"},
		{[]string{"DATABASE_URL=postgres://x/y", "ADMIN_TOKEN=0123456789abcdef0", "LOG_LEVEL=loud"}, "LOG_LEVEL"},
	}
	for _, tc := range cases {
		cmd := exec.Command(env.bin, "serve")
		cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, tc.env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, tc.want)
		require.Equal(t, 2, ee.ExitCode(), stderr.String())
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		require.Len(t, lines, 1, stderr.String())
		require.Contains(t, lines[0], tc.want)
	}
}

// TestGracefulShutdown: SIGTERM while a request is in flight; the request
// completes and the process exits 0. "In flight" is proven, not assumed:
// with Expect: 100-continue the server answers 100 only once a handler is
// reading the body, and only then is SIGTERM sent.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	pr, pw := io.Pipe()
	got100 := make(chan struct{})
	trace := &httptrace.ClientTrace{Got100Continue: func() { close(got100) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
		"POST", svc.AdminURL+"/admin/v1/teams", pr)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+harness.AdminToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Expect", "100-continue")
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
	type result struct {
		status int
		err    error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := client.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		done <- result{status: resp.StatusCode}
	}()
	code := "g" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "")
	firstHalf := make(chan error, 1)
	go func() {
		_, err := pw.Write([]byte(`{"name":"Graceful","code":"` + code + `",`))
		firstHalf <- err
	}()
	select {
	case <-got100:
	case r := <-done:
		t.Fatalf("request ended before the server read its body: %+v", r)
	case <-time.After(30 * time.Second):
		t.Fatal("no 100 Continue from the server")
	}
	require.NoError(t, <-firstHalf)

	require.NoError(t, svc.Signal(syscallTERM))
	waitFor(t, 20*time.Second, func() bool { return strings.Contains(svc.Logs(), `"http shutting down"`) })

	_, err = pw.Write([]byte(`"time_zone":"Europe/London","plan":"team"}`))
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	res := <-done
	require.NoError(t, res.err)
	require.Equal(t, http.StatusCreated, res.status)
	select {
	case <-svc.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("service did not exit after SIGTERM")
	}
	require.Contains(t, svc.Logs(), `"teamtext stopped"`)
}

// An offset no list can handle is refused with the envelope, never a 500
// (?offset=9223372036854775807 once answered server_error); the
// largest one allowed reads an empty last page.
func TestHugeOffsets(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	ctx := context.Background()
	lists := []struct {
		c    *harness.Client
		path string
		at   int // status at the largest offset allowed
	}{
		{api, "/members", 200}, {api, "/messages", 200}, {api, "/groups", 200}, {api, "/webhooks", 200},
		{api, "/webhooks/whk_none/deliveries", 404}, {api, "/scheduled", 200},
		{env.admin, "/teams/" + f.TeamID + "/api-keys", 200}, {env.admin, "/teams/" + f.TeamID + "/activity", 200},
	}
	for _, l := range lists {
		r, err := l.c.Do(ctx, "GET", l.path+"?offset=9223372036854775807", nil)
		require.NoError(t, err)
		require.Equal(t, 400, r.Status, "%s: %s", l.path, r.Body)
		require.Contains(t, string(r.Body), `"code":"invalid_request"`, l.path)
		r, err = l.c.Do(ctx, "GET", l.path+"?offset=1000000000", nil)
		require.NoError(t, err)
		require.Equal(t, l.at, r.Status, "%s: %s", l.path, r.Body)
		if l.at == 200 {
			require.Contains(t, string(r.Body), `"data":[]`, l.path)
			require.Contains(t, string(r.Body), `"has_more":false`, l.path)
		}
	}
}
