package main

// Inbound texts from the carrier's callback to message.received stored. A
// "reply YES" to a broadcast: every member of a 10,000-member team texts
// the team's number once, from 16 concurrent callbacks, with a few STOPs
// among them (each timed to its opt-out row, behind the inbound backlog).
// The staging and filing statements sent raw are messaging's
// BenchmarkStageInbound and BenchmarkFileInbound (make bench-sql).

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
)

const (
	inboundTexts   = 10000 // texts of the burst, one per member
	inboundWorkers = 16    // concurrent carrier callbacks
	inboundStopAt  = 1000  // every 1,000th text is a STOP
	inboundTarget  = 2000  // the goal: ≥ 2,000 texts/s
	inboundTimeout = 5 * time.Minute
)

// filed times stage, which hands the service n texts to team, to the last
// of their message.received events stored. It polls the staging table,
// not the events: a text's event is stored in the transaction that takes
// it off that table, so once no text is staged the events are all there,
// and the count is taken once to check. Counting the team's events every
// 20 ms took Postgres most of a core once they were tens of thousands, and
// the figures measured the bench's polls.
func filed(ctx context.Context, env *benchEnv, teamID string, n int, stage func() error) (result, error) {
	received := func() (int, error) {
		return scalar[int](ctx, env.pool, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.received'`, teamID)
	}
	before, err := received()
	if err != nil {
		return result{}, err
	}
	m := env.meter(ctx)
	if err := stage(); err != nil {
		return result{}, err
	}
	drained, err := load.WaitFor(ctx, 20*time.Millisecond, inboundTimeout, func() (bool, error) {
		staged, err := scalar[bool](ctx, env.pool, `SELECT EXISTS (SELECT 1 FROM messaging_inbound_pending)`)
		return !staged, err
	})
	if err != nil {
		return result{}, err
	}
	got, err := received()
	if err == nil && (!drained || got < before+n) {
		err = fmt.Errorf("inbound: %d of %d message.received after %s", got, before+n, inboundTimeout)
	}
	if err != nil {
		return result{}, err
	}
	r := result{Run: load.Run{Requests: 1}, Concurrency: 1, Items: n, Unit: "texts"}
	m.finish(ctx, &r, true)
	return r, nil
}

func runInbound(ctx context.Context, env *benchEnv) (map[string]result, error) {
	if _, err := waitQuiet(ctx, env.pool, "inbound"); err != nil {
		return nil, err
	}
	admin := env.admin()
	number := harness.Phone(blockInboundNumber, 0)
	progress("inbound: a team with number %s and %d members…", number, inboundTexts)
	fx, err := harness.NewTeam(ctx, admin, harness.TeamOptions{Extra: map[string]any{"number": number}})
	if err != nil {
		return nil, err
	}
	rows := teamRows(blockInbound, inboundTexts, nil)
	if _, err := importRows(ctx, env, "inbound setup", fx.TeamID, rows, 5000); err != nil {
		return nil, err
	}
	if _, err := env.pool.Exec(ctx, `ANALYZE`); err != nil {
		return nil, err
	}

	body := func(i int) string {
		if i%inboundStopAt == inboundStopAt/2 {
			return "STOP"
		}
		return "YES"
	}
	// The callbacks take about 5 s; the profile covers them (a diagnostic).
	defer env.profileService(ctx, "inbound-texts", 5*time.Second)()
	sent := make([]time.Time, len(rows))
	tr, answered, err := callbacks(ctx, env, fx.TeamID, number, rows, "SMbench", body, sent)
	if err != nil {
		return nil, err
	}
	stopSent := map[string]time.Time{}
	for i, r := range rows {
		if body(i) == "STOP" {
			stopSent[r.Phone] = sent[i]
		}
	}
	stopLat, err := sinceSent(ctx, env.pool, stopSent, `SELECT phone, created_at FROM roster_opt_outs WHERE team_id = $1`, fx.TeamID)
	if err != nil {
		return nil, err
	}
	if len(stopLat) != len(stopSent) {
		return nil, fmt.Errorf("inbound: %d of %d STOPs opted out", len(stopLat), len(stopSent))
	}
	stops := load.Summarise(stopLat)
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
	ar, err := inboundAnswers(ctx, env, fx, number, rows, tr)
	if err != nil {
		return nil, err
	}
	return map[string]result{"inbound-texts": tr, "inbound-backlog": br, "inbound-answers": ar}, nil
}

// callbacks sends body(i) from each member rows[i] through the carrier's
// callback, inboundWorkers at a time (sent[i] its start), each with a
// random provider id after tag, as a carrier's are (a sequence put every
// staging insert on the unique index's last page, and the row measured
// that page's lock), and measures them filed, with each text's callback
// to its event as latencies. It also returns how long the callbacks took.
func callbacks(ctx context.Context, env *benchEnv, teamID, number string, rows []harness.Member, tag string, body func(i int) string,
	sent []time.Time) (result, time.Duration, error) {
	// A connection per worker, kept alive, as a carrier's callbacks come:
	// the harness client's transport keeps 2, and most callbacks dialled.
	admin := &harness.Client{Base: env.svc.AdminURL + "/admin/v1", Token: harness.AdminToken, HTTP: load.Client(inboundWorkers, nil)}
	var start time.Time
	var answered time.Duration
	r, err := filed(ctx, env, teamID, len(rows), func() error {
		start = time.Now()
		err := load.Parallel(ctx, len(rows), inboundWorkers, func(ctx context.Context, i int) error {
			sent[i] = time.Now()
			err := admin.Expect(ctx, http.StatusAccepted, http.MethodPost, "/simulator/inbound", map[string]any{"from": rows[i].Phone, "to": number,
				"body": body(i), "provider_message_id": tag + rand.Text()}, nil)
			if err != nil {
				return fmt.Errorf("callback %d: %w", i, err)
			}
			return nil
		})
		answered = time.Since(start)
		progress("inbound: %d callbacks answered in %s; waiting for message.received…", len(rows), answered.Round(time.Millisecond))
		return err
	})
	if err != nil {
		return result{}, 0, err
	}
	r.Requests, r.Concurrency = len(rows), inboundWorkers
	var lat []time.Duration
	var created, receivedAt time.Time
	erows, _ := env.pool.Query(ctx, `SELECT created_at, (body::jsonb->'data'->>'received_at')::timestamptz FROM webhook_events
WHERE team_id = $1 AND type = 'message.received' AND created_at >= $2`, teamID, start)
	if _, err := pgx.ForEachRow(erows, []any{&created, &receivedAt}, func() error { lat = append(lat, created.Sub(receivedAt)); return nil }); err != nil {
		return result{}, 0, err
	}
	r.Stats = load.Summarise(lat)
	return r, answered, nil
}

// inboundAnswers measures answers to a poll (YES, NO, MAYBE) to every
// member not opted out, one from each, sent as the inbound-texts row
// (plain) sent its texts; every answer must be recorded.
func inboundAnswers(ctx context.Context, env *benchEnv, fx *harness.Fixture, number string, rows []harness.Member, plain result) (result, error) {
	var poll struct {
		ID string `json:"id"`
	}
	if err := env.api(fx.Key).Expect(ctx, http.StatusCreated, http.MethodPost, "/messages", map[string]any{"text": "Banquet Friday 7pm. Coming?",
		"audience": "families", "reply_options": []string{"YES", "NO", "MAYBE"}}, &poll); err != nil {
		return result{}, fmt.Errorf("inbound answers: send the poll: %w", err)
	}
	progress("inbound: a poll to the team; waiting for its deliveries…")
	recipients := 0
	done, err := load.WaitFor(ctx, 200*time.Millisecond, inboundTimeout, func() (bool, error) {
		var open int
		err := env.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE status <> 'delivered') FROM messaging_deliveries WHERE message_id = $1`,
			poll.ID).Scan(&recipients, &open)
		return recipients > 0 && open == 0, err
	})
	if err == nil && !done {
		err = fmt.Errorf("inbound answers: the poll's deliveries not delivered after %s", inboundTimeout)
	}
	if err != nil {
		return result{}, err
	}
	if _, err := waitQuiet(ctx, env.pool, "inbound answers"); err != nil {
		return result{}, err
	}
	opts := []string{"YES", "no", "Maybe!"}
	r, answered, err := callbacks(ctx, env, fx.TeamID, number, rows, "SManswer", func(i int) string { return opts[i%3] }, make([]time.Time, len(rows)))
	if err != nil {
		return result{}, err
	}
	if n, err := scalar[int](ctx, env.pool, `SELECT count(*) FROM messaging_responses WHERE message_id = $1`, poll.ID); err != nil || n != recipients {
		return result{}, fmt.Errorf("inbound answers: %d answers recorded for %d recipients (%v)", n, recipients, err)
	}
	ratio := r.Throughput() / plain.Throughput()
	r.Desc = fmt.Sprintf("%d texts answering a poll (`YES`, `no`, `Maybe!` in turn, one from each member; %d recipients, the others opted out), "+
		"measured as inbound-texts: from the first callback to the last `message.received` stored, every answer recorded", len(rows), recipients)
	r.Note = fmt.Sprintf("callbacks answered at %.0f/s; %.2f of inbound-texts' rate", float64(len(rows))/answered.Seconds(), ratio)
	r.Target = fmt.Sprintf("≥ %d texts/s and ≥ 0.8 of inbound-texts", inboundTarget)
	r.Met = r.Throughput() >= inboundTarget && ratio >= 0.8
	return r, nil
}

// inboundBacklog measures filing alone: the same members' texts staged at
// once by SQL (rows of the staging table, spread over its 8 lanes, and the
// filers' notification), then the time until the service filed them all.
func inboundBacklog(ctx context.Context, env *benchEnv, teamID, number string, rows []harness.Member) (result, error) {
	phones := make([]string, len(rows))
	for i, r := range rows {
		phones[i] = r.Phone
	}
	tx, err := env.pool.Begin(ctx)
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
	r, err := filed(ctx, env, teamID, len(rows), func() error { return tx.Commit(ctx) })
	if err != nil {
		return result{}, err
	}
	r.Desc = fmt.Sprintf("filing alone: %d texts (the same members' second `YES`) staged at once by SQL, as the callbacks stage them, "+
		"and filed by the service's filers (%d lanes, 2 loops, batches of up to 500): from the commit to the last `message.received` stored", len(rows), 8)
	r.Target, r.Met = fmt.Sprintf("≥ %d texts/s", inboundTarget), r.Throughput() >= inboundTarget
	return r, nil
}

func inboundBullets(meta reportMeta) []string {
	return []string{
		fmt.Sprintf("Fixture: a new Team Plus team with its own number and %d athletes and guardians imported through the admin CSV import; "+
			"the simulator (instant profile) is the carrier", inboundTexts),
		fmt.Sprintf("Load: %d callbacks at a time, each text once; *CPU* and *DB acquires* per text", inboundWorkers),
	}
}
