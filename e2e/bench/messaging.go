package main

// Accepting a send to every member of a -members team (10,000), delivering
// one such send through the carrier simulator, and River's own pace with
// no-op jobs on the same service, machine and queue.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/teamtext/teamtext/client"
	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/loops"
)

const (
	acceptSends    = 10                     // measured sends (one more warms up)
	deliverPoll    = 200 * time.Millisecond // how often msg-deliver reads the deliveries' statuses
	deliverTimeout = 4 * time.Minute        // longest msg-deliver waits for every final status
	noopPoll       = 100 * time.Millisecond
	noopTimeout    = 3 * time.Minute

	acceptTarget  = 150 * time.Millisecond // the goal for time to accept
	deliverTarget = 5000.0                 // the goal for deliveries per second
)

// onMsgTeam is a row on the messaging scenarios' team: a sending number
// and -members athletes and guardians (the "families" audience).
func onMsgTeam(row func(context.Context, *benchEnv, *harness.Fixture) (result, error)) runFunc {
	return on("messaging", func(ctx context.Context, env *benchEnv) (*harness.Fixture, error) {
		admin := env.admin()
		progress("messaging: creating a team with %d members…", env.members)
		fx, err := harness.NewTeam(ctx, admin, harness.TeamOptions{Extra: map[string]any{"number": "+12025550142"}})
		if err != nil {
			return nil, fmt.Errorf("create the messaging team: %w", err)
		}
		if _, err := importRows(ctx, env, "messaging setup", fx.TeamID, teamRows(blockMessaging, env.members, nil), importChunk); err != nil {
			return nil, err
		}
		// Every text delivered (the simulator's outcomes are global).
		return fx, admin.Expect(ctx, http.StatusOK, http.MethodPut, "/simulator/outcomes",
			map[string]any{"default": "delivered", "numbers": map[string]string{}, "error_code": "30005"}, nil)
	}, row)
}

// pauseQueues pauses the service's queues (no job is fetched; running ones
// finish) through an insert-only River client on the bench's pool (River's
// own API, so the notifications reach the service's producers on the
// channels River uses), and returns the client and the resume.
func pauseQueues(ctx context.Context, pool *pgxpool.Pool, queues ...string) (*river.Client[pgx.Tx], func() error, error) {
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return nil, nil, err
	}
	for _, q := range queues {
		if err := rc.QueuePause(ctx, q, nil); err != nil {
			return nil, nil, fmt.Errorf("pause River's queue %s: %w", q, err)
		}
	}
	// The producer learns it from a notification within milliseconds.
	if !loops.Wait(ctx, 500*time.Millisecond) {
		return nil, nil, ctx.Err()
	}
	return rc, func() error {
		for _, q := range queues {
			if err := rc.QueueResume(context.WithoutCancel(ctx), q, nil); err != nil {
				return fmt.Errorf("resume River's queue %s: %w", q, err)
			}
		}
		return nil
	}, nil
}

// send posts a text to families with key and returns the message and the
// time to its 201.
func send(ctx context.Context, env *benchEnv, key, text string, want int) (client.SendResult, time.Duration, error) {
	var m client.DataBodySendResult
	d, err := timedCall(ctx, env.api(key), http.StatusCreated, http.MethodPost, "/messages", client.SendBody{Text: &text, Audience: "families"}, &m)
	if err != nil {
		return m.Data, d, err
	}
	if m.Data.Status != "queued" || int(m.Data.Recipients) != want {
		return m.Data, d, fmt.Errorf("POST /messages: %s with %d recipients, want queued with %d", m.Data.Status, m.Data.Recipients, want)
	}
	return m.Data, d, nil
}

// runMsgAccept times POST /messages with River's queues paused, so that no
// earlier send's fan-out competes with the next accept (on two CPUs each
// would take many seconds); each send's fan-out jobs are then cancelled
// unrun, which the row checks.
func runMsgAccept(ctx context.Context, env *benchEnv, mt *harness.Fixture) (result, error) {
	pool := env.pool
	const warmup = 1
	ring, err := freshKeys(ctx, env, mt, "bench-accept", warmup+acceptSends, 1)
	if err != nil {
		return result{}, err
	}
	if _, err := waitQuiet(ctx, pool, "msg-accept"); err != nil {
		return result{}, err
	}
	_, resume, err := pauseQueues(ctx, pool, river.QueueDefault, "outbound", "status")
	if err != nil {
		return result{}, err
	}
	var fanouts, ran int
	one := func(ctx context.Context, run int) (time.Duration, error) {
		before, err := maxJobID(ctx, pool)
		if err != nil {
			return 0, err
		}
		_, d, err := send(ctx, env, ring.key(), fmt.Sprintf("Practice moves to 6pm tonight (bench send %d)", run), env.members)
		if err != nil {
			return d, err
		}
		tag, err := pool.Exec(ctx, `UPDATE river_job SET state = 'cancelled', finalized_at = now()
WHERE id > $1 AND kind = 'messaging.fanout' AND state = 'available'`, before)
		if err != nil {
			return d, err
		}
		n, err := scalar[int](ctx, pool, `SELECT count(*) FROM river_job WHERE id > $1 AND kind = 'messaging.fanout'`, before)
		if run >= warmup {
			fanouts += n
			ran += n - int(tag.RowsAffected())
		}
		return d, err
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
		"unmeasured, a fresh key each, River's queues paused meanwhile and the fan-out jobs cancelled unrun",
		env.members, env.members, (env.members+99)/100, acceptSends)
	r.Note = fmt.Sprintf("%.0f fan-out jobs per send, %d of them ran", float64(fanouts)/acceptSends, ran)
	r.Target, r.Met = "p99 < 150 ms", r.Stats.P99 < acceptTarget
	return r, nil
}

// jobsPer is the River jobs since job id before per unit, by kind.
func jobsPer(ctx context.Context, pool *pgxpool.Pool, before int64, units int) (string, error) {
	rows, _ := pool.Query(ctx, `SELECT kind, count(*) FROM river_job WHERE id > $1 GROUP BY kind ORDER BY kind`, before)
	var (
		kind  string
		n     int
		parts []string
	)
	_, err := pgx.ForEachRow(rows, []any{&kind, &n}, func() error {
		parts = append(parts, fmt.Sprintf("%.2f `%s`", float64(n)/float64(units), kind))
		return nil
	})
	return strings.Join(parts, ", "), err
}

// runMsgDeliver sends once to the messaging team and follows its
// deliveries from the 201 to their final statuses.
func runMsgDeliver(ctx context.Context, env *benchEnv, mt *harness.Fixture) (result, error) {
	keys, err := freshKeys(ctx, env, mt, "bench-deliver", 1, 1)
	if err != nil {
		return result{}, err
	}
	before, err := waitQuiet(ctx, env.pool, "msg-deliver")
	if err != nil {
		return result{}, err
	}

	progress("scenario msg-deliver: one send to %d recipients…", env.members)
	meter := env.meter(ctx)
	m, acceptD, err := send(ctx, env, keys.key(), "Game day! Bus leaves at 7:30 from the gym (bench)", env.members)
	if err != nil {
		return result{}, err
	}
	accepted := meter.start.Add(acceptD)
	var handedCurve []load.Point
	r, err := follow(ctx, accepted, deliverPoll, deliverTimeout, int(m.Recipients), "deliveries", func() (int, error) {
		var handed, final int
		err := env.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status <> 'queued'),
       count(*) FILTER (WHERE status IN ('delivered', 'failed', 'delivery_unconfirmed'))
FROM messaging_deliveries WHERE message_id = $1`, m.Id).Scan(&handed, &final)
		handedCurve = append(handedCurve, load.Point{T: time.Now(), Done: handed})
		return final, err
	})
	if err != nil {
		return result{}, err
	}
	meter.finish(ctx, &r, false)
	r.Acquires = env.acquiresPerRequest(r.Use, acceptD+r.Elapsed, r.units()) // the accept included
	perDelivery, err := jobsPer(ctx, env.pool, before, r.Items)
	if err != nil {
		return result{}, err
	}
	r.Desc = fmt.Sprintf("one `POST /messages` to %d recipients through the simulator (every outcome `delivered`): from the 201 "+
		"to the last final status, read from `messaging_deliveries` every %s; latencies are each delivery's time from the 201 to "+
		"its final status; CPU and acquires from just before the request, the accept included", env.members, deliverPoll)
	r.Note = fmt.Sprintf("accepted in %s", fmtDur(acceptD))
	if i := slices.IndexFunc(handedCurve, func(p load.Point) bool { return p.Done == int(m.Recipients) }); i >= 0 {
		r.Note += fmt.Sprintf("; every text handed to the simulator %s after the 201 (half after %s)",
			fmtDur(handedCurve[i].T.Sub(accepted)), fmtDur(load.Curve(accepted, handedCurve).P50))
	}
	r.Note += "; River jobs per delivery: " + perDelivery
	r.Target, r.Met = "≥ 5,000 deliveries/s", !r.Truncated && r.Throughput() >= deliverTarget
	return r, nil
}

// runRiverNoop inserts no-op jobs with the queue paused, resumes it, and
// times the service's River client working them all.
func runRiverNoop(ctx context.Context, env *benchEnv) (result, error) {
	n := 2 * env.members
	before, err := waitQuiet(ctx, env.pool, "river-noop")
	if err != nil {
		return result{}, err
	}
	rc, resume, err := pauseQueues(ctx, env.pool, river.QueueDefault)
	if err != nil {
		return result{}, err
	}
	params := slices.Repeat([]river.InsertManyParams{{Args: jobs.NoopArgs{}}}, n)
	progress("scenario river-noop: inserting %d no-op jobs (queue paused)…", n)
	if _, err := rc.InsertManyFast(ctx, params); err != nil {
		_ = resume()
		return result{}, fmt.Errorf("insert no-op jobs: %w", err)
	}
	m := env.meter(ctx)
	if err := resume(); err != nil {
		return result{}, err
	}
	r, err := follow(ctx, m.start, noopPoll, noopTimeout, n, "jobs", func() (int, error) {
		return scalar[int](ctx, env.pool, `SELECT count(*) FROM river_job WHERE id > $1 AND kind = 'platform.noop' AND state = 'completed'`, before)
	})
	if err != nil {
		return result{}, err
	}
	m.finish(ctx, &r, false)
	r.Desc = fmt.Sprintf("%d `platform.noop` jobs inserted with the queue paused, then worked by the service's River client "+
		"(`JOB_WORKERS` 50) from the resume to the last `completed`, read every %s; latencies are each job's time from the resume",
		n, noopPoll)
	return r, nil
}

func messagingBullets(meta reportMeta) []string {
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
