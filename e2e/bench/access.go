package main

// What the auth gate and the rate limiter add to a request. Every row runs
// with one worker, so a latency is what one request costs end to end rather
// than time spent queueing for the machine's two CPUs (the foundation row,
// at 16 workers, measures that). The gate's statement sent raw is roster's
// BenchmarkKeyAuth (make bench-sql).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/teamtext/teamtext/platform/auth"
)

// accessLoad is the measured requests and warm-up of each access row: at
// one worker the foundation's 20,000 would take minutes per row.
func accessLoad(env *benchEnv) (requests, warmup int) {
	return min(env.requests, 2000), min(env.warmup, 200)
}

// loopbackClient is a keep-alive HTTP client whose connections leave from
// local (any address when nil).
func loopbackClient(local net.IP, conns int) (*http.Client, *http.Transport) {
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
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}, tr
}

// getExpect sends GET url with the Authorization value authz ("" for none)
// and fails unless the answer has status want and, when code is set, that
// error code.
func getExpect(ctx context.Context, c *http.Client, url, authz string, want int, code string) error {
	status, body, err := getBody(ctx, c, url, authz)
	if err != nil {
		return err
	}
	if status != want {
		return fmt.Errorf("GET %s: status %d, want %d: %.200s", url, status, want, body)
	}
	if code != "" && !bytes.Contains(body, []byte(`"code":"`+code+`"`)) {
		return fmt.Errorf("GET %s: want error code %s: %.200s", url, code, body)
	}
	return nil
}

// getBody sends GET url and reads the whole answer (so the connection is reused).
func getBody(ctx context.Context, c *http.Client, url, authz string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

func runAccessHealthz(ctx context.Context, env *benchEnv) (result, error) {
	c, tr := loopbackClient(nil, 1)
	defer tr.CloseIdleConnections()
	url := env.publicURL + "/healthz"
	do := func(ctx context.Context) error { return getExpect(ctx, c, url, "", http.StatusOK, "") }
	return accessMeasure(ctx, env, "access-healthz", do)
}

// unknownKey is well formed (prefix, 40 base62 characters) but was never issued.
var unknownKey = auth.KeyPrefix + "benchUnknown" + strings.Repeat("0", auth.KeyLen-len(auth.KeyPrefix)-len("benchUnknown"))

// runUnauthenticated measures GET /api/v1/team answered 401. The service
// counts such requests per client address (60 a minute, then 429), so the
// requests go round-robin over enough loopback addresses that none exceeds
// ipBudget; each address's keep-alive connection is opened first with a
// request the limiter does not see (/healthz).
func runUnauthenticated(name, authz, code string) func(context.Context, *benchEnv) (result, error) {
	return func(ctx context.Context, env *benchEnv) (result, error) {
		return unauthenticated(ctx, env, name, authz, code)
	}
}

func unauthenticated(ctx context.Context, env *benchEnv, name, authz, code string) (result, error) {
	requests, warmup := accessLoad(env)
	n := (requests + warmup + 1 + ipBudget - 1) / ipBudget
	ips, err := env.takeIPs(n)
	if err != nil {
		return result{}, err
	}
	clients := make([]*http.Client, n)
	for i, ip := range ips {
		c, tr := loopbackClient(ip, 1)
		defer tr.CloseIdleConnections()
		clients[i] = c
		if err := getExpect(ctx, c, env.publicURL+"/healthz", "", http.StatusOK, ""); err != nil {
			return result{}, fmt.Errorf("from %s: %w", ip, err)
		}
	}
	url := env.publicURL + "/api/v1/team"
	var next atomic.Uint64
	do := func(ctx context.Context) error {
		return getExpect(ctx, clients[(next.Add(1)-1)%uint64(n)], url, authz, http.StatusUnauthorized, code)
	}
	if err := do(ctx); err != nil {
		return result{}, fmt.Errorf("check request: %w", err)
	}
	r, err := accessMeasure(ctx, env, name, do)
	r.Note = fmt.Sprintf("spread over %d client addresses", n)
	return r, err
}

func runAccessTeam(ctx context.Context, env *benchEnv) (result, error) {
	requests, warmup := accessLoad(env)
	ring, err := newKeyRing(ctx, env, env.teamID, env.coachID, "bench-access", requests+warmup+1, requestBudget)
	if err != nil {
		return result{}, err
	}
	c, tr := loopbackClient(nil, 1)
	defer tr.CloseIdleConnections()
	url := env.publicURL + "/api/v1/team"
	do := func(ctx context.Context) error {
		return getExpect(ctx, c, url, "Bearer "+ring.key(), http.StatusOK, "")
	}
	if err := do(ctx); err != nil {
		return result{}, fmt.Errorf("check request: %w", err)
	}
	r, err := accessMeasure(ctx, env, "access-team", do)
	r.Note = fmt.Sprintf("%d fresh keys", ring.len())
	return r, err
}

func accessMeasure(ctx context.Context, env *benchEnv, name string, do func(context.Context) error) (result, error) {
	requests, warmup := accessLoad(env)
	return measureSpec(ctx, env, name, warmup, loadSpec{Requests: requests, Concurrency: 1, MaxDuration: env.maxDuration}, do)
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
