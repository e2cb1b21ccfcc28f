package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// scenario is one named load run. Later issues add theirs to scenarios.
type scenario struct {
	name  string
	desc  string // what one "request" is, shown in the table
	run   func(ctx context.Context, env *benchEnv) (result, error)
	group string // which -out section the result belongs to
	api   bool   // sends public API requests (counts when sizing the key pool)
}

// scenarios is the registry, in run order.
var scenarios = []scenario{
	{name: "team-http", group: "foundation", api: true, desc: "HTTP `GET /api/v1/team`: auth gate, handler, huma, bun", run: runTeamHTTP},
	{name: "team-pgx", group: "foundation", desc: "raw pgx: key lookup, team, billing (3 queries)", run: runTeamPgx3},
	{name: "team-pgx-1q", group: "foundation", desc: "raw pgx: team ⋈ billing by team id (1 query)", run: runTeamPgx1},
	{name: "team-pgx-lean", group: "foundation", desc: "raw pgx: the 2 statements `GET /team` now sends (the gate's: key read with the 120/min ring check; credits used), prepared", run: runTeamPgxLean},

	// Issue 3: one worker, so latencies are what a request costs, not queueing.
	{name: "access-healthz", group: "access", desc: "HTTP `GET /healthz`: no auth, no database (the HTTP floor)", run: runAccessHealthz},
	{name: "access-nokey", group: "access", desc: "HTTP `GET /api/v1/team` without `Authorization` → 401 `unauthorized` (the per-address limiter's statement)", run: runAccessNoKey},
	{name: "access-badkey", group: "access", desc: "HTTP `GET /api/v1/team` with a malformed bearer key → 401 `unauthorized`", run: runAccessBadKey},
	{name: "access-unknownkey", group: "access", desc: "HTTP `GET /api/v1/team` with a well-formed unknown key → 401 `invalid_key` (key lookup, then the per-address limiter)", run: runAccessUnknownKey},
	{name: "access-team", group: "access", desc: "HTTP `GET /api/v1/team` with a valid key: the whole gate (key, owner, team, plan, card, 120/min limit), then the handler", run: runAccessTeam},
	{name: "access-gate-pgx", group: "access", desc: "raw pgx: the gate's statements for a valid key (key lookup, account, the 120/min sliding-log check)", run: runAccessGatePgx},
	{name: "access-handler-pgx", group: "access", desc: "raw pgx: the handler's statements (team, account, credits used)", run: runAccessHandlerPgx},

	// Issue 4.
	{name: "roster-import", group: "roster", desc: "admin CSV import of the team's members in requests of 1,000 rows (name, phone, role, one group each)", run: runRosterImport},
	{name: "roster-pages", group: "roster", desc: "HTTP `GET /members?limit=200&offset=N`, every page in order", run: runRosterPages},
	{name: "roster-pages-pgx", group: "roster", desc: "raw pgx: the same page query and its group-ids query", run: runRosterPagesPgx},
	{name: "roster-optout-bulk", group: "roster", desc: "HTTP `POST /opt-outs/bulk` with 500 members' numbers not opted out before", run: runRosterOptOutBulk},
	{name: "roster-validate", group: "roster", desc: "HTTP `POST /recipients/validate` with 100 numbers (on the roster, opted out, unknown, invalid)", run: runRosterValidate},
	{name: "roster-import-5k", group: "roster", desc: "admin CSV import of 5,000 new members in one request", run: runRosterImport5k},
	{name: "roster-pages-pgx-lean", group: "roster", desc: "raw pgx: a members page's own statement (page with group ids), without the gate's, prepared", run: runRosterPagesPgxLean},
	{name: "roster-pages-16", group: "roster", desc: "roster-pages with -concurrency workers (issue 15's ratio was measured with 16)", run: runRosterPages16},
	{name: "roster-pages-pgx-lean-16", group: "roster", desc: "roster-pages-pgx-lean with -concurrency clients", run: runRosterPagesPgxLean16},
	{name: "roster-pages-pgx-gate", group: "roster", desc: "raw pgx: both statements a members page sends (the gate's, then the page with group ids), prepared", run: runRosterPagesPgxGate},
	{name: "roster-pages-pgx-gate-16", group: "roster", desc: "roster-pages-pgx-gate with -concurrency clients", run: runRosterPagesPgxGate16},
	{name: "roster-copy-5k", group: "roster", desc: "raw pgx: `COPY` of 5,000 members into a fresh team (the import's floor)", run: runRosterCopy5k},
	// Issue 15: one request each, into the roster team, beside their floors.
	{name: "roster-import-10k", group: "roster", desc: "admin CSV import of 10,000 new members in one request", run: runRosterImport10k},
	{name: "roster-copy-10k", group: "roster", desc: "raw pgx: `COPY` of 10,000 members into a fresh team (the import's floor)", run: runRosterCopy10k},
	{name: "roster-import-100k", group: "roster", desc: "admin CSV import of 100,000 new members in one request", run: runRosterImport100k},
	{name: "roster-copy-100k", group: "roster", desc: "raw pgx: `COPY` of 100,000 members into a fresh team (the import's floor)", run: runRosterCopy100k},
	{name: "roster-copy-all-10k", group: "roster", desc: "raw pgx: the import's own statements for 10,000 members into a fresh team (chunks of 1,000, two in flight: locks, reads, four COPYs)", run: runRosterCopyAll10k},
	{name: "roster-copy-all-100k", group: "roster", desc: "raw pgx: the import's own statements for 100,000 members into a fresh team (as above)", run: runRosterCopyAll100k},

	// Issue 6.
	{name: "msg-accept", group: "messaging", desc: "HTTP `POST /messages` to `families` (every member): time to the 201", run: runMsgAccept},
	{name: "msg-deliver", group: "messaging", desc: "one send through the simulator, from the 201 to every delivery's final status", run: runMsgDeliver},
	{name: "river-noop", group: "messaging", desc: "River alone: no-op jobs (`platform.noop`) worked by the service's client", run: runRiverNoop},

	// Issue 15, item 6.
	{name: "inbound-texts", group: "inbound15", desc: "inbound texts from the carrier's callback to `message.received` stored", run: runInboundTexts},
	{name: "inbound-backlog", group: "inbound15", desc: "filing alone: a staged backlog of texts to `message.received` stored", run: runInboundBacklog},
	{name: "inbound-pgx", group: "inbound15", desc: "raw pgx: the same inserts (staging row per callback, batched filing)", run: runInboundPgx},

	// Issue 18.
	{name: "webhooks-recover", group: "webhooks", api: true, desc: "HTTP `POST /webhooks/{id}/recover` of a webhook's 10,000 abandoned deliveries: one set-based UPDATE and the pump's River job, one transaction", run: runWebhooksRecover},
	{name: "webhooks-recover-pgx", group: "webhooks", desc: "raw pgx: the same UPDATE and the queue's upsert in one transaction (no River job)", run: runWebhooksRecoverPgx},
	{name: "webhooks-throttle", group: "webhooks", desc: "recovered deliveries of the webhook throttled at `max_per_second` 50 reaching the receiver, one at a time, in order", run: runWebhooksThrottle},
	{name: "webhooks-pump", group: "webhooks", desc: "recovered deliveries of an unthrottled webhook reaching the receiver: the pump's own pace, one at a time, in order", run: runWebhooksPump},

	// Issue 13: last, since it leaves 1,000 teams behind.
	{name: "engine-teams", group: "engine", api: true, desc: "1,000 teams sending at once, each number paced at 1 segment/s", run: runEngineTeams},
	{name: "engine-stop", group: "engine", desc: "STOP behind the 1,000 teams' backlog: callback to opt-out recorded", run: runEngineStop},
}

// measure warms up with env.warmup requests, then runs the measured load.
func measure(ctx context.Context, env *benchEnv, name string, do func(ctx context.Context) error) (result, error) {
	return measureSpec(ctx, env, name, env.warmup,
		loadSpec{Requests: env.requests, Concurrency: env.concurrency, MaxDuration: env.maxDuration}, do)
}

// measureSpec warms up with warmup requests, then runs spec.
func measureSpec(ctx context.Context, env *benchEnv, name string, warmup int, spec loadSpec, do func(ctx context.Context) error) (result, error) {
	if warmup > 0 {
		progress("scenario %s: warm-up, %d requests…", name, warmup)
		w, err := runLoad(ctx, loadSpec{Requests: warmup, Concurrency: spec.Concurrency, MaxDuration: spec.MaxDuration}, do)
		if err != nil {
			return result{}, fmt.Errorf("warm-up: %w", err)
		}
		if w.Errors > 0 {
			return result{}, fmt.Errorf("warm-up: %d of %d requests failed, first: %s", w.Errors, w.Requests, w.FirstError)
		}
	}
	progress("scenario %s: %d requests, %d workers…", name, spec.Requests, spec.Concurrency)
	cpu0 := env.sample(ctx)
	r, err := runLoad(ctx, spec, do)
	if err != nil {
		return result{}, err
	}
	r.Use = env.sample(ctx).sub(cpu0)
	r.Acquires = env.acquiresPerRequest(r.Use, r.Elapsed, r.units())
	progress("scenario %s: %d requests in %s: %.0f req/s, p50 %s, p99 %s, %d errors",
		name, r.Requests, r.Elapsed.Round(time.Millisecond), r.Throughput(), fmtDur(r.Stats.P50), fmtDur(r.Stats.P99), r.Errors)
	return r, nil
}

// --- HTTP -------------------------------------------------------------------

func runTeamHTTP(ctx context.Context, env *benchEnv) (result, error) {
	c := env.concurrency
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        c,
		MaxIdleConnsPerHost: c,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	url := env.publicURL + "/api/v1/team"
	// Requests go round-robin over the team's keys (see keyPlan).
	authz := make([]string, len(env.keys))
	for i, k := range env.keys {
		authz[i] = "Bearer " + k
	}
	var next atomic.Uint64

	get := func(ctx context.Context, body io.Writer) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", authz[(next.Add(1)-1)%uint64(len(authz))])
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		// Read to EOF so the connection goes back to the idle pool.
		if _, err := io.Copy(body, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET /api/v1/team: status %d", resp.StatusCode)
		}
		return nil
	}

	// One checked request first: the right team comes back.
	var buf jsonBuffer
	if err := get(ctx, &buf); err != nil {
		return result{}, fmt.Errorf("check request: %w (%s)", err, buf.b)
	}
	var env1 struct {
		Data struct {
			ID   string `json:"id"`
			Plan string `json:"plan"`
		} `json:"data"`
	}
	if err := json.Unmarshal(buf.b, &env1); err != nil || env1.Data.ID != env.teamID {
		return result{}, fmt.Errorf("check request: unexpected body %s", buf.b)
	}

	return measure(ctx, env, "team-http", func(ctx context.Context) error { return get(ctx, io.Discard) })
}

type jsonBuffer struct{ b []byte }

func (j *jsonBuffer) Write(p []byte) (int, error) { j.b = append(j.b, p...); return len(p), nil }

// --- raw pgx ----------------------------------------------------------------

// The same statements the endpoint's repositories send (bun selects every
// model column), with placeholders instead of bun's inlined literals.
const (
	sqlKeyAuth = `
SELECT k.id AS key_id, k.hash, k.revoked_at, t.id AS team_id, t.code AS team_code, t.disabled, t.locked,
       m.id AS member_id, m.is_blocked, m.role, m.can_send_broadcasts, (m.deleted_at IS NOT NULL) AS member_gone
FROM roster_api_keys k
JOIN roster_teams t ON t.id = k.team_id
JOIN roster_members m ON m.id = k.member_id
WHERE k.lookup = $1`
	sqlTeam = `SELECT id, name, code, number, time_zone, approval_required, disabled, locked, created_at
FROM roster_teams WHERE id = $1`
	sqlBilling = `SELECT team_id, plan, card_on_file, payment_state, trial, trial_credits, created_at, updated_at
FROM billing_accounts WHERE team_id = $1`
	sqlTeamBilling = `SELECT t.id, t.name, t.code, t.number, t.time_zone, t.approval_required, t.disabled, t.locked, t.created_at,
       b.plan, b.card_on_file, b.payment_state, b.trial, b.trial_credits, b.created_at, b.updated_at
FROM roster_teams t JOIN billing_accounts b ON b.team_id = t.id
WHERE t.id = $1`
)

type keyRow struct {
	keyID, teamID, teamCode, memberID, role string
	hash                                    []byte
	revokedAt                               *time.Time
	disabled, locked, blocked, canBroadcast bool
	memberGone                              bool
}

type teamRow struct {
	id, name, code, number, timeZone   string
	approvalRequired, disabled, locked bool
	createdAt                          time.Time
}

type billingRow struct {
	teamID, plan, paymentState string
	cardOnFile, trial          bool
	trialCredits               int
	createdAt, updatedAt       time.Time
}

func runTeamPgx3(ctx context.Context, env *benchEnv) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	lookup := keyLookup(env.keys[0])
	do := func(ctx context.Context) error {
		var k keyRow
		err := pool.QueryRow(ctx, sqlKeyAuth, lookup).Scan(&k.keyID, &k.hash, &k.revokedAt, &k.teamID, &k.teamCode,
			&k.disabled, &k.locked, &k.memberID, &k.blocked, &k.role, &k.canBroadcast, &k.memberGone)
		if err != nil {
			return fmt.Errorf("key lookup: %w", err)
		}
		var t teamRow
		err = pool.QueryRow(ctx, sqlTeam, k.teamID).Scan(&t.id, &t.name, &t.code, &t.number, &t.timeZone,
			&t.approvalRequired, &t.disabled, &t.locked, &t.createdAt)
		if err != nil {
			return fmt.Errorf("team: %w", err)
		}
		var b billingRow
		err = pool.QueryRow(ctx, sqlBilling, t.id).Scan(&b.teamID, &b.plan, &b.cardOnFile, &b.paymentState,
			&b.trial, &b.trialCredits, &b.createdAt, &b.updatedAt)
		if err != nil {
			return fmt.Errorf("billing: %w", err)
		}
		if t.id != env.teamID || b.teamID != env.teamID {
			return errors.New("raw pgx: wrong team")
		}
		return nil
	}
	return measure(ctx, env, "team-pgx", do)
}

func runTeamPgx1(ctx context.Context, env *benchEnv) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	do := func(ctx context.Context) error {
		var t teamRow
		var b billingRow
		err := pool.QueryRow(ctx, sqlTeamBilling, env.teamID).Scan(&t.id, &t.name, &t.code, &t.number, &t.timeZone,
			&t.approvalRequired, &t.disabled, &t.locked, &t.createdAt,
			&b.plan, &b.cardOnFile, &b.paymentState, &b.trial, &b.trialCredits, &b.createdAt, &b.updatedAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return errors.New("team/billing: no row")
		}
		if err != nil {
			return fmt.Errorf("team/billing: %w", err)
		}
		return nil
	}
	return measure(ctx, env, "team-pgx-1q", do)
}

// keyLookup is the stored lookup prefix of an API key: the 12 characters
// after "tt_live_" (auth.Lookup in platform/auth; repeated here so the bench
// itself depends on nothing but the harness).
func keyLookup(key string) string {
	const prefix, n = "tt_live_", 12
	if len(key) < len(prefix)+n {
		return ""
	}
	return key[len(prefix) : len(prefix)+n]
}

// timedRuns calls one warmup times unmeasured, then runs times measured,
// one after another (one worker). one returns the duration to count, its
// request's, so that its own checks of the answer stay out of the figures.
// With itemsPerRun > 0 the row counts items of unit (throughput, CPU and
// acquires per item). The row's CPU and acquires cover the measured calls.
func timedRuns(ctx context.Context, env *benchEnv, name string, warmup, runs, itemsPerRun int, unit string,
	one func(ctx context.Context, i int) (time.Duration, error)) (result, error) {
	for i := range warmup {
		progress("scenario %s: warm-up %d of %d…", name, i+1, warmup)
		if _, err := one(ctx, i); err != nil {
			return result{}, fmt.Errorf("warm-up %d: %w", i+1, err)
		}
	}
	progress("scenario %s: %d runs…", name, runs)
	cpu0 := env.sample(ctx)
	start := time.Now()
	lat := make([]time.Duration, 0, runs)
	for i := range runs {
		d, err := one(ctx, warmup+i)
		if err != nil {
			return result{}, fmt.Errorf("run %d of %d: %w", i+1, runs, err)
		}
		lat = append(lat, d)
	}
	r := result{Requests: runs, Concurrency: 1, Elapsed: time.Since(start), Stats: computeStats(lat)}
	if itemsPerRun > 0 {
		r.Items, r.Unit = runs*itemsPerRun, unit
	}
	r.Use = env.sample(ctx).sub(cpu0)
	r.Use.BenchAcquires = 0 // the bench's own bookkeeping statements, if any, are not the service's work
	r.Acquires = env.acquiresPerRequest(r.Use, r.Elapsed, r.units())
	progress("scenario %s: %d runs in %s: p50 %s, p99 %s, %s",
		name, runs, r.Elapsed.Round(time.Millisecond), fmtDur(r.Stats.P50), fmtDur(r.Stats.P99), fmtRate(r.Throughput(), r.unit()))
	return r, nil
}
