package main

import (
	"context"

	"github.com/teamtext/teamtext/platform/auth"
)

// runFunc runs one scenario and returns its row.
type runFunc = func(ctx context.Context, env *benchEnv) (result, error)

// scenario is one named load run.
type scenario struct {
	name  string
	desc  string // what one "request" is, shown in the table
	run   runFunc
	group string // which -out section the result belongs to
	api   bool   // sends public API requests (counts when sizing the key pool)
}

// scenarios is the registry, in run order.
var scenarios = []scenario{
	{name: "team-http", group: "foundation", api: true, desc: "HTTP `GET /api/v1/team`: auth gate, handler, huma, bun", run: getRow{path: "/api/v1/team", foundation: true}.run("team-http")},

	{name: "access-healthz", group: "access", desc: "HTTP `GET /healthz`: no auth, no database (the HTTP floor)", run: getRow{path: "/healthz"}.run("access-healthz")},
	{name: "access-nokey", group: "access", desc: "HTTP `GET /api/v1/team` without `Authorization` → 401 `unauthorized` (the per-address limiter's statement)", run: getRow{path: "/api/v1/team", authz: "", code: auth.CodeUnauthorized}.run("access-nokey")},
	{name: "access-badkey", group: "access", desc: "HTTP `GET /api/v1/team` with a malformed bearer key → 401 `unauthorized`", run: getRow{path: "/api/v1/team", authz: "Bearer not-a-teamtext-key", code: auth.CodeUnauthorized}.run("access-badkey")},
	{name: "access-unknownkey", group: "access", desc: "HTTP `GET /api/v1/team` with a well-formed unknown key → 401 `invalid_key` (key lookup, then the per-address limiter)", run: getRow{path: "/api/v1/team", authz: "Bearer " + unknownKey, code: auth.CodeInvalidKey}.run("access-unknownkey")},
	{name: "access-team", group: "access", desc: "HTTP `GET /api/v1/team` with a valid key: the whole gate (key, owner, team, plan, card, 120/min limit), then the handler", run: getRow{path: "/api/v1/team", keyed: true}.run("access-team")},

	{name: "roster-import", group: "roster", desc: "admin CSV import of the team's members in requests of 1,000 rows (name, phone, role, one group each)", run: onRoster(runRosterImport)},
	{name: "roster-pages", group: "roster", desc: "HTTP `GET /members?limit=200&offset=N`, every page in order", run: rosterPages("roster-pages", false)},
	{name: "roster-optout-bulk", group: "roster", desc: "HTTP `POST /opt-outs/bulk` with 500 members' numbers not opted out before", run: onRoster(runRosterOptOutBulk)},
	{name: "roster-validate", group: "roster", desc: "HTTP `POST /recipients/validate` with 100 numbers (on the roster, opted out, unknown, invalid)", run: onRoster(runRosterValidate)},
	{name: "roster-pages-16", group: "roster", desc: "roster-pages with -concurrency workers (the raw-SQL ratio is measured with 16)", run: rosterPages("roster-pages-16", true)},
	// One request each, into the roster team, after its pages.
	{name: "roster-import-5k", group: "roster", desc: "admin CSV import of 5,000 new members in one request", run: importOne("roster-import-5k", blockImport5k, 5000)},
	{name: "roster-import-10k", group: "roster", desc: "admin CSV import of 10,000 new members in one request", run: importOne("roster-import-10k", blockImport10k, 10000)},
	{name: "roster-import-100k", group: "roster", desc: "admin CSV import of 100,000 new members in one request", run: importOne("roster-import-100k", blockImport1e5, 100000)},

	{name: "msg-accept", group: "messaging", desc: "HTTP `POST /messages` to `families` (every member): time to the 201", run: onMsgTeam(runMsgAccept)},
	{name: "msg-deliver", group: "messaging", desc: "one send through the simulator, from the 201 to every delivery's final status", run: onMsgTeam(runMsgDeliver)},
	{name: "river-noop", group: "messaging", desc: "River alone: no-op jobs (`platform.noop`) worked by the service's client", run: runRiverNoop},

	{name: "inbound-texts", group: "inbound15", desc: "inbound texts from the carrier's callback to `message.received` stored", run: shared("inbound", runInbound, "inbound-texts")},
	{name: "inbound-backlog", group: "inbound15", desc: "filing alone: a staged backlog of texts to `message.received` stored", run: shared("inbound", runInbound, "inbound-backlog")},
	{name: "inbound-answers", group: "inbound15", desc: "answers to a poll from the carrier's callback to `message.received` stored, every answer recorded", run: shared("inbound", runInbound, "inbound-answers")},

	{name: "webhooks-recover", group: "webhooks", api: true, desc: "HTTP `POST /webhooks/{id}/recover` of a webhook's 10,000 abandoned deliveries: one set-based UPDATE and the pump's River job, one transaction", run: shared("webhooks", runWebhooks, "webhooks-recover")},
	{name: "webhooks-throttle", group: "webhooks", desc: "recovered deliveries of the webhook throttled at `max_per_second` 50 reaching the receiver, one at a time, in order", run: shared("webhooks", runWebhooks, "webhooks-throttle")},
	{name: "webhooks-pump", group: "webhooks", desc: "recovered deliveries of an unthrottled webhook reaching the receiver: the pump's own pace, one at a time, in order", run: shared("webhooks", runWebhooks, "webhooks-pump")},

	// Last, since it leaves 1,000 teams behind.
	{name: "engine-teams", group: "engine", api: true, desc: "1,000 teams sending at once, each number paced at 1 segment/s", run: shared("engine", runEngine, "engine-teams")},
	{name: "engine-stop", group: "engine", desc: "STOP behind the 1,000 teams' backlog: callback to opt-out recorded", run: shared("engine", runEngine, "engine-stop")},
}
