// Command bench is teamtext's load generator. It starts Postgres (through
// testcontainers), builds and starts one `teamtext serve`, creates a team and
// drives named HTTP scenarios against it, then prints a Markdown table and,
// with -out, writes each scenario group's section into a Markdown file.
// The statements behind the scenarios, each beside its repository's path,
// are testing.B benchmarks in the modules' postgres packages (make
// bench-sql).
//
//	go run ./e2e/bench -out docs/BENCHMARKS.md       (make bench)
//	go run ./e2e/bench -scenario team-http -requests 5000
//	go run ./e2e/bench -list
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
	"github.com/teamtext/teamtext/platform/loops"
)

// idleWindow is how long the bench samples background CPU before the scenarios.
const idleWindow = 2 * time.Second

// benchEnv is what scenarios share: the running service, its database and
// the team fixture, plus the load settings.
type benchEnv struct {
	requests, concurrency, warmup int
	maxDuration                   time.Duration
	members                       int // roster and messaging teams' size (-members)
	engineTeams                   int // the engine scenarios' teams (-engine-teams)

	svc         *harness.Service  // the running `teamtext serve`
	keys        *keyRing          // API keys of the fixture's team; the first is the fixture's
	keysSet     bool              // by -keys
	team        *harness.Fixture  // the fixture team; its head coach owns keys
	containerID string            // Postgres's, for its CPU time
	idle        usage             // CPU used while nothing was driven, over idleWindow
	pool        *pgxpool.Pool     // the bench's own connections (-pg-max-conns): fixtures, polls, River's queue controls
	hooks       *harness.Receiver // the webhook scenarios' receiver

	ipNext   atomic.Int64 // next client address handed out by takeIPs
	fixtures sync.Map     // name → func() (any, error), see on
}

// on is a row of the fixture called name, which build makes the first time
// one of its rows runs, so that each row of a group can also run alone.
func on[T any](name string, build func(context.Context, *benchEnv) (T, error), row func(context.Context, *benchEnv, T) (result, error)) runFunc {
	return func(ctx context.Context, env *benchEnv) (result, error) {
		fixture, _ := env.fixtures.LoadOrStore(name, sync.OnceValues(func() (any, error) { return build(ctx, env) }))
		v, err := fixture.(func() (any, error))()
		if err != nil {
			return result{}, err
		}
		return row(ctx, env, v.(T))
	}
}

// shared is row name of a fixture that measures its rows in one go.
func shared(fixture string, build func(context.Context, *benchEnv) (map[string]result, error), name string) runFunc {
	return on(fixture, build, func(_ context.Context, _ *benchEnv, rows map[string]result) (result, error) {
		if r, ok := rows[name]; ok {
			return r, nil
		}
		return result{}, fmt.Errorf("fixture %s measured no row %s", fixture, name)
	})
}

// admin is a client of the admin API (60 s timeout: imports take a while).
func (e *benchEnv) admin() *harness.Client {
	return harness.NewClient(e.svc.AdminURL+"/admin/v1", harness.AdminToken)
}

func (e *benchEnv) api(key string) *harness.Client {
	return harness.NewClient(e.svc.PublicURL+"/api/v1", key)
}

// takeIPs hands out n loopback client addresses (127.0.1.1, 127.0.1.2, …)
// that no earlier scenario used. The service limits requests without a
// valid key per client address (60 a minute), so the rows that measure
// them spread their requests over addresses, like clients do; Linux routes
// all of 127.0.0.0/8 to the loopback interface.
func (e *benchEnv) takeIPs(n int) ([]net.IP, error) {
	first := int(e.ipNext.Add(int64(n))) - n
	if first+n > 250*250 {
		return nil, errors.New("out of loopback client addresses")
	}
	out := make([]net.IP, n)
	for i := range out {
		out[i] = net.IPv4(127, 0, byte(1+(first+i)/250), byte(1+(first+i)%250)).To4()
	}
	return out, nil
}

// sample reads what the processes have used so far.
func (e *benchEnv) sample(ctx context.Context) usage {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	u := usage{Bench: load.SelfCPU(), BenchAcquires: e.pool.Stat().AcquireCount()}
	u.Service, u.HasService = load.ProcessCPU(e.svc.PID())
	u.Postgres, u.HasPostgres = load.ContainerCPU(e.containerID)
	acq, err := harness.Metric(ctx, e.svc.AdminURL, "teamtext_db_pool_acquires_total")
	u.ServiceAcquires, u.HasAcq = int64(acq), err == nil
	return u
}

// acquiresPerRequest is the pool acquires per request, less the service's
// background acquires (the job queue) at its idle rate.
func (e *benchEnv) acquiresPerRequest(u usage, elapsed time.Duration, requests int) float64 {
	if requests == 0 {
		return 0
	}
	bg := float64(e.idle.ServiceAcquires) / idleWindow.Seconds() * elapsed.Seconds()
	return max(0, float64(u.ServiceAcquires+u.BenchAcquires)-bg) / float64(requests)
}

// progress prints a line for the human watching (stderr, so stdout stays the table).
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

func main() {
	code, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
	}
	os.Exit(code)
}

// run is the command: its exit code, and an error to print.
func run() (int, error) {
	env := &benchEnv{}
	flag.IntVar(&env.requests, "requests", 20000, "measured requests per scenario")
	flag.IntVar(&env.concurrency, "concurrency", 16, "concurrent workers (and idle keep-alive connections)")
	flag.IntVar(&env.warmup, "warmup", 500, "unmeasured warm-up requests per scenario")
	flag.DurationVar(&env.maxDuration, "max-duration", 2*time.Minute, "time bound of each load loop (warm-up and measured run)")
	flag.IntVar(&env.engineTeams, "engine-teams", engineTeams, "teams of the engine scenarios (1,000 for the goal's figure; fewer for a quick look)")
	flag.IntVar(&env.members, "members", 10000, "members of the roster and messaging scenarios' teams (10,000 for the goals' figures)")
	var (
		pgMaxConns  = flag.Int("pg-max-conns", 20, "pool size of the bench's own connections to the database (fixtures, polls)")
		scenarioArg = flag.String("scenario", "all", "scenarios to run: all, or a comma-separated list of names (see -list)")
		out         = flag.String("out", "", "Markdown file whose bench sections are written or replaced")
		keys        = flag.Int("keys", 0, "API keys the HTTP scenarios spread requests over; 0: enough that none exceeds 90% of the service's per-key limit")
		list        = flag.Bool("list", false, "list the scenarios and exit")
	)
	flag.Parse()
	if flag.NArg() > 0 {
		return 2, fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if *list {
		for _, s := range scenarios {
			fmt.Printf("%-18s %-10s %s\n", s.name, s.group, s.desc)
		}
		return 0, nil
	}
	selected, err := selectScenarios(*scenarioArg)
	if err != nil {
		return 2, err
	}
	if env.requests <= 0 || env.concurrency <= 0 || env.warmup < 0 || *keys < 0 || env.maxDuration <= 0 || *pgMaxConns <= 0 || env.members < 4000 || env.engineTeams < 1 {
		return 2, errors.New("-requests, -concurrency, -max-duration and -pg-max-conns must be positive, -warmup and -keys not negative, -members at least 4000")
	}

	// ^C (or SIGTERM) cancels the run; the deferred clean-ups still stop the
	// service and the container. A second ^C kills the process outright.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, func() {
		if stop(); context.Cause(ctx) != ctx.Err() { // a signal's, not stop's
			progress("%v: cleaning up (again to quit at once)…", context.Cause(ctx))
		}
	})

	results, facts, err := runAll(ctx, env, selected, *keys, int32(*pgMaxConns))
	switch {
	case err != nil && ctx.Err() != nil:
		return 130, errors.New("interrupted")
	case err != nil:
		return 1, err
	}

	groups, byGroup := groupResults(results)
	for i, g := range groups {
		if i > 0 {
			fmt.Println()
		}
		fmt.Printf("%s:\n\n%s", g, renderTable(byGroup[g]))
	}
	failed := false
	for _, r := range results {
		if r.Errors > 0 {
			failed = true
			fmt.Fprintf(os.Stderr, "bench: scenario %s: %d of %d requests failed; first: %s\n", r.Name, r.Errors, r.Requests, r.FirstError)
		}
		if r.Truncated {
			fmt.Fprintf(os.Stderr, "bench: scenario %s: stopped by its time bound after %d %s\n", r.Name, r.units(), r.unit())
		}
	}
	if failed {
		return 1, errors.New("FAILED (errors above); not writing -out")
	}
	if *out != "" {
		meta := reportMeta{Date: time.Now().UTC(), Command: commandLine(*out), Facts: facts, Env: env, PoolSize: *pgMaxConns}
		if err := writeSections(*out, meta, results); err != nil {
			return 1, err
		}
	}
	return 0, nil
}

// runAll sets up the service and runs the selected scenarios; everything it
// starts is stopped before it returns, also on error and on ^C.
func runAll(ctx context.Context, env *benchEnv, selected []scenario, flagKeys int, poolSize int32) (results []result, facts machineFacts, err error) {
	facts = machineFacts{Machine: load.ThisMachine()}
	svcEnv := []string{"LOG_LEVEL=warn"}
	if slices.ContainsFunc(selected, func(s scenario) bool { return s.group == "webhooks" }) {
		progress("starting the webhook receiver…")
		dir, err := os.MkdirTemp("", "teamtext-bench-hooks")
		if err != nil {
			return nil, facts, err
		}
		defer os.RemoveAll(dir)
		if env.hooks, err = harness.NewReceiver(dir); err != nil {
			return nil, facts, err
		}
		defer env.hooks.Close()
		svcEnv = append(svcEnv, harness.ReceiverEnv(env.hooks.PEM())...)
	}
	stack, err := harness.Up(ctx, func(step string) { progress("%s", step) }, svcEnv...)
	if err != nil {
		return nil, facts, err
	}
	defer func() {
		progress("stopping teamtext and postgres…")
		if err := stack.Down(); err != nil && ctx.Err() == nil {
			progress("stop teamtext: %v", err)
		}
	}()
	pg, svc := stack.PG, stack.Svc
	env.svc = svc
	env.containerID = pg.Container.GetContainerID()
	if _, ok := load.ContainerCPU(env.containerID); !ok {
		progress("cannot read the Postgres container's CPU time (cgroup); that column will say n/a")
	}
	cfg, err := pgxpool.ParseConfig(pg.URL)
	if err != nil {
		return nil, facts, err
	}
	cfg.MaxConns = poolSize
	if env.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, facts, fmt.Errorf("open the bench's pool: %w", err)
	}
	defer env.pool.Close()
	if err := env.pool.QueryRow(ctx, "SHOW server_version").Scan(&facts.Postgres); err != nil {
		return nil, facts, fmt.Errorf("the bench's pool: %w", err)
	}

	progress("creating a team…")
	fx, err := harness.NewTeam(ctx, env.admin(), harness.TeamOptions{})
	if err != nil {
		return nil, facts, fmt.Errorf("create team: %w", err)
	}
	env.team = fx
	// Each API scenario sends its warm-up, one check and its measured run,
	// all within a minute of each other, so their requests are summed.
	apiScenarios := len(slices.DeleteFunc(slices.Clone(selected), func(s scenario) bool { return !s.api }))
	keys := max(1, ceilDiv(apiScenarios*(env.warmup+env.requests+1), requestBudget))
	if env.keysSet = flagKeys > 0; env.keysSet {
		keys = flagKeys
	}
	if keys > 1 {
		progress("creating %d more API keys…", keys-1)
	}
	more, err := harness.NewKeys(ctx, env.admin(), fx.TeamID, fx.CoachID, "bench", keys-1)
	if err != nil {
		return nil, facts, err
	}
	env.keys = &keyRing{keys: append([]string{fx.Key}, more...)}

	// Background CPU (the job queue polls, Postgres housekeeping) while
	// nothing is driven, so the reading can tell it from per-request cost.
	progress("measuring idle CPU for %s…", idleWindow)
	before := env.sample(ctx)
	if !loops.Wait(ctx, idleWindow) {
		return nil, facts, ctx.Err()
	}
	env.idle = env.sample(ctx).sub(before)

	for _, s := range selected {
		r, err := s.run(ctx, env)
		if err != nil {
			// The service logs a request after answering it: give the
			// failing request's line a moment to arrive.
			time.Sleep(500 * time.Millisecond)
			return nil, facts, fmt.Errorf("scenario %s: %w\nservice log tail:\n%s", s.name, err, tail(svc.Logs(), 20))
		}
		r.Name, r.Group = s.name, s.group
		progress("scenario %s: %d %s in %s: %s, p50 %s, p99 %s, %d errors", s.name, r.units(), r.unit(), r.Elapsed.Round(time.Millisecond),
			fmtRate(r.Throughput(), r.unit()), fmtDur(r.Stats.P50), fmtDur(r.Stats.P99), r.Errors)
		if r.Desc == "" {
			r.Desc = s.desc
		}
		results = append(results, r)
	}
	facts.LoadEnd = load.LoadAvg()
	select {
	case <-svc.Done():
		return nil, facts, fmt.Errorf("teamtext exited during the run:\n%s", tail(svc.Logs(), 20))
	default:
	}
	return results, facts, nil
}

// selectScenarios resolves -scenario.
func selectScenarios(arg string) ([]scenario, error) {
	if arg = strings.TrimSpace(arg); arg == "" || arg == "all" {
		return scenarios, nil
	}
	var out []scenario
	for name := range strings.SplitSeq(arg, ",") {
		named := func(s scenario) bool { return s.name == strings.TrimSpace(name) }
		switch i := slices.IndexFunc(scenarios, named); {
		case i < 0:
			return nil, fmt.Errorf("unknown scenario %q (see -list)", strings.TrimSpace(name))
		case !slices.ContainsFunc(out, named):
			out = append(out, scenarios[i])
		}
	}
	return out, nil
}

// commandLine is how to reproduce this run: `make bench` when it was
// exactly that, the go run line with the non-default flags otherwise.
func commandLine(out string) string {
	const makeBench = "go run ./e2e/bench -out docs/BENCHMARKS.md"
	cmd := "go run ./e2e/bench -out " + out
	flag.Visit(func(f *flag.Flag) {
		if f.Name != "out" {
			cmd += fmt.Sprintf(" -%s %s", f.Name, f.Value)
		}
	})
	if cmd == makeBench {
		return "`make bench` → `" + makeBench + "`"
	}
	return "`" + cmd + "`"
}

// machineFacts describes where the figures come from.
type machineFacts struct {
	load.Machine
	LoadEnd  string // the load averages when the scenarios were done
	Postgres string
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
