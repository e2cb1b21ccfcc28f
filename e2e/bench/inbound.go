package main

// Issue 15, item 6: inbound texts from the carrier's callback to
// message.received stored, beside raw pgx sending the same inserts. A
// "reply YES" to a broadcast: every member of a 10,000-member team texts
// the team's number once, from 16 concurrent callbacks, with a few STOPs
// among them (each timed to its opt-out row, behind the inbound backlog).

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/e2e/harness"
)

const (
	inboundTexts   = 10000 // texts of the burst, one per member
	inboundWorkers = 16    // concurrent carrier callbacks
	inboundStopAt  = 1000  // every 1,000th text is a STOP
	inboundBatch   = 500   // texts per transaction in the raw row
	inboundTarget  = 2000  // issue 15: ≥ 2,000 texts/s
)

// Blocks of the inbound fixture's numbers (see roster.go).
const (
	blockInbound       = 6 // the inbound team's members
	blockInboundNumber = 7 // its own number
)

// inboundRun is the fixture and what its two rows measured.
type inboundRun struct {
	texts, backlog, pgx result
}

func runInboundTexts(ctx context.Context, env *benchEnv) (result, error) {
	r, err := env.inboundFx.get(func() (*inboundRun, error) { return runInbound(ctx, env) })
	if err != nil {
		return result{}, err
	}
	return r.texts, nil
}

func runInboundBacklog(ctx context.Context, env *benchEnv) (result, error) {
	r, err := env.inboundFx.get(func() (*inboundRun, error) { return runInbound(ctx, env) })
	if err != nil {
		return result{}, err
	}
	return r.backlog, nil
}

func runInboundPgx(ctx context.Context, env *benchEnv) (result, error) {
	r, err := env.inboundFx.get(func() (*inboundRun, error) { return runInbound(ctx, env) })
	if err != nil {
		return result{}, err
	}
	return r.pgx, nil
}

func runInbound(ctx context.Context, env *benchEnv) (*inboundRun, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return nil, err
	}
	if err := waitQuiet(ctx, pool, "inbound"); err != nil {
		return nil, err
	}
	admin := env.admin()
	number := benchPhone(blockInboundNumber, 0)
	progress("inbound: a team with number %s and %d members…", number, inboundTexts)
	fx, err := harness.NewTeam(ctx, admin, harness.TeamOptions{Extra: map[string]any{"number": number}})
	if err != nil {
		return nil, err
	}
	rows := teamRows(blockInbound, inboundTexts, nil)
	for i := 0; i < len(rows); i += 5000 {
		resp, err := admin.Do(ctx, http.MethodPost, "/teams/"+fx.TeamID+"/members/import", csvBody(rows[i:min(i+5000, len(rows))]), "Content-Type", "text/csv")
		if err != nil {
			return nil, err
		}
		if resp.Status != http.StatusOK {
			return nil, fmt.Errorf("inbound import: status %d: %.300s", resp.Status, resp.Body)
		}
	}
	if _, err := pool.Exec(ctx, `ANALYZE`); err != nil {
		return nil, err
	}

	// The service: 16 callbacks at a time, as fast as they are answered.
	body := func(i int) string {
		if i%inboundStopAt == inboundStopAt/2 {
			return "STOP"
		}
		return "YES"
	}
	stopSent := map[string]time.Time{}
	var mu sync.Mutex
	// The callbacks take about 5 s; the profile covers them (a diagnostic).
	profiled := env.profileService(ctx, "inbound-texts", 5*time.Second)
	defer func() { <-profiled }()
	cpu0 := env.sample(ctx)
	start := time.Now()
	err = parallel(ctx, inboundTexts, inboundWorkers, func(ctx context.Context, i int) error {
		t0 := time.Now()
		resp, err := admin.Do(ctx, http.MethodPost, "/simulator/inbound", map[string]any{"from": rows[i].phone, "to": number, "body": body(i),
			"provider_message_id": fmt.Sprintf("SMbench%d_%d", start.UnixNano(), i)})
		if err != nil {
			return err
		}
		if resp.Status != http.StatusAccepted {
			return fmt.Errorf("callback %d: status %d: %.300s", i, resp.Status, resp.Body)
		}
		if body(i) == "STOP" {
			mu.Lock()
			stopSent[rows[i].phone] = t0
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	answered := time.Since(start)
	progress("inbound: %d callbacks answered in %s; waiting for message.received…", inboundTexts, answered.Round(time.Millisecond))
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.received'`, fx.TeamID).Scan(&n); err != nil {
			return nil, err
		}
		if n >= inboundTexts {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("inbound: %d of %d message.received after 5 minutes", n, inboundTexts)
		}
		if err := sleepUntil(ctx, time.Now().Add(20*time.Millisecond)); err != nil {
			return nil, err
		}
	}
	elapsed := time.Since(start)
	use := env.sample(ctx).sub(cpu0)
	// Latency per text: its event's created_at less its received_at (the callback's time).
	var lat []time.Duration
	erows, err := pool.Query(ctx, `SELECT created_at, (body::jsonb->'data'->>'received_at')::timestamptz FROM webhook_events
WHERE team_id = $1 AND type = 'message.received'`, fx.TeamID)
	if err != nil {
		return nil, err
	}
	var created, received time.Time
	if _, err := pgx.ForEachRow(erows, []any{&created, &received}, func() error {
		lat = append(lat, created.Sub(received))
		return nil
	}); err != nil {
		return nil, err
	}
	var stopLat []time.Duration
	orows, err := pool.Query(ctx, `SELECT phone, created_at FROM roster_opt_outs WHERE team_id = $1`, fx.TeamID)
	if err != nil {
		return nil, err
	}
	var ph string
	if _, err := pgx.ForEachRow(orows, []any{&ph, &created}, func() error {
		if t, ok := stopSent[ph]; ok {
			stopLat = append(stopLat, created.Sub(t))
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if len(stopLat) != len(stopSent) {
		return nil, fmt.Errorf("inbound: %d of %d STOPs opted out", len(stopLat), len(stopSent))
	}
	stops := computeStats(stopLat)
	tr := result{Requests: inboundTexts, Concurrency: inboundWorkers, Elapsed: elapsed, Items: inboundTexts, Unit: "texts",
		Stats: computeStats(lat), Use: use}
	tr.Acquires = env.acquiresPerRequest(use, elapsed, inboundTexts)
	tr.Desc = fmt.Sprintf("%d texts (`YES`, one from each member; every %dth a `STOP`) to the team's number through "+
		"`POST /admin/v1/simulator/inbound` (the carrier's callback), %d at a time: from the first callback to the last "+
		"`message.received` stored; latencies are each text's callback to its event", inboundTexts, inboundStopAt, inboundWorkers)
	tr.Note = fmt.Sprintf("callbacks answered at %.0f/s (all in %s); %d STOPs, callback to opt-out row: p50 %s, max %s",
		float64(inboundTexts)/answered.Seconds(), answered.Round(time.Millisecond), stops.N, fmtDur(stops.P50), fmtDur(stops.Max))
	tr.Target, tr.Met = fmt.Sprintf("≥ %d texts/s", inboundTarget), tr.Throughput() >= inboundTarget

	br, err := inboundBacklog(ctx, env, fx.TeamID, number, rows)
	if err != nil {
		return nil, err
	}
	pr, err := inboundPgx(ctx, env, fx.TeamID, number, rows)
	if err != nil {
		return nil, err
	}
	return &inboundRun{texts: tr, backlog: br, pgx: pr}, nil
}

// inboundBacklog measures filing alone: the same members' texts staged at
// once by SQL (the rows the callbacks insert, and their notification),
// then the time until the service filed them all.
func inboundBacklog(ctx context.Context, env *benchEnv, teamID, number string, rows []memberRow) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	var before int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.received'`, teamID).Scan(&before); err != nil {
		return result{}, err
	}
	phones := make([]string, len(rows))
	for i, r := range rows {
		phones[i] = r.phone
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return result{}, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `INSERT INTO messaging_inbound_pending (provider_message_id, from_phone, to_phone, body, keyword, lane, received_at)
SELECT 'SMbacklog' || $1::text || '_' || i, p, $2, 'YES', false, i % 8, now() FROM unnest($3::text[]) WITH ORDINALITY AS v(p, i)`,
		fmt.Sprint(time.Now().UnixNano()), number, phones); err != nil {
		return result{}, fmt.Errorf("stage the backlog: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify('teamtext_inbound', '')`); err != nil {
		return result{}, err
	}
	cpu0 := env.sample(ctx)
	start := time.Now()
	if err := tx.Commit(ctx); err != nil {
		return result{}, err
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.received'`, teamID).Scan(&n); err != nil {
			return result{}, err
		}
		if n >= before+len(rows) {
			break
		}
		if time.Now().After(deadline) {
			return result{}, fmt.Errorf("inbound backlog: %d of %d filed after 5 minutes", n-before, len(rows))
		}
		if err := sleepUntil(ctx, time.Now().Add(20*time.Millisecond)); err != nil {
			return result{}, err
		}
	}
	elapsed := time.Since(start)
	use := env.sample(ctx).sub(cpu0)
	r := result{Requests: 1, Concurrency: 1, Elapsed: elapsed, Items: len(rows), Unit: "texts", Use: use}
	r.Acquires = env.acquiresPerRequest(use, elapsed, len(rows))
	r.Desc = fmt.Sprintf("filing alone: %d texts (the same members' second `YES`) staged at once by SQL, as the callbacks stage them, "+
		"and filed by the service's filers (%d lanes, 2 loops, batches of up to 500): from the commit to the last `message.received` stored", len(rows), 8)
	r.Target, r.Met = fmt.Sprintf("≥ %d texts/s", inboundTarget), r.Throughput() >= inboundTarget
	return r, nil
}

// inboundPgx sends the same inserts raw: each callback's one insert (a
// staging row, 16 at a time), then the filing in transactions of
// inboundBatch texts: the texts, their message.received events, the day's
// counter.
func inboundPgx(ctx context.Context, env *benchEnv, teamID, number string, rows []memberRow) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	if _, err := pool.Exec(ctx, `CREATE UNLOGGED TABLE IF NOT EXISTS bench_inbound_staging (id bigserial PRIMARY KEY,
  provider_message_id text NOT NULL UNIQUE, from_phone text NOT NULL, to_phone text NOT NULL, body text NOT NULL, received_at timestamptz NOT NULL)`); err != nil {
		return result{}, err
	}
	run := time.Now().UnixNano()
	cpu0 := env.sample(ctx)
	start := time.Now()
	err = parallel(ctx, len(rows), inboundWorkers, func(ctx context.Context, i int) error {
		_, err := pool.Exec(ctx, `INSERT INTO bench_inbound_staging (provider_message_id, from_phone, to_phone, body, received_at)
VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, fmt.Sprintf("SMraw%d_%d", run, i), rows[i].phone, number, "YES", time.Now().UTC())
		return err
	})
	if err != nil {
		return result{}, err
	}
	staged := time.Since(start)
	for {
		n, err := inboundPgxBatch(ctx, env, teamID)
		if err != nil {
			return result{}, err
		}
		if n == 0 {
			break
		}
	}
	elapsed := time.Since(start)
	use := env.sample(ctx).sub(cpu0)
	r := result{Requests: len(rows), Concurrency: inboundWorkers, Elapsed: elapsed, Items: len(rows), Unit: "texts", Use: use,
		Detail: map[string]time.Duration{"staging": staged, "filing": elapsed - staged}}
	r.Acquires = env.acquiresPerRequest(use, elapsed, len(rows))
	r.Desc = fmt.Sprintf("raw pgx, prepared: the same %d texts, each callback one insert of a staging row (%d at a time), then "+
		"transactions of %d: take the rows, insert the texts (`messaging_inbound`, matched to their member by phone), their "+
		"`message.received` events (`webhook_events`) and the day's counter", len(rows), inboundWorkers, inboundBatch)
	r.Note = fmt.Sprintf("staging inserts %.0f/s (all in %s); filing %.0f texts/s (all in %s)", float64(len(rows))/staged.Seconds(),
		staged.Round(time.Millisecond), float64(len(rows))/(elapsed-staged).Seconds(), (elapsed - staged).Round(time.Millisecond))
	r.Target, r.Met = fmt.Sprintf("≥ %d texts/s", inboundTarget), r.Throughput() >= inboundTarget
	return r, nil
}

// inboundPgxBatch files up to inboundBatch staged texts in one transaction.
func inboundPgxBatch(ctx context.Context, env *benchEnv, teamID string) (int, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return 0, err
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	tag, err := tx.Exec(ctx, `WITH taken AS (
  DELETE FROM bench_inbound_staging WHERE id IN (SELECT id FROM bench_inbound_staging ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
  RETURNING *),
texts AS (
  INSERT INTO messaging_inbound (id, team_id, provider_message_id, from_phone, to_phone, body, member_id, member_name, member_role, received_at, created_at)
  SELECT 'inb_raw' || t.id, $1, t.provider_message_id, t.from_phone, t.to_phone, t.body, m.id, m.name, m.role, t.received_at, now()
  FROM taken t LEFT JOIN LATERAL (SELECT id, name, role FROM roster_members WHERE team_id = $1 AND phone = t.from_phone
    AND deleted_at IS NULL ORDER BY created_at, id LIMIT 1) m ON true
  ON CONFLICT (provider_message_id) DO NOTHING
  RETURNING *)
INSERT INTO webhook_events (id, team_id, type, created_at, body, skipped)
SELECT 'evt_raw' || x.id, $1, 'message.received.raw', now(), json_build_object('id', 'evt_raw' || x.id, 'type', 'message.received',
  'data', json_build_object('message_id', x.id, 'provider_message_id', x.provider_message_id, 'from', x.from_phone, 'to', x.to_phone,
  'body', x.body, 'keyword', null, 'group_id', null, 'member', json_build_object('id', x.member_id, 'name', x.member_name, 'role', x.member_role),
  'received_at', x.received_at)), false FROM texts x`, teamID, inboundBatch)
	if err != nil {
		return 0, fmt.Errorf("raw filing: %w", err)
	}
	n := int(tag.RowsAffected())
	if n > 0 {
		if _, err := tx.Exec(ctx, `INSERT INTO messaging_daily_stats AS s (team_id, day, shard, texts_received) VALUES ($1, current_date, 7, $2)
ON CONFLICT (team_id, day, shard) DO UPDATE SET texts_received = s.texts_received + EXCLUDED.texts_received`, teamID, n); err != nil {
			return 0, err
		}
	}
	return n, tx.Commit(ctx)
}

func inboundBullets(_ reportMeta, _ []result) []string {
	return []string{
		fmt.Sprintf("Fixture: a new Team Plus team with its own number and %d athletes and guardians imported through the admin CSV import; "+
			"the simulator (instant profile) is the carrier", inboundTexts),
		fmt.Sprintf("Load: %d callbacks at a time, each text once (the raw row's texts are the same members', under other provider ids, "+
			"stored beside the service's); *CPU* and *DB acquires* per text", inboundWorkers),
	}
}

func inboundReading(_ reportMeta, rs []result) string {
	t, ok1 := findResult(rs, "inbound-texts")
	bl, ok2 := findResult(rs, "inbound-backlog")
	p, ok3 := findResult(rs, "inbound-pgx")
	if !ok1 || !ok2 || !ok3 {
		return ""
	}
	met := map[bool]string{true: "met", false: "**not met**"}
	var b strings.Builder
	fmt.Fprintf(&b, "**Reading.** From the callbacks to `message.received` stored the service filed %s (target %d: %s), against %s "+
		"for the same inserts sent raw: **%.2f×**. %s. Filing alone, a staged backlog of %d texts went at %s (%s): %.2f× the raw "+
		"row's filing. Raw: %s. CPU per text: service %s and Postgres %s end to end, against %s and %s raw.",
		fmtRate(t.Throughput(), "texts"), inboundTarget, met[t.Met], fmtRate(p.Throughput(), "texts"), t.Throughput()/p.Throughput(),
		strings.ToUpper(t.Note[:1])+t.Note[1:], bl.Items, fmtRate(bl.Throughput(), "texts"), met[bl.Met],
		bl.Throughput()/rawFiling(p), p.Note, fmtMicros(t.Use.Service/time.Duration(t.Items)), fmtMicros(t.Use.Postgres/time.Duration(t.Items)),
		fmtMicros(p.Use.Service/time.Duration(p.Items)+p.Use.Bench/time.Duration(p.Items)), fmtMicros(p.Use.Postgres/time.Duration(p.Items)))
	return b.String()
}

// rawFiling is the raw row's filing rate (texts/s).
func rawFiling(p result) float64 {
	if d := p.Detail["filing"]; d > 0 {
		return float64(p.Items) / d.Seconds()
	}
	return p.Throughput()
}
