package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/teamtext/teamtext/client"
	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
)

// POST /webhooks/{id}/recover of 10,000 abandoned deliveries, and the rate
// the recovered deliveries then reach a receiver at (throttled, and not).
const (
	recoverDeliveries = 10000
	recoverRuns       = 5  // webhooks recovered through the API, one run each
	throttleRate      = 50 // max_per_second of the first recovered webhook
	slowRate          = 1  // max_per_second of the other recovered webhooks (little background load)
	rateWindow        = 20 * time.Second
)

// runWebhooks makes the webhooks, each with 10,000 abandoned deliveries
// (made by SQL, in the order of their data.n); recovers recoverRuns of
// them through the API, the throttled one first, and measures its
// arrivals; then recovers the unthrottled one and measures its arrivals.
func runWebhooks(ctx context.Context, env *benchEnv) (map[string]result, error) {
	api := env.api(env.keys.keys[0])
	since := time.Now().UTC().Add(-time.Hour)
	var hooks []string // ids: recoverRuns recovered by the API runs, then the unthrottled one
	for i := range recoverRuns + 1 {
		body := client.NewBody{Url: new(fmt.Sprintf("%s/hook/%d", env.hooks.URL(""), i)), Events: &[]string{"member.joined"}}
		switch {
		case i == 0:
			body.MaxPerSecond = new(int64(throttleRate))
		case i < recoverRuns:
			body.MaxPerSecond = new(int64(slowRate))
		}
		var w client.CreatedWebhook
		if err := api.Expect(ctx, http.StatusCreated, http.MethodPost, "/webhooks", body, &w); err != nil {
			return nil, fmt.Errorf("create webhook: %w", err)
		}
		hooks = append(hooks, w.Id)
		progress("webhooks: %d abandoned deliveries for webhook %d…", recoverDeliveries, i)
		_, err := env.pool.Exec(ctx, `
WITH ev AS (
    INSERT INTO webhook_events (id, team_id, type, created_at, body, skipped)
    SELECT $1::text || '_' || g, $2::text, 'member.joined', $3::timestamptz + g * interval '1 ms',
           json_build_object('id', $1::text || '_' || g, 'type', 'member.joined', 'created_at', $3::timestamptz + g * interval '1 ms',
                             'team', json_build_object('id', $2::text, 'code', 'bench'), 'data', json_build_object('n', g)),
           false
    FROM generate_series(1, $5::integer) g
    RETURNING id, created_at
)
INSERT INTO webhook_deliveries (id, team_id, event_id, webhook_id, state, attempts, next_attempt_at, created_at, updated_at)
SELECT 'dlv' || substr(id, 4), $2::text, id, $4::text, 'abandoned', 6, NULL, created_at, created_at FROM ev`,
			fmt.Sprintf("evt_bench%d_%d", since.UnixNano(), i), env.team.TeamID, since.Add(time.Minute), w.Id, recoverDeliveries)
		if err != nil {
			return nil, fmt.Errorf("abandoned deliveries: %w", err)
		}
	}
	recoverHook := func(ctx context.Context, i int) (time.Duration, error) {
		var out client.DataBodyWebhookRecovery
		d, err := timedCall(ctx, api, http.StatusAccepted, http.MethodPost, "/webhooks/"+hooks[i]+"/recover", client.WebhookRecoverBody{Since: since}, &out)
		if err == nil && out.Data.Requeued != recoverDeliveries {
			err = fmt.Errorf("requeued %d, want %d", out.Data.Requeued, recoverDeliveries)
		}
		return d, err
	}

	rec, err := timedRuns(ctx, env, "webhooks-recover", 0, recoverRuns, recoverDeliveries, "delivery", recoverHook)
	if err != nil {
		return nil, err
	}
	rec.Target, rec.Met = "each < 2 s", rec.Stats.Max < 2*time.Second

	throttle, err := rateRun(ctx, env, "webhooks-throttle", "/hook/0")
	if err != nil {
		return nil, err
	}
	rate := throttle.Throughput()
	throttle.Target = fmt.Sprintf("%d/s ± 10%%", throttleRate)
	throttle.Met = rate >= throttleRate*0.9 && rate <= throttleRate*1.1

	if _, err := recoverHook(ctx, recoverRuns); err != nil {
		return nil, err
	}
	pump, err := rateRun(ctx, env, "webhooks-pump", fmt.Sprintf("/hook/%d", recoverRuns))
	if err != nil {
		return nil, err
	}
	// Stop the pumps: deleting a webhook drops its queue.
	for _, id := range hooks {
		if err := api.Expect(ctx, http.StatusOK, http.MethodDelete, "/webhooks/"+id, nil, nil); err != nil {
			return nil, fmt.Errorf("delete webhook: %w", err)
		}
	}
	return map[string]result{"webhooks-recover": rec, "webhooks-throttle": throttle, "webhooks-pump": pump}, nil
}

// rateRun measures the arrivals of path over rateWindow from its first,
// and checks they came in their events' order, each once.
func rateRun(ctx context.Context, env *benchEnv, name, path string) (result, error) {
	progress("scenario %s: counting arrivals over %s…", name, rateWindow)
	m := env.meter(ctx)
	var as []harness.Hook
	done, err := load.WaitFor(ctx, 200*time.Millisecond, rateWindow+time.Minute, func() (bool, error) {
		as = env.hooks.Requests(path)
		return len(as) > 0 && time.Since(as[0].At) > rateWindow, nil
	})
	if err != nil {
		return result{}, err
	}
	if !done {
		return result{}, fmt.Errorf("%s: %d arrivals, none for %s", path, len(as), rateWindow)
	}
	first := as[0].At
	window := rateWindow
	if len(as) == recoverDeliveries && as[len(as)-1].At.Sub(first) < rateWindow {
		window = as[len(as)-1].At.Sub(first) // all arrived within it: their own span
	}
	in, prev := 0, 0
	var gaps []time.Duration
	for i, a := range as {
		if a.At.Sub(first) <= window {
			in++
		}
		var ev struct {
			Data struct {
				N int `json:"n"`
			} `json:"data"`
		}
		_ = json.Unmarshal(a.Body, &ev)
		if i > 0 {
			gaps = append(gaps, a.At.Sub(as[i-1].At))
			if ev.Data.N != prev+1 {
				return result{}, fmt.Errorf("%s: arrival %d is event %d after event %d: out of order", path, i, ev.Data.N, prev)
			}
		}
		prev = ev.Data.N
	}
	r := result{Run: load.Run{Requests: in, Elapsed: window, Stats: load.Summarise(gaps)}, Concurrency: 1, Items: in, Unit: "delivery"}
	m.finish(ctx, &r, false)
	return r, nil
}

func webhooksBullets(meta reportMeta) []string {
	return []string{
		fmt.Sprintf("Fixture: the bench team's %d webhooks to an HTTPS receiver in the load generator (loopback, allowed by "+
			"`WEBHOOK_ALLOW_CIDRS`), each with %d abandoned deliveries (6 failed attempts) written by SQL, events 1 ms apart",
			recoverRuns+1, recoverDeliveries),
		fmt.Sprintf("`webhooks-recover`: one `POST /webhooks/{id}/recover` per webhook (the first throttled at %d/s, the others "+
			"at %d/s), timed by the load generator from request to 202; *p50…max* are the runs' times; *Throughput* counts "+
			"deliveries re-queued per second of the runs; the recovery's statements sent raw are webhooks' BenchmarkRecover "+
			"(`make bench-sql`)", throttleRate, slowRate),
		fmt.Sprintf("`webhooks-throttle` and `webhooks-pump`: arrivals at the receiver over %s from the first (its own clock), or "+
			"from the first to the last when all 10,000 came sooner; "+
			"*p50…max* are the gaps between arrivals; every arrival is checked to be the next event in order", rateWindow),
	}
}
