package auth_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/humatest"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

// authn stands in for roster's key statement: it admits every key with
// principal and answers decide's decision for the requests limit.
type authn struct {
	principal auth.Principal
	decide    func(auth.Admission) *ratelimit.Decision
	seen      []auth.Admission
}

func (a *authn) Authenticate(_ context.Context, _ string, adm auth.Admission) (auth.Principal, *ratelimit.Decision, error) {
	a.seen = append(a.seen, adm)
	return a.principal, a.decide(adm), nil
}

type gateBundle struct {
	api   humatest.TestAPI
	authn *authn
	logs  *bytes.Buffer
	db    *db.DB
}

// newGate serves a read, a write and a card-exempt write behind the gate.
func newGate(t *testing.T, a *authn) *gateBundle {
	t.Helper()
	d := server.Migrated(t, db.PlatformMigrations())
	logs := new(bytes.Buffer)
	log := slog.New(slog.NewJSONHandler(logs, nil))
	_, api := humatest.New(t)
	lim := ratelimit.New(d.Pool, clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)))
	api.UseMiddleware(auth.NewGate(api, a, lim, log).Middleware)
	type out struct{ Body struct{ OK bool } }
	ok := func(context.Context, *struct{}) (*out, error) { return &out{Body: struct{ OK bool }{true}}, nil }
	huma.Register(api, huma.Operation{OperationID: "read", Method: http.MethodGet, Path: "/read"}, ok)
	huma.Register(api, huma.Operation{OperationID: "write", Method: http.MethodPost, Path: "/write"}, ok)
	huma.Register(api, httpapi.WithAccess(huma.Operation{OperationID: "exempt", Method: http.MethodPost, Path: "/exempt"},
		httpapi.Access{AnyPlan: true, NoCard: true}), ok)
	return &gateBundle{api: api, authn: a, logs: logs, db: d}
}

func (b *gateBundle) do(method, path string) *http.Response {
	key, _, _, _ := auth.NewKey()
	return b.api.Do(method, path, "Authorization: Bearer "+key).Result()
}

func (b *gateBundle) buckets(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM platform_rate_limits`).Scan(&n))
	return n
}

var principal = auth.Principal{TeamID: "team_1", KeyID: "key_1", MemberID: "mem_1",
	Account: auth.AccountAccess{Plan: "team_plus", APIIncluded: true, CardOnFile: true}}

// TestGateAsksForWhatTheOperationNeeds: the key's statement is told the
// bucket and what the operation needs, so it counts only what may proceed.
func TestGateAsksForWhatTheOperationNeeds(t *testing.T) {
	t.Parallel()
	allowed := &ratelimit.Decision{Allowed: true, Rules: []ratelimit.RuleState{{Rule: auth.RequestPolicy[0], Remaining: 7, Reset: 30 * time.Second}}}
	b := newGate(t, &authn{principal: principal, decide: func(auth.Admission) *ratelimit.Decision { return allowed }})
	for _, path := range []string{"/read", "/write", "/exempt"} {
		method := http.MethodPost
		if path == "/read" {
			method = http.MethodGet
		}
		r := b.do(method, path)
		require.Equal(t, http.StatusOK, r.StatusCode, path)
		require.Equal(t, `"requests";r=7;t=30`, r.Header.Get("RateLimit"), "%s: the statement's decision", path)
	}
	require.Len(t, b.authn.seen, 3)
	for _, adm := range b.authn.seen {
		require.Equal(t, "requests:", adm.Bucket)
	}
	require.False(t, b.authn.seen[0].AnyPlan)
	require.False(t, b.authn.seen[0].NeedCard, "a read needs no card")
	require.False(t, b.authn.seen[1].AnyPlan)
	require.True(t, b.authn.seen[1].NeedCard, "a write needs a card")
	require.True(t, b.authn.seen[2].AnyPlan)
	require.False(t, b.authn.seen[2].NeedCard, "a card-exempt write")
	require.Zero(t, b.buckets(t), "no statement of the gate's own")
}

// TestGateRefusesWhatTheStatementRefused: a refusal in the key's
// statement is a 429 with Retry-After and the limit's headers.
func TestGateRefusesWhatTheStatementRefused(t *testing.T) {
	t.Parallel()
	refused := &ratelimit.Decision{Allowed: false, RetryAfter: 12500 * time.Millisecond,
		Rules: []ratelimit.RuleState{{Rule: auth.RequestPolicy[0], Remaining: 0, Reset: 40 * time.Second}}}
	b := newGate(t, &authn{principal: principal, decide: func(auth.Admission) *ratelimit.Decision { return refused }})
	r := b.do(http.MethodGet, "/read")
	require.Equal(t, http.StatusTooManyRequests, r.StatusCode)
	require.Equal(t, "13", r.Header.Get("Retry-After"))
	require.Equal(t, `"requests";q=120;w=60`, r.Header.Get("RateLimit-Policy"))
	require.Equal(t, `"requests";r=0;t=40`, r.Header.Get("RateLimit"))
}

// TestGateChecksTheLimitWhenTheStatementDidNot: if the statement's
// conditions and the gate's checks ever disagree (a bug), an admitted
// request is still counted, by the limiter's own statement, and a person
// is told; a request the gate refuses is not counted.
func TestGateChecksTheLimitWhenTheStatementDidNot(t *testing.T) {
	t.Parallel()
	a := &authn{principal: principal, decide: func(auth.Admission) *ratelimit.Decision { return nil }}
	b := newGate(t, a)
	r := b.do(http.MethodGet, "/read")
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.Equal(t, `"requests";r=119;t=60`, r.Header.Get("RateLimit"))
	require.Equal(t, 1, b.buckets(t))
	require.Contains(t, b.logs.String(), `"level":"WARN"`)
	require.Contains(t, b.logs.String(), "did not check the request limit")

	a.principal.Account.APIIncluded = false
	b.logs.Reset()
	r = b.do(http.MethodGet, "/read")
	require.Equal(t, http.StatusForbidden, r.StatusCode)
	require.Empty(t, r.Header.Get("RateLimit"))
	require.NotContains(t, b.logs.String(), "WARN")
	var pos int
	require.NoError(t, b.db.Pool.QueryRow(context.Background(), `SELECT pos FROM platform_rate_limits WHERE bucket = 'requests:key_1'`).Scan(&pos))
	require.Equal(t, 120, pos, "the refused request was not counted: one hit, written as the ring's last slot")
}
