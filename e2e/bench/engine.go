package main

// Many teams sending at once through the realistic
// carrier simulator, each from one number at 1 SMS segment a second. The
// engine must keep every number at its pace (the aggregate is the sum of
// the paces) and honour STOPs at once behind the whole backlog.

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teamtext/teamtext/client"
	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
	"github.com/teamtext/teamtext/platform/loops"
)

const (
	engineTeams   = 1000 // teams, each with one number at 1 segment/s (-engine-teams)
	engineMembers = 199  // athletes per team: with the head coach, 200 recipients
	engineStops   = 100  // STOPs sent while the backlog is being handed over
	enginePace    = 1.0  // each number's throughput (the service's TWILIO_RATE default)
	engineWorkers = 16   // concurrent API clients while sending
	setupWorkers  = 4    // concurrent admin clients while setting up (imports are heavy: more only queue in Postgres)

	enginePaceTarget = 0.95        // every number at ≥ 95% of its pace, so ≥ 950 texts/s from 1,000 numbers
	engineStopTarget = time.Second // STOP to opt-out recorded, p99
)

func runEngine(ctx context.Context, env *benchEnv) (map[string]result, error) {
	pool := env.pool
	admin := env.admin()
	nTeams := env.engineTeams
	nStops := min(engineStops, nTeams)
	rateTarget := enginePaceTarget * float64(nTeams) * enginePace
	if _, err := waitQuiet(ctx, pool, "engine"); err != nil {
		return nil, err
	}
	if err := admin.Expect(ctx, http.StatusOK, http.MethodPut, "/simulator/profile", map[string]any{"name": "realistic"}, nil); err != nil {
		return nil, err
	}
	defer func() { // the other scenarios run on the instant profile
		_ = admin.Expect(context.WithoutCancel(ctx), http.StatusOK, http.MethodPut, "/simulator/profile", map[string]any{"name": "instant"}, nil)
	}()
	if err := admin.Expect(ctx, http.StatusOK, http.MethodPut, "/simulator/outcomes", map[string]any{"default": "delivered"}, nil); err != nil {
		return nil, err
	}

	progress("engine: creating %d teams of %d members…", nTeams, engineMembers+1)
	teams := make([]*harness.Fixture, nTeams) // team i sends from harness.Phone(blockEngineNumbers, i)
	rows := harness.Athletes(blockEngine, 0, engineMembers)
	setupStart := time.Now()
	err := load.Parallel(ctx, nTeams, setupWorkers, func(ctx context.Context, i int) error {
		fx, err := harness.NewTeam(ctx, admin, harness.TeamOptions{Extra: map[string]any{"number": harness.Phone(blockEngineNumbers, i)}})
		if err == nil {
			_, err = harness.ImportMembers(ctx, admin, fx.TeamID, rows)
		}
		if err != nil {
			return fmt.Errorf("team %d: %w", i, err)
		}
		teams[i] = fx
		if i%100 == 99 {
			progress("engine: %d teams ready (%s)", i+1, time.Since(setupStart).Round(time.Second))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	outbox0, err := scalar[int64](ctx, pool, `SELECT coalesce(max(id), 0) FROM messaging_sim_outbox`)
	if err != nil {
		return nil, err
	}

	progress("engine: %d broadcasts…", nTeams)
	accepted := make([]time.Time, nTeams)
	sendStart := time.Now()
	err = load.Parallel(ctx, nTeams, engineWorkers, func(ctx context.Context, i int) error {
		err := env.api(teams[i].Key).Expect(ctx, http.StatusCreated, http.MethodPost, "/messages", client.SendBody{Text: new("Game on Saturday at 10"), Audience: "all"}, nil)
		accepted[i] = time.Now()
		return err
	})
	if err != nil {
		return nil, err
	}
	lastAccept := slices.MaxFunc(accepted, func(a, b time.Time) int { return a.Compare(b) })
	spread := lastAccept.Sub(sendStart)
	progress("engine: all %d accepted within %s", nTeams, spread.Round(time.Millisecond))

	// STOPs behind the backlog: texted late in each roster (position 180
	// goes out three minutes in), one every 100 ms for 10 s.
	stopPhone := harness.Phone(blockEngine, 180)
	stops := make([]time.Time, nStops)
	go func() {
		for i := range nStops {
			stops[i] = time.Now()
			_, _ = admin.Do(ctx, http.MethodPost, "/simulator/inbound", map[string]any{"from": stopPhone, "to": harness.Phone(blockEngineNumbers, i), "body": "STOP"})
			if !loops.Wait(ctx, 100*time.Millisecond) {
				return
			}
		}
	}()

	// The steady window: from 5 s after the last accept to 190 s after the
	// first, every number busy throughout.
	handed := func() (int, error) {
		return scalar[int](ctx, pool, `SELECT count(*) FROM messaging_sim_outbox WHERE id > $1`, outbox0)
	}
	from, to := lastAccept.Add(5*time.Second), sendStart.Add(190*time.Second)
	if !loops.Wait(ctx, time.Until(from)) {
		return nil, ctx.Err()
	}
	n0, err := handed()
	if err != nil {
		return nil, err
	}
	cpu0, t0 := env.sample(ctx), time.Now()
	progress("engine: measuring the hand-over rate until %s after the first send…", to.Sub(sendStart).Round(time.Second))
	if !loops.Wait(ctx, time.Until(to)) {
		return nil, ctx.Err()
	}
	n1, err := handed()
	if err != nil {
		return nil, err
	}
	use, window := env.sample(ctx).sub(cpu0), time.Since(t0)
	progress("engine: %d texts in %s: %.0f/s", n1-n0, window.Round(time.Millisecond), float64(n1-n0)/window.Seconds())

	// Every text handed over; then each number's own pace.
	progress("engine: waiting for the backlog to finish…")
	if _, err := load.WaitFor(ctx, 2*time.Second, time.Until(sendStart.Add(engineMembers*time.Second*2+time.Minute)), func() (bool, error) {
		queued, err := scalar[int](ctx, pool, `SELECT count(*) FROM messaging_slots`)
		return queued == 0, err
	}); err != nil {
		return nil, err
	}
	// Each number's pace as a share of enginePace: texts after the first
	// over the time from its first to its last hand-over.
	prows, _ := pool.Query(ctx, `SELECT (count(*) - 1) / extract(epoch FROM max(created_at) - min(created_at))::float8 / $2
FROM messaging_sim_outbox WHERE id > $1 GROUP BY from_phone HAVING count(*) > 1 AND max(created_at) > min(created_at)`, outbox0, enginePace)
	paces, err := pgx.CollectRows(prows, pgx.RowTo[float64])
	if err != nil {
		return nil, err
	}
	slices.Sort(paces)
	if len(paces) < nTeams {
		return nil, fmt.Errorf("engine: %d of %d numbers handed texts over", len(paces), nTeams)
	}
	minPace, p5, p50 := paces[0], paces[len(paces)*5/100], paces[len(paces)/2]

	use.BenchAcquires = 0 // its polls are not the service's work
	hr := result{Run: load.Run{Requests: nTeams, Elapsed: window}, Concurrency: engineWorkers, Items: n1 - n0, Unit: "texts", Use: use}
	hr.Acquires = env.acquiresPerRequest(use, window, hr.units())
	hr.Desc = fmt.Sprintf("%d teams, each with one number at %g segment/s and a %d-recipient broadcast (realistic simulator), "+
		"all accepted within %s: texts handed to the carrier per second over the steady %s window; CPU per text",
		nTeams, enginePace, engineMembers+1, spread.Round(10*time.Millisecond), window.Round(time.Second))
	hr.Note = fmt.Sprintf("each number's pace over its whole broadcast: min %.1f%%, p5 %.1f%%, p50 %.1f%% of %g/s",
		100*minPace, 100*p5, 100*p50, enginePace)
	hr.Target = fmt.Sprintf("≥ %.0f texts/s; every number ≥ 95%% of its pace", rateTarget)
	hr.Met = hr.Throughput() >= rateTarget && minPace >= enginePaceTarget

	sent := map[string]time.Time{}
	for i, t := range teams[:nStops] {
		sent[t.TeamID] = stops[i]
	}
	lat, err := sinceSent(ctx, pool, sent, `SELECT team_id, created_at FROM roster_opt_outs WHERE phone = $1 AND team_id = ANY($2)`,
		stopPhone, slices.Collect(maps.Keys(sent)))
	if err != nil {
		return nil, err
	}
	sr := result{Run: load.Run{Requests: len(lat), Stats: load.Summarise(lat), Elapsed: time.Duration(nStops) * 100 * time.Millisecond}, Concurrency: 1}
	sr.Desc = fmt.Sprintf("`POST /admin/v1/simulator/inbound` STOP (the carrier's callback) to one of the %d teams' numbers, one every "+
		"100 ms while their backlog is handed over: time to the opt-out's row (`roster_opt_outs.created_at`)", nTeams)
	sr.Target, sr.Met = "p99 < 1 s", sr.Stats.N == nStops && sr.Stats.P99 < engineStopTarget
	return map[string]result{"engine-teams": hr, "engine-stop": sr}, nil
}

// sinceSent is, for each row (key, created_at) of the query whose key
// is in sent, the time from sent[key] to its created_at.
func sinceSent(ctx context.Context, pool *pgxpool.Pool, sent map[string]time.Time, sql string, args ...any) ([]time.Duration, error) {
	rows, _ := pool.Query(ctx, sql, args...)
	var (
		key     string
		created time.Time
		out     []time.Duration
	)
	_, err := pgx.ForEachRow(rows, []any{&key, &created}, func() error {
		if t, ok := sent[key]; ok {
			out = append(out, created.Sub(t))
		}
		return nil
	})
	return out, err
}

func engineBullets(meta reportMeta) []string {
	engineTeams := meta.Env.engineTeams
	return []string{
		fmt.Sprintf("Fixture: %d new Team Plus teams, each with its own number (throughput %g segment/s, the `TWILIO_RATE` default) "+
			"and %d athletes imported through the admin CSV import (the same numbers on every roster), plus the head coach; the "+
			"simulator on its `realistic` profile (a carrier queue per number, reports 200–2000 ms after a text leaves it, 5%% "+
			"posted twice, 10%% out of order), every outcome `delivered`", engineTeams, enginePace, engineMembers),
		fmt.Sprintf("Load: one broadcast per team to `all`, %d at a time; the rate is read from the simulator's outbox (its "+
			"hand-over timestamps) over a window in which every number is busy; each number's pace is its texts after the first "+
			"over the time from its first to its last; %d STOPs from a member late in %d rosters while the backlog is handed over",
			engineWorkers, engineStops, min(engineStops, engineTeams)),
	}
}
