package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/teamtext/teamtext/e2e/harness"
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
	for i := len(env.keys); i < n; i++ {
		var key struct {
			Key string `json:"key"`
		}
		err := admin.Expect(ctx, http.StatusCreated, http.MethodPost, "/teams/"+env.teamID+"/api-keys",
			map[string]any{"member_id": coachID, "name": fmt.Sprintf("bench-%d", i)}, &key)
		if err != nil {
			return fmt.Errorf("create API key %d of %d: %w", i+1, n, err)
		}
		env.keys = append(env.keys, key.Key)
	}
	return nil
}
