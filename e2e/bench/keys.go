package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/platform/auth"
)

// keyPlan is how many API keys the HTTP scenarios spread their requests
// over, and why.
type keyPlan struct {
	Keys     int
	Quota    int    // requests one key may make per window (0: no limit seen)
	Policy   string // the RateLimit-Policy header as the service sent it
	Explicit bool   // set by -keys
}

// planKeys decides the key count: -keys when set, otherwise enough keys
// that none exceeds the per-key request limit the service announces in its
// RateLimit-Policy header (one key when it announces none). Each scenario
// sends at most its warm-up, one check and its measured run; the scenarios
// run within one window of each other, so they are summed.
func planKeys(ctx context.Context, env *benchEnv, key string, flagKeys, apiScenarios int) (keyPlan, error) {
	resp, err := env.api(key).Do(ctx, http.MethodGet, "/team", nil)
	if err != nil {
		return keyPlan{}, fmt.Errorf("probe GET /api/v1/team: %w", err)
	}
	if resp.Status != http.StatusOK {
		return keyPlan{}, fmt.Errorf("probe GET /api/v1/team: status %d: %s", resp.Status, resp.Body)
	}
	kp := keyPlan{Keys: 1, Policy: resp.Header.Get("RateLimit-Policy")}
	kp.Quota, _ = smallestQuota(kp.Policy)
	if flagKeys > 0 {
		kp.Keys, kp.Explicit = flagKeys, true
		return kp, nil
	}
	if kp.Quota > 0 && apiScenarios > 0 {
		budget := max(1, kp.Quota*9/10) // a margin for the probe and check requests
		kp.Keys = ceilDiv(apiScenarios*(env.warmup+env.requests+1), budget)
	}
	return kp, nil
}

// smallestQuota parses an IETF RateLimit-Policy header such as
// `"requests";q=120;w=60, "heavy";q=10;w=60` and returns the smallest quota
// with its window (0, 0 when there is none).
func smallestQuota(policy string) (quota, window int) {
	for item := range strings.SplitSeq(policy, ",") {
		q, w := 0, 0
		for param := range strings.SplitSeq(item, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(param), "=")
			n, err := strconv.Atoi(strings.TrimSpace(v))
			switch {
			case err != nil:
			case k == "q":
				q = n
			case k == "w":
				w = n
			}
		}
		if q > 0 && (quota == 0 || q < quota) {
			quota, window = q, w
		}
	}
	return quota, window
}

// Per-key budgets the scenarios plan with: 90% of the service's limits
// (platform/auth), a margin for the odd check request.
var (
	requestBudget = auth.RequestPolicy[0].Limit * 9 / 10 // requests per key per minute
	heavyBudget   = auth.HeavyPolicy[0].Limit * 9 / 10   // heavy-pool requests per key per minute
	ipBudget      = auth.IPPolicy[0].Limit * 9 / 10      // requests without a valid key per client address per minute
)

// keyRing hands out API keys round-robin, so that no key goes over a
// per-minute budget within one scenario.
type keyRing struct {
	keys []string
	next atomic.Uint64
}

// newKeyRing creates n fresh keys of team teamID for member memberID (a
// head coach) through the admin API, after the given ones.
func newKeyRing(ctx context.Context, env *benchEnv, teamID, memberID, name string, n int, keys ...string) (*keyRing, error) {
	for i := range n {
		k, err := harness.NewKey(ctx, env.admin(), teamID, memberID, fmt.Sprintf("%s-%d", name, i))
		if err != nil {
			return nil, fmt.Errorf("create API key %d of %d: %w", i+1, n, err)
		}
		keys = append(keys, k.Key)
	}
	return &keyRing{keys: keys}, nil
}

// freshKeys is a ring of enough fresh keys for uses requests at perKey each.
func freshKeys(ctx context.Context, env *benchEnv, teamID, memberID, name string, uses, perKey int) (*keyRing, error) {
	return newKeyRing(ctx, env, teamID, memberID, name, max(1, ceilDiv(uses, perKey)))
}

// key is the next key.
func (k *keyRing) key() string { return k.keys[(k.next.Add(1)-1)%uint64(len(k.keys))] }

// authz is the next key as an Authorization value.
func (k *keyRing) authz() string { return "Bearer " + k.key() }

func ceilDiv(a, b int) int { return (a + b - 1) / b }
