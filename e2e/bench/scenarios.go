package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/teamtext/teamtext/client"
	"github.com/teamtext/teamtext/platform/auth"
)

// scenario is one named load run.
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

	// One worker, so latencies are what a request costs, not queueing.
	{name: "access-healthz", group: "access", desc: "HTTP `GET /healthz`: no auth, no database (the HTTP floor)", run: runAccessHealthz},
	{name: "access-nokey", group: "access", desc: "HTTP `GET /api/v1/team` without `Authorization` → 401 `unauthorized` (the per-address limiter's statement)", run: runUnauthenticated("access-nokey", "", auth.CodeUnauthorized)},
	{name: "access-badkey", group: "access", desc: "HTTP `GET /api/v1/team` with a malformed bearer key → 401 `unauthorized`", run: runUnauthenticated("access-badkey", "Bearer not-a-teamtext-key", auth.CodeUnauthorized)},
	{name: "access-unknownkey", group: "access", desc: "HTTP `GET /api/v1/team` with a well-formed unknown key → 401 `invalid_key` (key lookup, then the per-address limiter)", run: runUnauthenticated("access-unknownkey", "Bearer "+unknownKey, auth.CodeInvalidKey)},
	{name: "access-team", group: "access", desc: "HTTP `GET /api/v1/team` with a valid key: the whole gate (key, owner, team, plan, card, 120/min limit), then the handler", run: runAccessTeam},

	{name: "roster-import", group: "roster", desc: "admin CSV import of the team's members in requests of 1,000 rows (name, phone, role, one group each)", run: runRosterImport},
	{name: "roster-pages", group: "roster", desc: "HTTP `GET /members?limit=200&offset=N`, every page in order", run: runRosterPages},
	{name: "roster-optout-bulk", group: "roster", desc: "HTTP `POST /opt-outs/bulk` with 500 members' numbers not opted out before", run: runRosterOptOutBulk},
	{name: "roster-validate", group: "roster", desc: "HTTP `POST /recipients/validate` with 100 numbers (on the roster, opted out, unknown, invalid)", run: runRosterValidate},
	{name: "roster-import-5k", group: "roster", desc: "admin CSV import of 5,000 new members in one request", run: rosterImportOne("roster-import-5k", blockImport5k, 5000)},
	{name: "roster-pages-16", group: "roster", desc: "roster-pages with -concurrency workers (issue 15's ratio was measured with 16)", run: runRosterPages16},
	// One request each, into the roster team.
	{name: "roster-import-10k", group: "roster", desc: "admin CSV import of 10,000 new members in one request", run: rosterImportOne("roster-import-10k", blockImport10k, 10000)},
	{name: "roster-import-100k", group: "roster", desc: "admin CSV import of 100,000 new members in one request", run: rosterImportOne("roster-import-100k", blockImport1e5, 100000)},

	{name: "msg-accept", group: "messaging", desc: "HTTP `POST /messages` to `families` (every member): time to the 201", run: runMsgAccept},
	{name: "msg-deliver", group: "messaging", desc: "one send through the simulator, from the 201 to every delivery's final status", run: runMsgDeliver},
	{name: "river-noop", group: "messaging", desc: "River alone: no-op jobs (`platform.noop`) worked by the service's client", run: runRiverNoop},

	{name: "inbound-texts", group: "inbound15", desc: "inbound texts from the carrier's callback to `message.received` stored", run: shared(inboundFx, runInbound, func(r *inboundRun) result { return r.texts })},
	{name: "inbound-backlog", group: "inbound15", desc: "filing alone: a staged backlog of texts to `message.received` stored", run: shared(inboundFx, runInbound, func(r *inboundRun) result { return r.backlog })},

	{name: "webhooks-recover", group: "webhooks", api: true, desc: "HTTP `POST /webhooks/{id}/recover` of a webhook's 10,000 abandoned deliveries: one set-based UPDATE and the pump's River job, one transaction", run: runWebhooksRecover},
	{name: "webhooks-throttle", group: "webhooks", desc: "recovered deliveries of the webhook throttled at `max_per_second` 50 reaching the receiver, one at a time, in order", run: runWebhooksThrottle},
	{name: "webhooks-pump", group: "webhooks", desc: "recovered deliveries of an unthrottled webhook reaching the receiver: the pump's own pace, one at a time, in order", run: runWebhooksPump},

	// Last, since it leaves 1,000 teams behind.
	{name: "engine-teams", group: "engine", api: true, desc: "1,000 teams sending at once, each number paced at 1 segment/s", run: shared(engineFx, runEngine, func(r *engineRun) result { return r.handover })},
	{name: "engine-stop", group: "engine", desc: "STOP behind the 1,000 teams' backlog: callback to opt-out recorded", run: shared(engineFx, runEngine, func(r *engineRun) result { return r.stop })},
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

// runTeamHTTP loads GET /api/v1/team from -concurrency workers, their
// requests round-robin over the team's keys (see keyPlan).
func runTeamHTTP(ctx context.Context, env *benchEnv) (result, error) {
	c, tr := loopbackClient(nil, env.concurrency)
	defer tr.CloseIdleConnections()
	url := env.publicURL + "/api/v1/team"
	authz := make([]string, len(env.keys))
	for i, k := range env.keys {
		authz[i] = "Bearer " + k
	}
	var next atomic.Uint64
	key := func() string { return authz[(next.Add(1)-1)%uint64(len(authz))] }

	// One checked request first: the right team comes back.
	status, body, err := getBody(ctx, c, url, key())
	var team client.DataBodyTeam
	if err != nil || status != http.StatusOK || json.Unmarshal(body, &team) != nil || team.Data.Id != env.teamID {
		return result{}, fmt.Errorf("check request: status %d, %v: %.300s", status, err, body)
	}
	return measure(ctx, env, "team-http", func(ctx context.Context) error { return getExpect(ctx, c, url, key(), http.StatusOK, "") })
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
