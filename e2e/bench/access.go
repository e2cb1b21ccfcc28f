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
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/teamtext/teamtext/client"
	"github.com/teamtext/teamtext/platform/auth"
)

// loopbackClient is a keep-alive HTTP client whose connections leave from
// local (any address when nil).
func loopbackClient(local net.IP, conns int) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if local != nil {
		d.LocalAddr = &net.TCPAddr{IP: local}
	}
	tr := &http.Transport{
		DialContext:         d.DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// get sends GET url with the Authorization value authz ("" for none),
// reads the whole answer (so the connection is reused) and fails unless
// its status is want and, when code is set, it carries that error code.
func get(ctx context.Context, c *http.Client, url, authz string, want int, code string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return nil, err
	case resp.StatusCode != want:
		return body, fmt.Errorf("GET %s: status %d, want %d: %.200s", url, resp.StatusCode, want, body)
	case code != "" && !bytes.Contains(body, []byte(`"code":"`+code+`"`)):
		return body, fmt.Errorf("GET %s: want error code %s: %.200s", url, code, body)
	}
	return body, nil
}

// getRow is a scenario of GET requests that all get the same answer.
type getRow struct {
	path   string // under the public URL
	status int
	code   string // the error code the answer carries, if any
	// keys: nil for a constant Authorization value authz, else the
	// ring the requests take their keys from, in turn.
	keys  func(ctx context.Context, env *benchEnv) (*keyRing, error)
	authz string
	// spread sends the requests from loopback client addresses, at most
	// ipBudget a minute each (the per-address limit of requests without
	// a valid key).
	spread bool
	// foundation rows run at -concurrency with -requests and -warmup;
	// the others with one worker and accessLoad's counts.
	foundation bool
	check      func(env *benchEnv, body []byte) error // of the first answer, unmeasured
}

// accessLoad is the measured requests and warm-up of each access row: at
// one worker the foundation's 20,000 would take minutes per row.
func accessLoad(env *benchEnv) (requests, warmup int) {
	return min(env.requests, 2000), min(env.warmup, 200)
}

// unknownKey is well formed (prefix, 40 base62 characters) but was never issued.
var unknownKey = auth.KeyPrefix + "benchUnknown" + strings.Repeat("0", auth.KeyLen-len(auth.KeyPrefix)-len("benchUnknown"))

var (
	teamRow    = getRow{path: "/api/v1/team", status: http.StatusOK, foundation: true, keys: envKeys, check: checkTeam}
	healthzRow = getRow{path: "/healthz", status: http.StatusOK}
	accessTeam = getRow{path: "/api/v1/team", status: http.StatusOK, keys: accessKeys}
)

// unauthorized is GET /api/v1/team answered 401 with code.
func unauthorized(authz, code string) getRow {
	return getRow{path: "/api/v1/team", status: http.StatusUnauthorized, code: code, authz: authz, spread: true}
}

// envKeys is the team's keys, as many as the key plan asked for.
func envKeys(_ context.Context, env *benchEnv) (*keyRing, error) { return env.keys, nil }

// accessKeys is fresh keys of the team's head coach, at most requestBudget
// requests each.
func accessKeys(ctx context.Context, env *benchEnv) (*keyRing, error) {
	requests, warmup := accessLoad(env)
	return freshKeys(ctx, env, env.teamID, env.coachID, "bench-access", requests+warmup+1, requestBudget)
}

// checkTeam checks that the right team comes back.
func checkTeam(env *benchEnv, body []byte) error {
	var team client.DataBodyTeam
	if err := json.Unmarshal(body, &team); err != nil || team.Data.Id != env.teamID {
		return fmt.Errorf("want team %s (%v): %.300s", env.teamID, err, body)
	}
	return nil
}

// run measures the row: one checked request first, then measure.
func (g getRow) run(name string) func(context.Context, *benchEnv) (result, error) {
	return func(ctx context.Context, env *benchEnv) (result, error) {
		requests, warmup := accessLoad(env)
		spec := loadSpec{Requests: requests, Concurrency: 1, MaxDuration: env.maxDuration}
		if g.foundation {
			warmup, spec.Requests, spec.Concurrency = env.warmup, env.requests, env.concurrency
		}
		authz := func() string { return g.authz }
		var note string
		if g.keys != nil {
			ring, err := g.keys(ctx, env)
			if err != nil {
				return result{}, err
			}
			authz = ring.authz
			if !g.foundation {
				note = fmt.Sprintf("%d fresh keys", len(ring.keys))
			}
		}
		clients := []*http.Client{loopbackClient(nil, spec.Concurrency)}
		if g.spread {
			// Each address's keep-alive connection is opened first with a
			// request the limiter does not see (/healthz).
			ips, err := env.takeIPs(ceilDiv(requests+warmup+1, ipBudget))
			if err != nil {
				return result{}, err
			}
			clients = clients[:0]
			for _, ip := range ips {
				c := loopbackClient(ip, 1)
				if _, err := get(ctx, c, env.publicURL+"/healthz", "", http.StatusOK, ""); err != nil {
					return result{}, fmt.Errorf("from %s: %w", ip, err)
				}
				clients = append(clients, c)
			}
			note = fmt.Sprintf("spread over %d client addresses", len(ips))
		}
		defer func() {
			for _, c := range clients {
				c.CloseIdleConnections()
			}
		}()
		url := env.publicURL + g.path
		var next atomic.Uint64
		send := func(ctx context.Context) ([]byte, error) {
			return get(ctx, clients[(next.Add(1)-1)%uint64(len(clients))], url, authz(), g.status, g.code)
		}
		do := func(ctx context.Context) error {
			_, err := send(ctx)
			return err
		}
		body, err := send(ctx)
		if err == nil && g.check != nil {
			err = g.check(env, body)
		}
		if err != nil {
			return result{}, fmt.Errorf("check request: %w", err)
		}
		r, err := measureSpec(ctx, env, name, warmup, spec, do)
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
