package main

// Issue 6's benchmark: accepting a send to every member of a -members team
// (10,000), delivering one such send through the carrier simulator, and
// River's own pace with no-op jobs on the same service, machine and queue.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/platform/jobs"
)

const (
	acceptSends    = 10                     // measured sends (one more warms up)
	deliverPoll    = 200 * time.Millisecond // how often msg-deliver reads the deliveries' statuses
	deliverTimeout = 4 * time.Minute        // longest msg-deliver waits for every final status
	noopPoll       = 100 * time.Millisecond
	noopTimeout    = 3 * time.Minute
	quietTimeout   = time.Minute // longest a row waits for the queue to drain before it starts
	// statsSettle is how long a row waits before reading Postgres's
	// counters at its end: a backend that went idle publishes what it
	// counted within 10 s (PGSTAT_IDLE_INTERVAL).
	statsSettle = 11 * time.Second

	acceptTarget  = 150 * time.Millisecond // issue 6: time to accept
	deliverTarget = 5000.0                 // issue 6: deliveries per second
)

// noopArgs is the service's platform.noop job (platform/jobs.NoopArgs).
type noopArgs struct{}

func (noopArgs) Kind() string { return "platform.noop" }

// msgTeam is the messaging scenarios' team: a sending number and -members
// athletes and guardians (the "families" audience).
type msgTeam struct {
	teamID, coachID string
	members         int
}

// msgNumber is the team's sending number.
const msgNumber = "+12025550142"

func (e *benchEnv) msgTeam(ctx context.Context) (*msgTeam, error) {
	return e.msgFx.get(func() (*msgTeam, error) {
		admin := e.admin()
		progress("messaging: creating a team with %d members…", e.members)
		fx, err := harness.NewTeam(ctx, admin, harness.TeamOptions{Extra: map[string]any{"number": msgNumber}})
		if err != nil {
			return nil, fmt.Errorf("create the messaging team: %w", err)
		}
		if _, err := importRows(ctx, e, "messaging setup", fx.TeamID, teamRows(blockMessaging, e.members, nil), importChunk); err != nil {
			return nil, err
		}
		// Every text delivered (the simulator's outcomes are global).
		if err := admin.Expect(ctx, http.StatusOK, http.MethodPut, "/simulator/outcomes",
			map[string]any{"default": "delivered", "numbers": map[string]string{}, "error_code": "30005"}, nil); err != nil {
			return nil, err
		}
		return &msgTeam{teamID: fx.TeamID, coachID: fx.CoachID, members: e.members}, nil
	})
}

// riverClient is an insert-only River client on the bench's pool, for the
// queue's pause and resume and the no-op jobs (River's own API, so the
// notifications reach the service's producers on the channels River uses).
func (e *benchEnv) riverClient(ctx context.Context) (*river.Client[pgx.Tx], error) {
	return e.riverFx.get(func() (*river.Client[pgx.Tx], error) {
		pool, err := e.pgxPool(ctx)
		if err != nil {
			return nil, err
		}
		return river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	})
}

// pauseQueues pauses the service's queues (no job is fetched; running ones
// finish) and returns the resume.
func pauseQueues(ctx context.Context, rc *river.Client[pgx.Tx], queues ...string) (func() error, error) {
	for _, q := range queues {
		if err := rc.QueuePause(ctx, q, nil); err != nil {
			return nil, fmt.Errorf("pause River's queue %s: %w", q, err)
		}
	}
	// The producer learns it from a notification within milliseconds.
	select {
	case <-time.After(500 * time.Millisecond):
	case <-ctx.Done():
	}
	return func() error {
		for _, q := range queues {
			if err := rc.QueueResume(context.WithoutCancel(ctx), q, nil); err != nil {
				return fmt.Errorf("resume River's queue %s: %w", q, err)
			}
		}
		return nil
	}, nil
}

// The service's queues: fan-outs and pumps go to outbound, status
// ingestion to status (see modules/messaging).
const (
	queueOutbound = "outbound"
	queueStatus   = "status"
)

// waitQuiet waits until no job is available or running, so that a row
// measures its own jobs only (scheduled ones, such as each send's 72-hour
// unconfirm job, do not count, nor the perpetual pumps, which are due every
// second).
func waitQuiet(ctx context.Context, pool *pgxpool.Pool, name string) error {
	deadline := time.Now().Add(quietTimeout)
	for {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state IN ('available', 'running') AND scheduled_at <= now()
  AND kind NOT IN ('messaging.pump', 'messaging.sim_reports')`).Scan(&n)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			progress("scenario %s: %d jobs still pending after %s; starting anyway", name, n, quietTimeout)
			return nil
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func maxJobID(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	var id int64
	err := pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM river_job`).Scan(&id)
	return id, err
}

// sentMessage is the part of POST /messages' answer the bench reads.
type sentMessage struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Recipients int    `json:"recipients"`
}

// send posts a text to families with key and returns the message and the
// time to its 201.
func send(ctx context.Context, env *benchEnv, key, text string, want int) (sentMessage, time.Duration, error) {
	t0 := time.Now()
	resp, err := env.api(key).Do(ctx, http.MethodPost, "/messages", map[string]any{"text": text, "audience": "families"})
	d := time.Since(t0)
	if err != nil {
		return sentMessage{}, d, err
	}
	if resp.Status != http.StatusCreated {
		return sentMessage{}, d, fmt.Errorf("POST /messages: status %d: %.300s", resp.Status, resp.Body)
	}
	var m sentMessage
	if err := resp.Data(&m); err != nil {
		return m, d, err
	}
	if m.Status != "queued" || m.Recipients != want {
		return m, d, fmt.Errorf("POST /messages: %s with %d recipients, want queued with %d", m.Status, m.Recipients, want)
	}
	return m, d, nil
}

// runMsgAccept times POST /messages with River's queues paused, so that no
// earlier send's fan-out competes with the next accept (on two CPUs each
// would take many seconds); each send's fan-out jobs are then cancelled
// unrun, which the row checks.
func runMsgAccept(ctx context.Context, env *benchEnv) (result, error) {
	mt, err := env.msgTeam(ctx)
	if err != nil {
		return result{}, err
	}
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	rc, err := env.riverClient(ctx)
	if err != nil {
		return result{}, err
	}
	const warmup = 1
	ring, err := newKeyRing(ctx, env, mt.teamID, mt.coachID, "bench-accept", warmup+acceptSends, 1)
	if err != nil {
		return result{}, err
	}
	if err := waitQuiet(ctx, pool, "msg-accept"); err != nil {
		return result{}, err
	}
	resume, err := pauseQueues(ctx, rc, river.QueueDefault, queueOutbound, queueStatus)
	if err != nil {
		return result{}, err
	}
	var fanouts, ran int
	one := func(ctx context.Context, run int) (time.Duration, error) {
		before, err := maxJobID(ctx, pool)
		if err != nil {
			return 0, err
		}
		_, d, err := send(ctx, env, ring.key(), fmt.Sprintf("Practice moves to 6pm tonight (bench send %d)", run), mt.members)
		if err != nil {
			return d, err
		}
		tag, err := pool.Exec(ctx, `UPDATE river_job SET state = 'cancelled', finalized_at = now()
WHERE id > $1 AND kind = 'messaging.fanout' AND state = 'available'`, before)
		if err != nil {
			return d, err
		}
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE id > $1 AND kind = 'messaging.fanout'`, before).Scan(&n); err != nil {
			return d, err
		}
		if run >= warmup {
			fanouts += n
			ran += n - int(tag.RowsAffected())
		}
		return d, nil
	}
	r, err := timedRuns(ctx, env, "msg-accept", warmup, acceptSends, 0, "", one)
	if rerr := resume(); err == nil {
		err = rerr
	}
	if err != nil {
		return result{}, err
	}
	r.Desc = fmt.Sprintf("HTTP `POST /messages` `{\"text\", \"audience\": \"families\"}` to %d recipients: audience resolved, "+
		"%d delivery rows, credits and %d fan-out jobs written in one transaction; time to the 201; %d sends after one "+
		"unmeasured, a fresh key each, River's queues paused meanwhile and the fan-out jobs cancelled unrun; Postgres's CPU "+
		"includes its background work after the inserts (autovacuum, WAL)",
		mt.members, mt.members, (mt.members+99)/100, acceptSends)
	r.Note = fmt.Sprintf("%.0f fan-out jobs per send, %d of them ran", float64(fanouts)/acceptSends, ran)
	r.Target, r.Met = "p99 < 150 ms", r.Stats.P99 < acceptTarget
	return r, nil
}

// dbStats are Postgres's cumulative counters for the database.
type dbStats struct{ commits, inserted, updated int64 }

func readDBStats(ctx context.Context, pool *pgxpool.Pool) (dbStats, error) {
	var s dbStats
	err := pool.QueryRow(ctx, `SELECT xact_commit, tup_inserted, tup_updated FROM pg_stat_database WHERE datname = current_database()`).
		Scan(&s.commits, &s.inserted, &s.updated)
	return s, err
}

// waitSampler counts what Postgres's client backends are doing at each
// poll: on CPU, waiting on something (wait_event_type:wait_event), or idle
// inside a transaction (waiting for the service's next statement).
type waitSampler struct {
	counts  map[string]int
	samples int
}

func (w *waitSampler) sample(ctx context.Context, pool *pgxpool.Pool) error {
	rows, err := pool.Query(ctx, `SELECT CASE
    WHEN state = 'idle in transaction' THEN 'idle in a transaction (waiting for the service)'
    WHEN wait_event_type IS NULL THEN 'running'
    ELSE 'waiting on ' || wait_event_type || ':' || wait_event END,
  CASE WHEN state = 'active' AND wait_event_type = 'Lock' THEN regexp_replace(left(query, 48), '\s+', ' ', 'g') ELSE '' END,
  count(*)
FROM pg_stat_activity
WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')
GROUP BY 1, 2`)
	if err != nil {
		return err
	}
	defer rows.Close()
	if w.counts == nil {
		w.counts = map[string]int{}
	}
	w.samples++
	for rows.Next() {
		var k, stmt string
		var n int
		if err := rows.Scan(&k, &stmt, &n); err != nil {
			return err
		}
		if stmt != "" {
			k += " in `" + strings.TrimSpace(stmt) + "…`"
		}
		w.counts[k] += n
	}
	return rows.Err()
}

// top renders the most frequent states as average backends per sample.
func (w *waitSampler) top(n int) string {
	if w.samples == 0 {
		return ""
	}
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range w.counts {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v || (all[i].v == all[j].v && all[i].k < all[j].k) })
	var parts []string
	for _, e := range all[:min(n, len(all))] {
		if avg := float64(e.v) / float64(w.samples); avg >= 0.05 {
			parts = append(parts, fmt.Sprintf("%s %.1f", e.k, avg))
		}
	}
	if len(parts) == 0 {
		return "hardly any backend busy at a poll"
	}
	return strings.Join(parts, ", ")
}

func runMsgDeliver(ctx context.Context, env *benchEnv) (result, error) {
	mt, err := env.msgTeam(ctx)
	if err != nil {
		return result{}, err
	}
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	keys, err := createKeys(ctx, env.admin(), mt.teamID, mt.coachID, "bench-deliver", 1)
	if err != nil {
		return result{}, err
	}
	if err := waitQuiet(ctx, pool, "msg-deliver"); err != nil {
		return result{}, err
	}
	before, err := maxJobID(ctx, pool)
	if err != nil {
		return result{}, err
	}
	var outbox0 int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM messaging_sim_outbox WHERE team_id = $1`, mt.teamID).Scan(&outbox0); err != nil {
		return result{}, err
	}
	// Earlier rows' counts (msg-accept's inserts) must not land in this one's.
	progress("scenario msg-deliver: waiting %s for Postgres's counters…", statsSettle)
	select {
	case <-time.After(statsSettle):
	case <-ctx.Done():
		return result{}, ctx.Err()
	}
	st0, err := readDBStats(ctx, pool)
	if err != nil {
		return result{}, err
	}

	progress("scenario msg-deliver: one send to %d recipients…", mt.members)
	cpu0 := env.sample(ctx)
	posted := time.Now()
	m, acceptD, err := send(ctx, env, keys[0], "Game day! Bus leaves at 7:30 from the gym (bench)", mt.members)
	if err != nil {
		return result{}, err
	}
	accepted := posted.Add(acceptD)

	var (
		handedCurve, finalCurve   []curvePoint
		handedAt, firstFinal, end time.Time
		final, polls              int
		waits                     waitSampler
		lastLog                   = time.Now()
	)
	deadline := accepted.Add(deliverTimeout)
	for {
		select {
		case <-time.After(deliverPoll):
		case <-ctx.Done():
			return result{}, ctx.Err()
		}
		var handed int
		err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status <> 'queued'),
       count(*) FILTER (WHERE status IN ('delivered', 'failed', 'delivery_unconfirmed'))
FROM messaging_deliveries WHERE message_id = $1`, m.ID).Scan(&handed, &final)
		now := time.Now()
		if err != nil {
			return result{}, err
		}
		polls++
		if err := waits.sample(ctx, pool); err != nil {
			return result{}, err
		}
		handedCurve = append(handedCurve, curvePoint{now, handed})
		finalCurve = append(finalCurve, curvePoint{now, final})
		if handedAt.IsZero() && handed == m.Recipients {
			handedAt = now
		}
		if firstFinal.IsZero() && final > 0 {
			firstFinal = now
		}
		if time.Since(lastLog) >= 5*time.Second {
			progress("scenario msg-deliver: %s: %d handed to the carrier, %d final", now.Sub(accepted).Round(100*time.Millisecond), handed, final)
			lastLog = time.Now()
		}
		if final == m.Recipients {
			end = now
			break
		}
		if now.After(deadline) {
			end = now
			break
		}
	}
	use := env.sample(ctx).sub(cpu0)
	if final == 0 {
		return result{}, fmt.Errorf("msg-deliver: no delivery reached a final status within %s", deliverTimeout)
	}
	progress("scenario msg-deliver: %d of %d final %s after the accept", final, m.Recipients, end.Sub(accepted).Round(time.Millisecond))

	// What the send produced, counted once the counters have settled.
	progress("scenario msg-deliver: waiting %s for Postgres's counters…", statsSettle)
	time.Sleep(statsSettle)
	st1, err := readDBStats(ctx, pool)
	if err != nil {
		return result{}, err
	}
	counts := map[string]int64{
		"commits":       st1.commits - st0.commits - int64(2*polls+5), // less the bench's own reads
		"rows_inserted": st1.inserted - st0.inserted,
		"rows_updated":  st1.updated - st0.updated,
	}
	rows, err := pool.Query(ctx, `SELECT kind, count(*) FROM river_job WHERE id > $1 GROUP BY kind`, before)
	if err != nil {
		return result{}, err
	}
	for rows.Next() {
		var kind string
		var n int64
		if err := rows.Scan(&kind, &n); err != nil {
			rows.Close()
			return result{}, err
		}
		counts["job:"+kind] = n
	}
	if err := rows.Err(); err != nil {
		return result{}, err
	}
	var events, outbox int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.status'`, mt.teamID).Scan(&events); err != nil {
		return result{}, err
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM messaging_sim_outbox WHERE team_id = $1`, mt.teamID).Scan(&outbox); err != nil {
		return result{}, err
	}
	counts["events"], counts["outbox"] = events, outbox-int64(outbox0)

	r := result{Requests: 1, Concurrency: 1, Elapsed: end.Sub(accepted), Items: final, Unit: "deliveries",
		Truncated: final < m.Recipients, Stats: curveStats(accepted, finalCurve), Use: use, Counts: counts,
		Detail: map[string]time.Duration{"accept": acceptD}, Waits: waits.top(4)}
	r.Use.BenchAcquires = 0 // the bench's polls are not the service's work
	r.Acquires = env.acquiresPerRequest(r.Use, end.Sub(posted), r.units())
	if !firstFinal.IsZero() {
		r.Detail["first_final"] = firstFinal.Sub(accepted)
	}
	if !handedAt.IsZero() {
		r.Detail["handed"] = handedAt.Sub(accepted)
		r.Detail["handed_p50"] = curveStats(accepted, handedCurve).P50
	}
	r.Desc = fmt.Sprintf("one `POST /messages` to %d recipients through the simulator (every outcome `delivered`): from the 201 "+
		"to the last final status, read from `messaging_deliveries` every %s; latencies are each delivery's time from the 201 to "+
		"its final status; CPU and acquires from just before the request, the accept included", mt.members, deliverPoll)
	r.Target, r.Met = "≥ 5,000 deliveries/s", !r.Truncated && r.Throughput() >= deliverTarget
	return r, nil
}

// noopJobs is how many no-op jobs river-noop works.
func noopJobs(env *benchEnv) int { return 2 * env.members }

// runRiverNoop inserts no-op jobs with the queue paused, resumes it, and
// times the service's River client working them all.
func runRiverNoop(ctx context.Context, env *benchEnv) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	rc, err := env.riverClient(ctx)
	if err != nil {
		return result{}, err
	}
	n := noopJobs(env)
	if err := waitQuiet(ctx, pool, "river-noop"); err != nil {
		return result{}, err
	}
	before, err := maxJobID(ctx, pool)
	if err != nil {
		return result{}, err
	}
	resume, err := pauseQueues(ctx, rc, river.QueueDefault)
	if err != nil {
		return result{}, err
	}
	params := make([]river.InsertManyParams, n)
	for i := range params {
		params[i] = river.InsertManyParams{Args: noopArgs{}}
	}
	progress("scenario river-noop: inserting %d no-op jobs (queue paused)…", n)
	if _, err := rc.InsertManyFast(ctx, params); err != nil {
		_ = resume()
		return result{}, fmt.Errorf("insert no-op jobs: %w", err)
	}
	st0, err := readDBStats(ctx, pool)
	if err != nil {
		_ = resume()
		return result{}, err
	}
	cpu0 := env.sample(ctx)
	start := time.Now()
	if err := resume(); err != nil {
		return result{}, err
	}
	var (
		curve []curvePoint
		done  int
		end   time.Time
		polls int
		waits waitSampler
	)
	deadline := start.Add(noopTimeout)
	for {
		select {
		case <-time.After(noopPoll):
		case <-ctx.Done():
			return result{}, ctx.Err()
		}
		err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE id > $1 AND kind = 'platform.noop' AND state = 'completed'`, before).Scan(&done)
		now := time.Now()
		if err != nil {
			return result{}, err
		}
		polls++
		if err := waits.sample(ctx, pool); err != nil {
			return result{}, err
		}
		curve = append(curve, curvePoint{now, done})
		if done == n || now.After(deadline) {
			end = now
			break
		}
	}
	use := env.sample(ctx).sub(cpu0)
	if done == 0 {
		return result{}, fmt.Errorf("river-noop: no job completed within %s", noopTimeout)
	}
	progress("scenario river-noop: waiting %s for Postgres's counters…", statsSettle)
	time.Sleep(statsSettle)
	st1, err := readDBStats(ctx, pool)
	if err != nil {
		return result{}, err
	}
	r := result{Requests: 1, Concurrency: 1, Elapsed: end.Sub(start), Items: done, Unit: "jobs", Truncated: done < n,
		Stats: curveStats(start, curve), Use: use, Waits: waits.top(4),
		Counts: map[string]int64{"commits": st1.commits - st0.commits - int64(2*polls+2), "rows_updated": st1.updated - st0.updated}}
	r.Use.BenchAcquires = 0
	r.Acquires = env.acquiresPerRequest(r.Use, r.Elapsed, r.units())
	r.Desc = fmt.Sprintf("%d `platform.noop` jobs inserted with the queue paused, then worked by the service's River client "+
		"(`JOB_WORKERS` 50) from the resume to the last `completed`, read every %s; latencies are each job's time from the resume",
		n, noopPoll)
	progress("scenario river-noop: %d jobs in %s: %s", done, r.Elapsed.Round(time.Millisecond), fmtRate(r.Throughput(), "jobs"))
	return r, nil
}

func messagingBullets(meta reportMeta, rs []result) []string {
	return []string{
		fmt.Sprintf("Fixture: a new Team Plus team with a sending number and %d members (athletes and guardians: the "+
			"`families` audience), imported through the admin CSV import; simulator outcome `delivered` for every number; "+
			"one `teamtext serve` runs the API and River (fan-outs in the `outbound` queue, `OUTBOUND_WORKERS` 20; statuses in `status`, "+
			"`STATUS_WORKERS` 10; no-op jobs in `default`, `JOB_WORKERS` 50)", meta.Env.members),
		"Load: one request at a time; every send with a fresh key (sends are limited to 20/min per key); " +
			"*CPU* and *DB acquires* per unit: per send, per delivery, per no-op job; the bench's own status polls are " +
			"left out of the acquires but are in Postgres's CPU (one indexed count every poll)",
	}
}

// jobWorkers and outboundWorkers are the service's JOB_WORKERS and
// OUTBOUND_WORKERS (their defaults: the bench sets none).
const (
	jobWorkers      = 50
	outboundWorkers = 20
)

// riverCap is the most jobs a second one River producer starts with
// jobWorkers workers: it fetches at most as many jobs as it has free
// workers, and fetches at most once per FetchCooldown (the service's
// JOB_FETCH_COOLDOWN default, jobs.DefaultFetchCooldown).
func riverCap() float64 { return jobWorkers / jobs.DefaultFetchCooldown.Seconds() }

// busy is the share of the machine's CPUs the three processes used during r.
func busy(r result, cpus int) (float64, bool) {
	if !r.Use.HasService || !r.Use.HasPostgres || r.Elapsed <= 0 || cpus <= 0 {
		return 0, false
	}
	return (r.Use.Bench + r.Use.Service + r.Use.Postgres).Seconds() / r.Elapsed.Seconds() / float64(cpus), true
}

func messagingReading(meta reportMeta, rs []result) string {
	acc, ok1 := findResult(rs, "msg-accept")
	del, ok2 := findResult(rs, "msg-deliver")
	noop, ok3 := findResult(rs, "river-noop")
	if !(ok1 && ok2 && ok3) || del.units() == 0 || noop.units() == 0 {
		return ""
	}
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**not met**"
	}
	perUnit := func(r result, d time.Duration) time.Duration { return d / time.Duration(r.units()) }
	n := float64(del.units())
	cpus := meta.Facts.NumCPU
	var b strings.Builder
	b.WriteString("**Reading.** ")

	fmt.Fprintf(&b, "**Accept:** a send to %d recipients was accepted in %s at the median and %s at p99 (target < %s: %s)",
		meta.Env.members, fmtDur(acc.Stats.P50), fmtDur(acc.Stats.P99), fmtMs(acceptTarget), met(acc.Met))
	if acc.Use.HasService && acc.Use.HasPostgres {
		fmt.Fprintf(&b, ", with %s of service and %s of Postgres CPU per send", fmtMicros(perUnit(acc, acc.Use.Service)), fmtMicros(perUnit(acc, acc.Use.Postgres)))
	}
	fmt.Fprintf(&b, ". The request resolves the audience and writes, in its one transaction, a delivery row per recipient (one "+
		"statement with two array parameters, phones and roster entries; the ids are built by the statement) and %d fan-out jobs, so its time grows with the audience: about %s per recipient here. ",
		(meta.Env.members+99)/100, fmtMicros(acc.Stats.P50/time.Duration(meta.Env.members)))

	fmt.Fprintf(&b, "**Delivery:** the send's last delivery reached its final status %s after the 201: **%s** against the "+
		"target of %.0f (%s)", fmtDur(del.Elapsed), fmtRate(del.Throughput(), "deliveries"), deliverTarget, met(del.Met))
	if h := del.Detail["handed"]; h > 0 {
		fmt.Fprintf(&b, "; every text had been handed to the simulator %s after the 201 (half of them after %s)", fmtDur(h), fmtDur(del.Detail["handed_p50"]))
	}
	if f, h, fanouts := del.Detail["first_final"], del.Detail["handed"], del.Counts["job:messaging.fanout"]; f > 0 && fanouts > 0 {
		fmt.Fprintf(&b, ", and the first final status was seen %s after it", fmtDur(f))
		if h > 0 && f >= h/2 {
			fmt.Fprintf(&b, ": the %d fan-out jobs (up to %d at once in the `outbound` queue, each handing a batch of about %.0f "+
				"texts over in one call) take the machine's CPU before the status jobs the simulator queues in theirs",
				fanouts, outboundWorkers, n/float64(fanouts))
		}
	}
	b.WriteString(". ")
	fmt.Fprintf(&b, "**River alone** worked %d no-op jobs at **%s** on the same service, so the deliveries ran at "+
		"**%.2f×** River's own pace here. ", noop.units(), fmtRate(noop.Throughput(), "jobs"), del.Throughput()/noop.Throughput())

	// River's pace: the fetch cadence, not CPU.
	capJobs := riverCap()
	if u, ok := busy(noop, cpus); ok && noop.Throughput() >= 0.8*capJobs {
		fmt.Fprintf(&b, "That pace is not River's CPU limit but its fetch cadence: a producer fetches at most as many jobs as "+
			"it has free workers (`JOB_WORKERS` %d) and at most once per `FetchCooldown` (`JOB_FETCH_COOLDOWN`, default %s), "+
			"so at most %.0f jobs a second start, and the no-op run reached %.0f%% of that while the three "+
			"processes used %.0f%% of the %d CPUs. ", jobWorkers, fmtDur(jobs.DefaultFetchCooldown), capJobs,
			100*noop.Throughput()/capJobs, 100*u, cpus)
	}
	status := float64(del.Counts["job:messaging.delivery_status"]) / n
	if status >= 0.9 {
		fmt.Fprintf(&b, "Each delivery has a River job of its own (%.2f `messaging.delivery_status` jobs per delivery), so "+
			"the same cadence caps deliveries at about %.0f a second before any of their own cost; %.0f a second needs "+
			"several deliveries per job, or a River configured for %.0f× the jobs. ", status, capJobs/status, deliverTarget, deliverTarget*status/capJobs)
	}

	// Where the time goes, from what the run observed.
	b.WriteString("**Where the time goes.** Observed per delivery: ")
	var facts []string
	var kinds []string
	for k := range del.Counts {
		if strings.HasPrefix(k, "job:") {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	var jobs []string
	for _, k := range kinds {
		jobs = append(jobs, fmt.Sprintf("%.2f `%s`", float64(del.Counts[k])/n, strings.TrimPrefix(k, "job:")))
	}
	if len(jobs) > 0 {
		facts = append(facts, "River jobs "+strings.Join(jobs, ", "))
	}
	facts = append(facts, fmt.Sprintf("%.2f `message.status` events and %.2f simulator outbox rows",
		float64(del.Counts["events"])/n, float64(del.Counts["outbox"])/n))
	commits := float64(del.Counts["commits"]) / n
	facts = append(facts, fmt.Sprintf("%.1f Postgres commits (transactions and autocommitted statements, from "+
		"`pg_stat_database`), %.1f rows inserted and %.1f updated", commits,
		float64(del.Counts["rows_inserted"])/n, float64(del.Counts["rows_updated"])/n))
	if del.Use.HasAcq {
		facts = append(facts, fmt.Sprintf("%.1f service pool acquires", del.Acquires))
	}
	b.WriteString(strings.Join(facts, "; ") + ". ")
	fmt.Fprintf(&b, "A no-op job: %.2f commits and %.1f updated rows", float64(noop.Counts["commits"])/float64(noop.units()),
		float64(noop.Counts["rows_updated"])/float64(noop.units()))
	if noop.Use.HasAcq {
		fmt.Fprintf(&b, ", %.2f acquires", noop.Acquires)
	}
	b.WriteString(" (River fetches and completes jobs in batches). ")
	if del.Use.HasService && del.Use.HasPostgres && noop.Use.HasService && noop.Use.HasPostgres {
		ds, dp := perUnit(del, del.Use.Service), perUnit(del, del.Use.Postgres)
		ns, np := perUnit(noop, noop.Use.Service), perUnit(noop, noop.Use.Postgres)
		total := ds + dp + perUnit(del, del.Use.Bench)
		fmt.Fprintf(&b, "CPU per delivery: service %s, Postgres %s (per no-op job: %s and %s)", fmtMicros(ds), fmtMicros(dp), fmtMicros(ns), fmtMicros(np))
		if u, ok := busy(del, cpus); ok {
			fmt.Fprintf(&b, "; the three processes kept %.0f%% of the %d CPUs busy during the delivery", 100*u, cpus)
		}
		if total > 0 {
			fmt.Fprintf(&b, ". At %s of CPU per delivery in all, %d CPUs cannot deliver more than about %.0f a second "+
				"however the work is scheduled; %.0f a second would need at most %s per delivery in all",
				fmtMicros(total), cpus, float64(cpus)/total.Seconds(), deliverTarget,
				fmtMicros(time.Duration(float64(cpus)/deliverTarget*float64(time.Second))))
		}
		b.WriteString(". ")
	}
	if del.Waits != "" {
		fmt.Fprintf(&b, "Postgres's client backends at each poll of the delivery, on average: %s", del.Waits)
		if noop.Waits != "" {
			fmt.Fprintf(&b, " (during the no-op run: %s)", noop.Waits)
		}
		b.WriteString(". ")
		if strings.Contains(del.Waits, "idle in a transaction") {
			b.WriteString("Backends idle inside a transaction are waiting for the service's next statement: with the CPUs " +
				"shared, much of a transaction's life is the service's turn, and any row lock it holds is held meanwhile. ")
		}
		if strings.Contains(del.Waits, "messaging_daily_stats") {
			b.WriteString("The lock waits are on the per-day analytics counter: every status transaction upserts one of its " +
				"few shard rows and keeps that row locked until it commits, after publishing the event, so the status " +
				"jobs queue on those rows. ")
		}
	}
	if fanouts := float64(del.Counts["job:messaging.fanout"]); fanouts > 0 && status < 0.5 {
		fmt.Fprintf(&b, "The path in the code, per fan-out batch of about %.0f texts: one upsert recording the message as "+
			"each number's latest broadcast (what inbound replies are filed under), a simulator transaction (the batch's "+
			"outbox rows in one statement, the outcomes read once, one status job carrying the batch's reports), one "+
			"statement marking the batch `sent` and moving the message's counts, and the status job's transaction (the "+
			"deliveries locked in id order, the batch's `message.status` events in one insert, one counter upsert, one "+
			"statement updating the deliveries and the message's counts). Delivery updates touch no index (the status "+
			"is not indexed and the table keeps room for HOT updates), so what remains per delivery is its rows: the "+
			"delivery itself (inserted, then updated twice), its number's latest-broadcast row, its outbox row and its event. ", n/fanouts)
	}
	b.WriteString("All figures move between runs on a shared machine; compare rows of one run.")
	return b.String()
}
