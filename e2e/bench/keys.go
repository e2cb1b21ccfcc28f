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
	Quota    int // requests one key may make per Window seconds (0: no limit seen)
	Window   int
	Policy   string // the RateLimit-Policy header as the service sent it
	Explicit bool   // set by -keys
}

// planKeys decides the key count: -keys when set, otherwise enough keys
// that none exceeds the per-key request limit the service announces in its
// RateLimit-Policy header (one key when it announces none). perScenario is
// the most requests one scenario sends (warm-up, check and measured run);
// the scenarios run within one window of each other, so they are summed.
func planKeys(ctx context.Context, env *benchEnv, flagKeys, apiScenarios int) (keyPlan, error) {
	c := harness.NewClient(env.publicURL+"/api/v1", env.keys[0])
	resp, err := c.Do(ctx, http.MethodGet, "/team", nil)
	if err != nil {
		return keyPlan{}, fmt.Errorf("probe GET /api/v1/team: %w", err)
	}
	if resp.Status != http.StatusOK {
		return keyPlan{}, fmt.Errorf("probe GET /api/v1/team: status %d: %s", resp.Status, resp.Body)
	}
	kp := keyPlan{Keys: 1, Policy: resp.Header.Get("RateLimit-Policy")}
	kp.Quota, kp.Window = smallestQuota(kp.Policy)
	if flagKeys > 0 {
		kp.Keys, kp.Explicit = flagKeys, true
		return kp, nil
	}
	if kp.Quota > 0 && apiScenarios > 0 {
		budget := max(1, kp.Quota*9/10) // a margin for the probe and check requests
		total := apiScenarios * (env.warmup + env.requests + 1)
		kp.Keys = (total + budget - 1) / budget
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
			k, v, ok := strings.Cut(strings.TrimSpace(param), "=")
			if !ok {
				continue
			}
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				continue
			}
			switch k {
			case "q":
				q = n
			case "w":
				w = n
			}
		}
		if q > 0 && (quota == 0 || q < quota) {
			quota, window = q, w
		}
	}
	return quota, window
}

// addKeys creates API keys for the fixture's head coach until env has n.
func addKeys(ctx context.Context, env *benchEnv, admin *harness.Client, coachID string, n int) error {
	if n <= len(env.keys) {
		return nil
	}
	keys, err := createKeys(ctx, admin, env.teamID, coachID, "bench", n-len(env.keys))
	if err != nil {
		return err
	}
	env.keys = append(env.keys, keys...)
	return nil
}

// createKeys creates n API keys of team teamID for member memberID (a head
// coach) through the admin API.
func createKeys(ctx context.Context, admin *harness.Client, teamID, memberID, name string, n int) ([]string, error) {
	keys := make([]string, 0, n)
	for i := range n {
		var key struct {
			Key string `json:"key"`
		}
		err := admin.Expect(ctx, http.StatusCreated, http.MethodPost, "/teams/"+teamID+"/api-keys",
			map[string]any{"member_id": memberID, "name": fmt.Sprintf("%s-%d", name, i)}, &key)
		if err != nil {
			return nil, fmt.Errorf("create API key %d of %d: %w", i+1, n, err)
		}
		keys = append(keys, key.Key)
	}
	return keys, nil
}

// Per-key budgets the scenarios of later issues plan with: 90% of the
// service's limits (platform/auth), a margin for the odd check request.
var (
	requestBudget = auth.RequestPolicy[0].Limit * 9 / 10 // requests per key per minute
	heavyBudget   = auth.HeavyPolicy[0].Limit * 9 / 10   // heavy-pool requests per key per minute
	ipBudget      = auth.IPPolicy[0].Limit * 9 / 10      // requests without a valid key per client address per minute
)

// keyRing hands out fresh API keys round-robin, so that no key goes over
// a per-minute budget within one scenario.
type keyRing struct {
	keys []string
	next atomic.Uint64
}

// newKeyRing creates enough fresh keys for uses requests at perKey each.
func newKeyRing(ctx context.Context, env *benchEnv, teamID, memberID, name string, uses, perKey int) (*keyRing, error) {
	n := max(1, (uses+perKey-1)/perKey)
	keys, err := createKeys(ctx, env.admin(), teamID, memberID, name, n)
	if err != nil {
		return nil, err
	}
	return &keyRing{keys: keys}, nil
}

// key is the next key.
func (k *keyRing) key() string { return k.keys[(k.next.Add(1)-1)%uint64(len(k.keys))] }

// len is how many keys the ring has.
func (k *keyRing) len() int { return len(k.keys) }
