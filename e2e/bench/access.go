package main

// What the auth gate and the rate limiter add to a request. Every row runs
// with one worker, so a latency is what one request costs end to end rather
// than time spent queueing for the machine's two CPUs (the foundation row,
// at 16 workers, measures that). The gate's statement sent raw is roster's
// BenchmarkKeyAuth (make bench-sql).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/teamtext/teamtext/client"
	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
	"github.com/teamtext/teamtext/platform/auth"
)

// get sends GET url with the Authorization value authz ("" for none),
// reads the whole answer (so the connection is reused) and fails unless
// its status is want and, when code is set, it carries that error code.
func get(ctx context.Context, c *http.Client, url, authz string, want int, code string) ([]byte, error) {
	r, err := (&harness.Client{Base: url, HTTP: c}).Do(ctx, http.MethodGet, "", nil, "Authorization", authz)
	switch {
	case err != nil:
		return nil, err
	case r.Status != want:
		return r.Body, fmt.Errorf("GET %s: status %d, want %d: %.200s", url, r.Status, want, r.Body)
	case code != "" && !bytes.Contains(r.Body, []byte(`"code":"`+code+`"`)):
		return r.Body, fmt.Errorf("GET %s: want error code %s: %.200s", url, code, r.Body)
	}
	return r.Body, nil
}

// getRow is a scenario of GET requests that all get the same answer.
// Foundation rows run at -concurrency over the team's keys; the others
// with one worker and accessLoad's counts. Rows with a code expect a 401
// with it and send from loopback addresses, ipBudget a minute each.
type getRow struct {
	path, code, authz string
	keyed, foundation bool
}

// accessLoad is the measured requests and warm-up of each access row: at
// one worker the foundation's 20,000 would take minutes per row.
func accessLoad(env *benchEnv) (requests, warmup int) {
	return min(env.requests, 2000), min(env.warmup, 200)
}

// unknownKey is well formed (prefix, 40 base62 characters) but was never issued.
var unknownKey = auth.KeyPrefix + "benchUnknown" + strings.Repeat("0", auth.KeyLen-len(auth.KeyPrefix)-len("benchUnknown"))

// run measures the row: one checked request first, then measure.
func (g getRow) run(name string) runFunc {
	return func(ctx context.Context, env *benchEnv) (result, error) {
		requests, warmup := accessLoad(env)
		workers, authz, note := 1, func() string { return g.authz }, ""
		switch {
		case g.foundation:
			requests, warmup, workers = env.requests, env.warmup, env.concurrency
			authz = env.keys.authz
		case g.keyed:
			ring, err := freshKeys(ctx, env, env.team, "bench-access", requests+warmup+1, requestBudget)
			if err != nil {
				return result{}, err
			}
			authz, note = ring.authz, fmt.Sprintf("%d fresh keys", len(ring.keys))
		}
		clients, status := []*http.Client{load.Client(workers, nil)}, http.StatusOK
		if g.code != "" {
			// Each address's keep-alive connection is opened first with a
			// request the limiter does not see (/healthz).
			ips, err := env.takeIPs(ceilDiv(requests+warmup+1, ipBudget))
			if err != nil {
				return result{}, err
			}
			clients = clients[:0]
			for _, ip := range ips {
				c := load.Client(1, ip)
				if _, err := get(ctx, c, env.svc.PublicURL+"/healthz", "", http.StatusOK, ""); err != nil {
					return result{}, fmt.Errorf("from %s: %w", ip, err)
				}
				clients = append(clients, c)
			}
			note, status = fmt.Sprintf("spread over %d client addresses", len(ips)), http.StatusUnauthorized
		}
		defer func() {
			for _, c := range clients {
				c.CloseIdleConnections()
			}
		}()
		url := env.svc.PublicURL + g.path
		var next atomic.Uint64
		send := func(ctx context.Context) ([]byte, error) {
			return get(ctx, clients[(next.Add(1)-1)%uint64(len(clients))], url, authz(), status, g.code)
		}
		do := func(ctx context.Context) error { _, err := send(ctx); return err }
		body, err := send(ctx)
		var team client.DataBodyTeam
		if err == nil && g.foundation {
			if err = json.Unmarshal(body, &team); err == nil && team.Data.Id != env.team.TeamID {
				err = fmt.Errorf("want team %s: %.300s", env.team.TeamID, body)
			}
		}
		if err != nil {
			return result{}, fmt.Errorf("check request: %w", err)
		}
		r, err := measure(ctx, env, name, warmup, requests, workers, do)
		r.Note = note
		return r, err
	}
}

func accessBullets(meta reportMeta) []string {
	requests, warmup := accessLoad(meta.Env)
	return []string{
		fmt.Sprintf("Fixture: the foundation's team (Team Plus, card on file); `access-team` uses fresh keys of its head coach, "+
			"round-robin, at most %d requests per key, so the 120/min limit admits every request and its check is part of what "+
			"is measured; the 401 rows spread their requests over loopback client addresses (127.0.x.y), at most %d per "+
			"address, under the 60/min per-address limit", requestBudget, ipBudget),
		fmt.Sprintf("Load: %d measured requests per row after %d unmeasured warm-up requests, **one worker**, so each latency "+
			"is the cost of one request rather than queueing; *CPU/req* and *DB acquires/req* as in the foundation section", requests, warmup),
	}
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

// freshKeys is a ring of enough new keys of fx's head coach for uses
// requests at perKey each.
func freshKeys(ctx context.Context, env *benchEnv, fx *harness.Fixture, name string, uses, perKey int) (*keyRing, error) {
	keys, err := harness.NewKeys(ctx, env.admin(), fx.TeamID, fx.CoachID, name, max(1, ceilDiv(uses, perKey)))
	return &keyRing{keys: keys}, err
}

func (k *keyRing) key() string { return k.keys[(k.next.Add(1)-1)%uint64(len(k.keys))] }

func (k *keyRing) authz() string { return "Bearer " + k.key() }

func ceilDiv(a, b int) int { return (a + b - 1) / b }
