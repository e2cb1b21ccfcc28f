package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

func getTeam(t *testing.T, c *harness.Client) *harness.Response {
	t.Helper()
	r, err := c.Do(context.Background(), http.MethodGet, "/team", nil)
	require.NoError(t, err)
	return r
}

func requireCode(t *testing.T, r *harness.Response, status int, code string) {
	t.Helper()
	require.Equal(t, status, r.Status, string(r.Body))
	require.Equal(t, code, r.ErrorCode(), string(r.Body))
}

func patchMember(t *testing.T, f *harness.Fixture, memberID string, body map[string]any) {
	t.Helper()
	require.NoError(t, env.admin.Expect(context.Background(), 200, "PATCH", "/teams/"+f.TeamID+"/members/"+memberID, body, nil))
}

func patchTeam(t *testing.T, teamID string, body map[string]any) {
	t.Helper()
	require.NoError(t, env.admin.Expect(context.Background(), 200, "PATCH", "/teams/"+teamID, body, nil))
}

// The API-key rows of the spec's state table.
func TestKeyRevokedWhenCreatorDemoted(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	require.Equal(t, 200, getTeam(t, api).Status)
	patchMember(t, f, f.CoachID, map[string]any{"role": "coach"})
	requireCode(t, getTeam(t, api), 401, "invalid_key")
	patchMember(t, f, f.CoachID, map[string]any{"role": "head_coach"})
	requireCode(t, getTeam(t, api), 401, "invalid_key") // restoring the role does not restore the key

	var keys []map[string]any
	require.NoError(t, env.admin.Expect(context.Background(), 200, "GET", "/teams/"+f.TeamID+"/api-keys", nil, &keys))
	require.Len(t, keys, 1)
	require.NotNil(t, keys[0]["revoked_at"])
	require.Equal(t, "creator_role_changed", keys[0]["revoked_reason"])
}

func TestKeyRevokedWhenCreatorLosesBroadcastPermission(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	patchMember(t, f, f.CoachID, map[string]any{"can_send_broadcasts": false})
	requireCode(t, getTeam(t, api), 401, "invalid_key")
	patchMember(t, f, f.CoachID, map[string]any{"can_send_broadcasts": true})
	requireCode(t, getTeam(t, api), 401, "invalid_key")
}

func TestTeamDirectorKeyAndHeadCoachToDirectorKeepsKey(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	patchMember(t, f, f.CoachID, map[string]any{"role": "team_director"}) // still a key owner
	require.Equal(t, 200, getTeam(t, api).Status)
}

func TestKeyOnlyForHeadCoachOrTeamDirector(t *testing.T) {
	t.Parallel()
	f, _ := newTeam(t, harness.TeamOptions{})
	ctx := context.Background()
	for _, role := range []string{"coach", "board_member", "athlete"} {
		var m struct {
			ID string `json:"id"`
		}
		require.NoError(t, env.admin.Expect(ctx, 201, "POST", "/teams/"+f.TeamID+"/members",
			map[string]any{"name": "M " + role, "phone": "2025550142", "role": role}, &m))
		r, err := env.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/api-keys", map[string]any{"member_id": m.ID, "name": "x"})
		require.NoError(t, err)
		requireCode(t, r, 403, "forbidden")
	}
	// A head coach without broadcast permission cannot create one either.
	var hc struct {
		ID string `json:"id"`
	}
	require.NoError(t, env.admin.Expect(ctx, 201, "POST", "/teams/"+f.TeamID+"/members",
		map[string]any{"name": "HC2", "phone": "2025550143", "role": "head_coach", "can_send_broadcasts": false}, &hc))
	r, err := env.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/api-keys", map[string]any{"member_id": hc.ID, "name": "x"})
	require.NoError(t, err)
	requireCode(t, r, 403, "forbidden")
}

func TestBlockedCreator(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	patchMember(t, f, f.CoachID, map[string]any{"is_blocked": true})
	requireCode(t, getTeam(t, api), 403, "sender_blocked") // reads included
	patchMember(t, f, f.CoachID, map[string]any{"is_blocked": false})
	require.Equal(t, 200, getTeam(t, api).Status) // works again once unblocked
}

func TestDashboardRevokeOnAnyPlan(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{Plan: "free", CardOnFile: new(bool)})
	requireCode(t, getTeam(t, api), 403, "plan_required")
	var k map[string]any
	require.NoError(t, env.admin.Expect(context.Background(), 200, "DELETE", "/teams/"+f.TeamID+"/api-keys/"+f.KeyID, nil, &k))
	require.NotNil(t, k["revoked_at"])
	require.Equal(t, "revoked", k["revoked_reason"])
	requireCode(t, getTeam(t, api), 401, "invalid_key")
	// Revoking again answers the key as it is.
	require.NoError(t, env.admin.Expect(context.Background(), 200, "DELETE", "/teams/"+f.TeamID+"/api-keys/"+f.KeyID, nil, nil))
	// Another team's key id is not found.
	g, _ := newTeam(t, harness.TeamOptions{})
	r, err := env.admin.Do(context.Background(), "DELETE", "/teams/"+f.TeamID+"/api-keys/"+g.KeyID, nil)
	require.NoError(t, err)
	requireCode(t, r, 404, "not_found")
}

func TestTeamGatesAndCheckOrder(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	patchTeam(t, f.TeamID, map[string]any{"locked": true})
	requireCode(t, getTeam(t, api), 403, "team_locked")
	patchTeam(t, f.TeamID, map[string]any{"disabled": true})
	requireCode(t, getTeam(t, api), 403, "team_disabled") // disabled is checked before locked
	patchMember(t, f, f.CoachID, map[string]any{"is_blocked": true})
	requireCode(t, getTeam(t, api), 403, "sender_blocked") // the key owner before the team
	patchMember(t, f, f.CoachID, map[string]any{"is_blocked": false})
	patchTeam(t, f.TeamID, map[string]any{"disabled": false, "locked": false, "plan": "team"})
	requireCode(t, getTeam(t, api), 403, "plan_required")
	patchTeam(t, f.TeamID, map[string]any{"disabled": true})
	requireCode(t, getTeam(t, api), 403, "team_disabled") // team state before plan
	patchTeam(t, f.TeamID, map[string]any{"disabled": false, "plan": "organization_season"})
	require.Equal(t, 200, getTeam(t, api).Status)
}

func TestPlans(t *testing.T) {
	t.Parallel()
	for plan, ok := range map[string]bool{
		"free": false, "free_season": false, "team": false, "team_season": false,
		"team_plus": true, "team_plus_season": true, "organization": true, "business": true, "business_season": true,
	} {
		_, api := newTeam(t, harness.TeamOptions{Plan: plan})
		r := getTeam(t, api)
		if ok {
			require.Equal(t, 200, r.Status, plan)
		} else {
			requireCode(t, r, 403, "plan_required")
		}
	}
}

// TestRequestLimitAcrossNodes: 300 requests with one key, spread over two
// nodes sharing the database, within one minute: exactly 120 succeed.
func TestRequestLimitAcrossNodes(t *testing.T) {
	t.Parallel()
	f, _ := newTeam(t, harness.TeamOptions{})
	second := startService(t)
	nodes := []*harness.Client{
		harness.NewClient(env.svc.PublicURL+"/api/v1", f.Key),
		harness.NewClient(second.PublicURL+"/api/v1", f.Key),
	}
	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var sample *harness.Response
	for w := 0; w < 10; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				r, err := nodes[(w+i)%2].Do(context.Background(), "GET", "/team", nil)
				if err != nil {
					t.Error(err)
					return
				}
				switch r.Status {
				case 200:
					ok.Add(1)
				case 429:
					limited.Add(1)
					mu.Lock()
					sample = r
					mu.Unlock()
				default:
					t.Errorf("status %d: %s", r.Status, r.Body)
				}
			}
		}(w)
	}
	wg.Wait()
	require.EqualValues(t, 120, ok.Load())
	require.EqualValues(t, 180, limited.Load())
	requireCode(t, sample, 429, "rate_limited")
	require.NotEmpty(t, sample.Header.Get("Retry-After"))
	require.Equal(t, `"requests";q=120;w=60`, sample.Header.Get("RateLimit-Policy"))
	require.Contains(t, sample.Header.Get("RateLimit"), `"requests";r=0;t=`)
}

func TestRateLimitHeadersOnEveryResponse(t *testing.T) {
	t.Parallel()
	_, api := newTeam(t, harness.TeamOptions{})
	r := getTeam(t, api)
	require.Equal(t, 200, r.Status)
	require.Equal(t, `"requests";q=120;w=60`, r.Header.Get("RateLimit-Policy"))
	require.Regexp(t, `^"requests";r=119;t=(59|60)$`, r.Header.Get("RateLimit"))
}

// TestRefusedRequestsSpendNothing: the gate's one statement counts a
// request against its key's limit only when the request may proceed. A
// refused request (team locked or disabled, creator blocked, plan below
// Team Plus, a write without a card) spends none of the key's 120 a
// minute, nor does a stranger presenting the key's lookup prefix with
// another secret.
func TestRefusedRequestsSpendNothing(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	remaining := func() string {
		t.Helper()
		r := getTeam(t, api)
		require.Equal(t, 200, r.Status, string(r.Body))
		return r.Header.Get("RateLimit")
	}
	require.Regexp(t, `^"requests";r=119;`, remaining())

	patchTeam(t, f.TeamID, map[string]any{"locked": true})
	requireCode(t, getTeam(t, api), 403, "team_locked")
	patchTeam(t, f.TeamID, map[string]any{"locked": false, "disabled": true})
	requireCode(t, getTeam(t, api), 403, "team_disabled")
	patchTeam(t, f.TeamID, map[string]any{"disabled": false, "plan": "team"})
	requireCode(t, getTeam(t, api), 403, "plan_required")
	patchTeam(t, f.TeamID, map[string]any{"plan": "team_plus", "card_on_file": false})
	r, err := api.Do(context.Background(), http.MethodPost, "/members", map[string]any{"name": "Spend Nothing", "phone": "2025550199"})
	require.NoError(t, err)
	requireCode(t, r, 403, "card_required")
	patchTeam(t, f.TeamID, map[string]any{"card_on_file": true})
	patchMember(t, f, f.CoachID, map[string]any{"is_blocked": true})
	requireCode(t, getTeam(t, api), 403, "sender_blocked")
	patchMember(t, f, f.CoachID, map[string]any{"is_blocked": false})
	stranger := f.Key[:len(f.Key)-4] + "0000"
	if stranger == f.Key {
		stranger = f.Key[:len(f.Key)-4] + "1111"
	}
	requireCode(t, getTeam(t, harness.NewClient(env.svc.PublicURL+"/api/v1", stranger)), 401, "invalid_key")

	require.Regexp(t, `^"requests";r=118;`, remaining(), "the refused requests spent nothing")
}

// TestIPLimitAndWindowFollowsTestClock runs on its own database (the IP
// bucket is shared by every test from 127.0.0.1) with the test clock.
func TestIPLimitAndWindowFollowsTestClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := freshDatabase(t, "ip_limit")
	a := startServiceOn(t, url, "CLOCK=test")
	b := startServiceOn(t, url, "CLOCK=test")
	anon := []*harness.Client{harness.NewClient(a.PublicURL+"/api/v1", ""), harness.NewClient(b.PublicURL+"/api/v1", "tt_live_"+"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")}
	counts := map[int]int{}
	for i := 0; i < 70; i++ {
		r, err := anon[i%2].Do(ctx, "GET", "/team", nil)
		require.NoError(t, err)
		counts[r.Status]++
		if r.Status == 429 {
			require.Equal(t, "rate_limited", r.ErrorCode())
			require.Equal(t, `"unauthenticated";q=60;w=60`, r.Header.Get("RateLimit-Policy"))
		}
	}
	require.Equal(t, map[int]int{401: 60, 429: 10}, counts)

	// The window follows the shared test clock: a minute later, 401 again.
	adm := harness.NewClient(a.AdminURL+"/admin/v1", harness.AdminToken)
	require.NoError(t, adm.Expect(ctx, 200, "POST", "/clock/advance", map[string]any{"seconds": 61}, nil))
	// Node b sees the advance within clock.CacheFor (25 ms).
	waitFor(t, 5*time.Second, func() bool {
		r, err := anon[1].Do(ctx, "GET", "/team", nil)
		require.NoError(t, err)
		return r.Status == 401 && r.ErrorCode() == "invalid_key"
	})
}

func TestOpenAPIDocumentsAccess(t *testing.T) {
	t.Parallel()
	r, err := harness.NewClient(env.svc.PublicURL+"/api/v1", "").Do(context.Background(), "GET", "/openapi.json", nil)
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]struct {
			Description string                     `json:"description"`
			Access      map[string]any             `json:"x-teamtext-access"`
			Responses   map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	require.NoError(t, r.JSON(&doc))
	op := doc.Paths["/team"]["get"]
	require.Equal(t, false, op.Access["write"])
	require.Equal(t, false, op.Access["any_plan"])
	require.Contains(t, op.Description, "Plans: Team Plus and above")
	require.Contains(t, op.Responses, "403")
	require.Contains(t, op.Responses, "429")
}

// TestSendAndHeavyLimitsAcrossNodes: sends (20/min) and the heavy pool
// (10/min) hold across two nodes sharing the database.
func TestSendAndHeavyLimitsAcrossNodes(t *testing.T) {
	t.Parallel()
	_, api := messagingTeam(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550501"})
	second := startService(t)
	t.Cleanup(func() { // a 500 says only "retry later": the nodes' logs say why
		if t.Failed() {
			logAlarms(t, "this test's second node", second)
			logAlarms(t, "the suite's node", env.svc)
		}
	})
	key := api.Token
	nodes := []*harness.Client{api, harness.NewClient(second.PublicURL+"/api/v1", key)}
	burst := func(n int, body func(i int) (string, any)) map[int]int {
		var mu sync.Mutex
		out := map[int]int{}
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				path, b := body(i)
				r, err := nodes[i%2].Do(context.Background(), "POST", path, b)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				out[r.Status]++
				mu.Unlock()
			}(i)
		}
		wg.Wait()
		return out
	}
	sends := burst(30, func(i int) (string, any) {
		return "/messages", map[string]any{"text": "Limit test", "audience": "families"}
	})
	require.Equal(t, map[int]int{201: 20, 429: 10}, sends)
	heavy := burst(15, func(i int) (string, any) {
		return "/recipients/validate", map[string]any{"phones": []string{"2025550502"}}
	})
	require.Equal(t, map[int]int{200: 10, 429: 5}, heavy)
}
