package main

// Issue 3's benchmark: what the auth gate and the rate limiter add to a
// request. Every row runs with one worker, so a latency is what one request
// costs end to end rather than time spent queueing for the machine's two
// CPUs (the foundation rows, at 16 workers, measure that).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/ratelimit"
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

func runAccessNoKey(ctx context.Context, env *benchEnv) (result, error) {
	return runUnauthenticated(ctx, env, "access-nokey", "", auth.CodeUnauthorized)
}

func runAccessBadKey(ctx context.Context, env *benchEnv) (result, error) {
	return runUnauthenticated(ctx, env, "access-badkey", "Bearer not-a-teamtext-key", auth.CodeUnauthorized)
}

// unknownKey is well formed (prefix, 40 base62 characters) but was never issued.
var unknownKey = auth.KeyPrefix + "benchUnknown" + strings.Repeat("0", auth.KeyLen-len(auth.KeyPrefix)-len("benchUnknown"))

func runAccessUnknownKey(ctx context.Context, env *benchEnv) (result, error) {
	return runUnauthenticated(ctx, env, "access-unknownkey", "Bearer "+unknownKey, auth.CodeInvalidKey)
}

// runUnauthenticated measures GET /api/v1/team answered 401. The service
// counts such requests per client address (60 a minute, then 429), so the
// requests go round-robin over enough loopback addresses that none exceeds
// ipBudget; each address's keep-alive connection is opened first with a
// request the limiter does not see (/healthz).
func runUnauthenticated(ctx context.Context, env *benchEnv, name, authz, code string) (result, error) {
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

// runAccessGatePgx sends, through the bench's own pool, what the gate sends
// for a valid key: the key lookup (whose hash it then compares), the
// account read, and the limiter's sliding-log statement, run by
// platform/ratelimit itself. The limiter buckets rotate like the keys of
// access-team, so each log holds as many hits as a real key's.
func runAccessGatePgx(ctx context.Context, env *benchEnv) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	requests, warmup := accessLoad(env)
	limiter := ratelimit.New(pool, clock.Real{})
	key := env.keys[0]
	lookup := keyLookup(key)
	buckets := (requests + warmup + 1 + requestBudget - 1) / requestBudget
	run := time.Now().UnixNano()
	var next atomic.Uint64
	do := func(ctx context.Context) error {
		var k keyRow
		err := pool.QueryRow(ctx, sqlKeyAuth, lookup).Scan(&k.keyID, &k.hash, &k.revokedAt, &k.teamID, &k.teamCode,
			&k.disabled, &k.locked, &k.memberID, &k.blocked, &k.role, &k.canBroadcast, &k.memberGone)
		if err != nil {
			return fmt.Errorf("key lookup: %w", err)
		}
		if !auth.Verify(key, k.hash) {
			return errors.New("key hash does not match")
		}
		var b billingRow
		err = pool.QueryRow(ctx, sqlBilling, k.teamID).Scan(&b.teamID, &b.plan, &b.cardOnFile, &b.paymentState,
			&b.trial, &b.trialCredits, &b.createdAt, &b.updatedAt)
		if err != nil {
			return fmt.Errorf("account: %w", err)
		}
		bucket := fmt.Sprintf("bench-gate:%d:%d", run, (next.Add(1)-1)%uint64(buckets))
		d, err := limiter.Allow(ctx, bucket, auth.RequestPolicy)
		if err != nil {
			return err
		}
		if !d.Allowed {
			return errors.New("limiter refused a bench bucket")
		}
		return nil
	}
	return accessMeasure(ctx, env, "access-gate-pgx", do)
}

// sqlCreditsUsed is billing's credits-used read (Accounts.Get).
const sqlCreditsUsed = `SELECT
  coalesce(sum(credits) FILTER (WHERE period = $1 AND NOT trial), 0),
  coalesce(sum(credits) FILTER (WHERE trial), 0)
FROM billing_credit_entries WHERE team_id = $2`

// runAccessHandlerPgx sends what GET /team's handler sends after the gate.
func runAccessHandlerPgx(ctx context.Context, env *benchEnv) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	do := func(ctx context.Context) error {
		var t teamRow
		err := pool.QueryRow(ctx, sqlTeam, env.teamID).Scan(&t.id, &t.name, &t.code, &t.number, &t.timeZone,
			&t.approvalRequired, &t.disabled, &t.locked, &t.createdAt)
		if err != nil {
			return fmt.Errorf("team: %w", err)
		}
		var b billingRow
		err = pool.QueryRow(ctx, sqlBilling, env.teamID).Scan(&b.teamID, &b.plan, &b.cardOnFile, &b.paymentState,
			&b.trial, &b.trialCredits, &b.createdAt, &b.updatedAt)
		if err != nil {
			return fmt.Errorf("account: %w", err)
		}
		var used, trialUsed int64
		if err := pool.QueryRow(ctx, sqlCreditsUsed, time.Now().UTC().Format("2006-01"), env.teamID).Scan(&used, &trialUsed); err != nil {
			return fmt.Errorf("credits used: %w", err)
		}
		return nil
	}
	return accessMeasure(ctx, env, "access-handler-pgx", do)
}

func accessMeasure(ctx context.Context, env *benchEnv, name string, do func(context.Context) error) (result, error) {
	requests, warmup := accessLoad(env)
	return measureSpec(ctx, env, name, warmup, loadSpec{Requests: requests, Concurrency: 1, MaxDuration: env.maxDuration}, do)
}

func accessBullets(meta reportMeta, rs []result) []string {
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

// accessReading derives what the gate adds from the rows of one run.
func accessReading(meta reportMeta, rs []result) string {
	h, ok1 := findResult(rs, "access-healthz")
	nk, ok2 := findResult(rs, "access-nokey")
	bk, ok3 := findResult(rs, "access-badkey")
	uk, ok4 := findResult(rs, "access-unknownkey")
	t, ok5 := findResult(rs, "access-team")
	g, ok6 := findResult(rs, "access-gate-pgx")
	d, ok7 := findResult(rs, "access-handler-pgx")
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
		return ""
	}
	per := func(r result, x time.Duration, ok bool) string {
		if !ok || r.Requests == 0 {
			return "n/a"
		}
		return fmtMicros(x / time.Duration(r.Requests))
	}
	acq := func(r result) string {
		if !r.Use.HasAcq {
			return "n/a"
		}
		return fmt.Sprintf("%.1f", r.Acquires)
	}
	var b strings.Builder
	b.WriteString("**Reading.** ")
	fmt.Fprintf(&b, "A request the gate refuses for want of a key (`access-nokey`) took %s at the median and %s at p99, "+
		"against %s and %s for `/healthz`, which shares the HTTP server and its middleware but skips huma and the gate: "+
		"the median difference, %s, is the gate's refusal path, whose only database work is the per-address sliding-log "+
		"statement (%s DB acquires per request against %s). A malformed key (`access-badkey`) takes the same path "+
		"(p50 %s): the header parse is constant-time and cheap, and the client address is still counted, so it is not "+
		"answered before the database. A well-formed key that was never issued (`access-unknownkey`, p50 %s, %s acquires) "+
		"adds the key lookup and a dummy hash comparison before the same limiter statement. ",
		fmtDur(nk.Stats.P50), fmtDur(nk.Stats.P99), fmtDur(h.Stats.P50), fmtDur(h.Stats.P99), signedDur(nk.Stats.P50-h.Stats.P50),
		acq(nk), acq(h), fmtDur(bk.Stats.P50), fmtDur(uk.Stats.P50), acq(uk))

	// Bounds on what auth plus limits add to an admitted request: at least
	// the gate's statements sent raw; at most the valid request less the
	// HTTP floor and less the handler's statements sent raw.
	bound := func(p func(latencyStats) time.Duration) (lo, hi time.Duration) {
		return p(g.Stats), p(t.Stats) - p(h.Stats) - p(d.Stats)
	}
	lo50, hi50 := bound(func(s latencyStats) time.Duration { return s.P50 })
	lo99, hi99 := bound(func(s latencyStats) time.Duration { return s.P99 })
	fmt.Fprintf(&b, "**Added latency of auth plus limits on an admitted request.** `GET /api/v1/team` with a valid key "+
		"(`access-team`) took p50 %s, p99 %s, with %s DB acquires per request. When this section was written its gate sent three statements (key "+
		"lookup, account, the 120/min check) and its handler three (team, account, credits used); the raw rows still send those "+
		"(the service now sends two in all: `team-pgx-lean`). Sent raw through pgx, "+
		"the gate's three took p50 %s, p99 %s (`access-gate-pgx`) and the handler's three p50 %s, p99 %s "+
		"(`access-handler-pgx`). ",
		fmtDur(t.Stats.P50), fmtDur(t.Stats.P99), acq(t), fmtDur(g.Stats.P50), fmtDur(g.Stats.P99), fmtDur(d.Stats.P50), fmtDur(d.Stats.P99))
	fmt.Fprintf(&b, "So at the median auth plus limits add **between %s and %s** per request: at least their statements "+
		"alone (no HTTP, huma or bun), at most the valid request less the HTTP floor (`/healthz`) and less the handler's "+
		"statements, a bound that still holds huma's routing and encoding and bun's work for the handler. ",
		fmtDur(lo50), signedDur(hi50))
	if hi99 >= lo99 {
		fmt.Fprintf(&b, "At p99 the same bounds are %s and %s. ", fmtDur(lo99), signedDur(hi99))
	} else {
		fmt.Fprintf(&b, "At p99 the same arithmetic gives %s and %s, bounds that cross: in this run the p99s are set by "+
			"scheduling noise from other work on the machine, not by the gate. ", fmtDur(lo99), signedDur(hi99))
	}
	b.WriteString("(Differences of percentiles, not percentiles of differences.) ")
	if t.Use.HasService && h.Use.HasService {
		fmt.Fprintf(&b, "In CPU, the service spent %s per admitted request, %s per refused one and %s per `/healthz`; "+
			"Postgres %s, %s and %s. ",
			per(t, t.Use.Service, true), per(nk, nk.Use.Service, nk.Use.HasService), per(h, h.Use.Service, true),
			per(t, t.Use.Postgres, t.Use.HasPostgres), per(nk, nk.Use.Postgres, nk.Use.HasPostgres), per(h, h.Use.Postgres, h.Use.HasPostgres))
	}
	if f, ok := findResult(meta.All, "team-http"); ok && f.Requests > 0 {
		fmt.Fprintf(&b, "Side by side with the foundation's figure for the same request, measured in this run at %d "+
			"workers: p50 %s, p99 %s at %.0f req/s. At that concurrency the latency is mostly waiting for the two "+
			"CPUs the load generator, the service and Postgres share, so the one-worker rows above, not that row, say "+
			"what the gate costs; under load the gate's cost shows as CPU per request instead. ",
			f.Concurrency, fmtDur(f.Stats.P50), fmtDur(f.Stats.P99), f.Throughput())
	}
	b.WriteString("All figures move between runs on a shared machine; compare rows of one run.")
	return b.String()
}

// signedDur renders a duration that may be negative (noise can make a bound so).
func signedDur(d time.Duration) string {
	if d < 0 {
		return "−" + fmtDur(-d)
	}
	return fmtDur(d)
}
