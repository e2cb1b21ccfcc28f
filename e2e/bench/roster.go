package main

// A team of -members members (10,000), imported through the admin CSV
// import; every page of GET /members; bulk opt-outs; number checks; imports
// of 5,000 to 100,000 rows in one request. The pages' and the import's
// statements sent raw are roster's BenchmarkMemberPage, BenchmarkImport and
// BenchmarkCopyMembers (make bench-sql).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/teamtext/teamtext/client"
	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
)

const (
	importChunk  = 1000 // rows per request when importing a team (the 45 s budget allows ~450 rows/s here)
	pageLimit    = 200  // GET /members page size, the largest allowed
	pagePasses   = 10   // measured passes over every page
	bulkItems    = 500  // items per POST /opt-outs/bulk, the most allowed
	bulkRuns     = 5    // measured bulk requests (one more warms up)
	validateSize = 100  // numbers per POST /recipients/validate, the most allowed
	validateRuns = 10   // measured validate requests (one more warms up)

	pageTarget = 25 * time.Millisecond  // the goal for a page's p99
	bulkTarget = 300 * time.Millisecond // the goal for a 500-item bulk opt-out
)

// Blocks of numbers (harness.Phone) each fixture uses.
const (
	blockRoster    = 0 // the roster team's members
	blockImport5k  = 1 // the 5,000-row import
	blockUnknown   = 2 // numbers on no roster (validate)
	blockMessaging = 3 // the messaging team's members
	blockImport10k = 4 // the 10,000-row import
	blockImport1e5 = 5 // the 100,000-row import

	blockInbound       = 6 // the inbound team's members
	blockInboundNumber = 7 // its own number

	// The engine's own teams reuse the imports' blocks.
	blockEngine        = 4 // every engine team's members (the same numbers on each roster)
	blockEngineNumbers = 5 // the engine teams' own numbers
)

// teamRows is n members of block: athletes and guardians (the "families"
// audience), each in one of groups when given.
func teamRows(block, n int, groups []string) []harness.Member {
	rows := harness.Athletes(block, 0, n)
	for i := range rows {
		if i%3 == 2 {
			rows[i].Role = "guardian"
		}
		if len(groups) > 0 {
			rows[i].Group = groups[i%len(groups)]
		}
	}
	return rows
}

// importRows imports rows into team in requests of chunk rows, one after
// another, and measures them (latency per request, throughput per row).
// Rows the service did not start within its 45 s budget (import_timeout)
// are imported again in requests of importChunk rows, and the row says so.
func importRows(ctx context.Context, env *benchEnv, name, teamID string, rows []harness.Member, chunk int) (result, error) {
	admin := env.admin()
	var lat []time.Duration
	// post imports part and returns its rows that the service did not start
	// within its budget; any other failure is an error.
	post := func(part []harness.Member) (again []harness.Member, err error) {
		t0 := time.Now()
		res, err := harness.ImportMembers(ctx, admin, teamID, part)
		if err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t0))
		for _, r := range res.Rows {
			switch {
			case r.Status == "created":
			case r.Error != nil && r.Error.Code == "import_timeout" && r.Line >= 2 && r.Line-2 < len(part):
				again = append(again, part[r.Line-2])
			default:
				return nil, fmt.Errorf("import: line %d failed: %+v", r.Line, r.Error)
			}
		}
		if res.Created+len(again) != len(part) {
			return nil, fmt.Errorf("import: %d created and %d timed out of %d rows", res.Created, len(again), len(part))
		}
		return again, nil
	}

	progress("scenario %s: importing %d rows, %d per request…", name, len(rows), chunk)
	defer env.profileService(ctx, name, time.Duration(len(rows)/8000+2)*time.Second)()
	m := env.meter(ctx)
	var retry []harness.Member
	done := 0
	for part := range slices.Chunk(rows, chunk) {
		again, err := post(part)
		if err != nil {
			return result{}, err
		}
		retry, done = append(retry, again...), done+len(part)
		progress("scenario %s: %d of %d rows (%s for this request)", name, done, len(rows), lat[len(lat)-1].Round(time.Millisecond))
	}
	first, note := len(lat), ""
	if len(retry) > 0 {
		progress("scenario %s: %d rows ran out of the import's time budget; importing them again", name, len(retry))
		for part := range slices.Chunk(retry, importChunk) {
			again, err := post(part)
			if err == nil && len(again) > 0 {
				err = fmt.Errorf("import: %d rows timed out again in a %d-row request", len(again), importChunk)
			}
			if err != nil {
				return result{}, err
			}
		}
		note = fmt.Sprintf("%d of the rows did not fit in the first %d request(s)' 45 s budget (import_timeout) and took %d more of ≤%d rows",
			len(retry), first, len(lat)-first, importChunk)
	}
	r := result{Run: load.Run{Requests: len(lat), Stats: load.Summarise(lat)}, Concurrency: 1, Items: len(rows), Unit: "rows", Note: note}
	m.finish(ctx, &r, false)
	return r, nil
}

// profileService takes a CPU profile of the service for d into
// $BENCH_PPROF_DIR/<name>.pprof when that variable is set (a diagnostic:
// where a row's service time goes); wait returns once it is written.
func (e *benchEnv) profileService(ctx context.Context, name string, d time.Duration) (wait func()) {
	dir := os.Getenv("BENCH_PPROF_DIR")
	if dir == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		path := filepath.Join(dir, name+".pprof")
		url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", e.svc.AdminURL, int(d.Seconds()))
		body, err := get(ctx, http.DefaultClient, url, "", http.StatusOK, "")
		if err == nil {
			err = os.WriteFile(path, body, 0o644)
		}
		if err != nil {
			progress("profile %s: %v", name, err)
			return
		}
		progress("profile %s: %s", name, path)
	}()
	return func() { <-done }
}

// settle brings the database to the state a team's pages are read in on
// a server that has been up a while: the roster's tables vacuumed and
// analyzed, and no autovacuum worker running. Right after the fixture's
// import, autovacuum woke up on the new rows at some point of whichever
// pages scenario came first and took one of the two cores for seconds.
// The time it takes is not measured.
func (e *benchEnv) settle(ctx context.Context) error {
	t0 := time.Now()
	if _, err := e.pool.Exec(ctx, `VACUUM (ANALYZE) roster_members, roster_group_members, roster_consent_events, webhook_events, platform_rate_limits`); err != nil {
		return fmt.Errorf("settle: vacuum: %w", err)
	}
	idle, err := load.WaitFor(ctx, 200*time.Millisecond, time.Minute, func() (bool, error) {
		n, err := scalar[int](ctx, e.pool, `SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`)
		return n == 0, err
	})
	if err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	if !idle {
		progress("settle: autovacuum workers still running after a minute; measuring anyway")
	}
	progress("settle: roster tables vacuumed and analyzed (%s)", time.Since(t0).Round(time.Millisecond))
	return nil
}

// rosterTeam is the roster scenarios' team.
type rosterTeam struct {
	*harness.Fixture
	rows     []harness.Member // the members imported, in file order
	extra    int              // members the single-request imports added after the others
	imported result           // the measured import
}

// members is the team's size now: the head coach, the imported members
// and what the single-request imports that ran before added.
func (rt *rosterTeam) members() int { return len(rt.rows) + 1 + rt.extra }

var rosterGroups = []string{"U10", "U12", "U14", "U16"}

// onRoster is a row on the roster team.
func onRoster(row func(context.Context, *benchEnv, *rosterTeam) (result, error)) runFunc {
	return on("roster", newRosterTeam, row)
}

func newRosterTeam(ctx context.Context, env *benchEnv) (*rosterTeam, error) {
	admin := env.admin()
	progress("roster: creating a team with %d members…", env.members)
	fx, err := harness.NewTeam(ctx, admin, harness.TeamOptions{})
	if err != nil {
		return nil, fmt.Errorf("create the roster team: %w", err)
	}
	for _, g := range rosterGroups {
		if err := admin.Expect(ctx, http.StatusCreated, http.MethodPost, "/teams/"+fx.TeamID+"/groups", map[string]any{"name": g}, nil); err != nil {
			return nil, err
		}
	}
	rt := &rosterTeam{Fixture: fx, rows: teamRows(blockRoster, env.members, rosterGroups)}
	rt.imported, err = importRows(ctx, env, "roster-import", fx.TeamID, rt.rows, importChunk)
	return rt, err
}

func runRosterImport(_ context.Context, _ *benchEnv, rt *rosterTeam) (result, error) {
	r := rt.imported
	r.Desc = fmt.Sprintf("admin CSV import of the team's %d members in requests of %d rows (name, phone, role, one of 4 groups); "+
		"latency per request, throughput per row", len(rt.rows), importChunk)
	return r, nil
}

// rosterPages reads every page of the roster team in order, passes times
// after one unmeasured pass, with one worker or -concurrency workers.
func rosterPages(name string, concurrent bool) runFunc {
	return onRoster(func(ctx context.Context, env *benchEnv, rt *rosterTeam) (result, error) {
		if err := env.settle(ctx); err != nil {
			return result{}, err
		}
		members := rt.members()
		pages := ceilDiv(members, pageLimit)
		passes, workers := pagePasses, 1
		if n, err := strconv.Atoi(os.Getenv("BENCH_PAGE_PASSES")); err == nil && n > 0 {
			passes = n // more passes: steadier CPU figures and a fuller profile
		}
		if concurrent {
			// The same pages go about four times faster: a run of comparable length.
			passes, workers = passes*4, env.concurrency
		}
		ring, err := freshKeys(ctx, env, rt.Fixture, "bench-pages", (passes+1)*pages+1, requestBudget)
		if err != nil {
			return result{}, err
		}
		c := load.Client(1, nil)
		defer c.CloseIdleConnections()
		url := func(offset int) string {
			return fmt.Sprintf("%s/api/v1/members?limit=%d&offset=%d", env.svc.PublicURL, pageLimit, offset)
		}

		// One checked page first: the full decode agrees with the cheap checks below.
		body, err := get(ctx, c, url(0), ring.authz(), http.StatusOK, "")
		var pg client.ListBodyMember
		if err == nil {
			err = json.Unmarshal(body, &pg)
		}
		if err != nil {
			return result{}, fmt.Errorf("check page: %w", err)
		}
		if want := min(pageLimit, members); len(pg.Data) != want || pg.Pagination.HasMore != (want < members) ||
			strings.Count(string(body), `"phone":`) != want || len(pg.Data[want-1].GroupIds) != 1 {
			return result{}, fmt.Errorf("check page: %d members, has_more %v; want %d of %d, each in a group", len(pg.Data), pg.Pagination.HasMore, want, members)
		}

		var next atomic.Uint64
		do := func(ctx context.Context) error {
			offset := int((next.Add(1)-1)%uint64(pages)) * pageLimit
			want := min(pageLimit, members-offset)
			body, err := get(ctx, c, url(offset), ring.authz(), http.StatusOK, "")
			if err != nil {
				return err
			}
			more := strings.Contains(string(body), `"has_more":true`)
			if n := strings.Count(string(body), `"phone":`); n != want || more != (offset+want < members) {
				return fmt.Errorf("page at %d: %d members, has_more %v; want %d", offset, n, more, want)
			}
			return nil
		}
		profiled := env.profileService(ctx, name, time.Duration(passes*pages/150+2)*time.Second)
		r, err := measure(ctx, env, name, pages, passes*pages, workers, do)
		profiled()
		if err != nil {
			return result{}, err
		}
		r.Desc = fmt.Sprintf("HTTP `GET /members?limit=%d&offset=N` on the %d-member team: its %d pages in order, %d passes "+
			"after one unmeasured pass, %d worker(s)", pageLimit, members, pages, passes, workers)
		r.Note = fmt.Sprintf("%d fresh keys", len(ring.keys))
		r.Target, r.Met = "p99 < 25 ms", r.Stats.P99 < pageTarget
		return r, nil
	})
}

func runRosterOptOutBulk(ctx context.Context, env *benchEnv, rt *rosterTeam) (result, error) {
	if (1+bulkRuns)*bulkItems > len(rt.rows) {
		return result{}, fmt.Errorf("roster-optout-bulk needs %d members (-members)", (1+bulkRuns)*bulkItems)
	}
	// The heavy pool allows 10 a minute per key: a fresh key per request.
	ring, err := freshKeys(ctx, env, rt.Fixture, "bench-bulk", 1+bulkRuns, 1)
	if err != nil {
		return result{}, err
	}
	r, err := timedRuns(ctx, env, "roster-optout-bulk", 1, bulkRuns, bulkItems, "items", func(ctx context.Context, run int) (time.Duration, error) {
		// Members run*500 … run*500+499: numbers no earlier run opted out.
		var body client.BulkOptOutRequest
		for i := range bulkItems {
			body.Items = append(body.Items, client.Item{Phone: rt.rows[run*bulkItems+i].Phone})
		}
		var res client.DataBodyListBulkResult
		d, err := timedCall(ctx, env.api(ring.key()), http.StatusOK, http.MethodPost, "/opt-outs/bulk", body, &res)
		if err != nil {
			return d, err
		}
		if len(res.Data) != bulkItems {
			return d, fmt.Errorf("bulk opt-out: %d results for %d items", len(res.Data), bulkItems)
		}
		for i, it := range res.Data {
			if it.Status != client.BulkResultStatusOptedOut || len(it.MemberIds) != 1 {
				return d, fmt.Errorf("bulk opt-out: item %d: %s with %d members, want opted_out with 1", i, it.Status, len(it.MemberIds))
			}
		}
		return d, nil
	})
	if err != nil {
		return result{}, err
	}
	r.Desc = fmt.Sprintf("HTTP `POST /opt-outs/bulk` with %d members' numbers (E.164) not opted out before: each item "+
		"opts out one roster entry and emits `member.opted_out`; %d requests after one unmeasured, a fresh key each", bulkItems, bulkRuns)
	r.Target, r.Met = "< 300 ms (every request)", r.Stats.Max < bulkTarget
	return r, nil
}

func runRosterValidate(ctx context.Context, env *benchEnv, rt *rosterTeam) (result, error) {
	invalid := []string{"12345", "+1202555", "not a number", "(000) 000-0000", "+44 20 7946 0958"}
	ring, err := freshKeys(ctx, env, rt.Fixture, "bench-validate", 1+validateRuns, heavyBudget)
	if err != nil {
		return result{}, err
	}
	r, err := timedRuns(ctx, env, "roster-validate", 1, validateRuns, validateSize, "numbers", func(ctx context.Context, run int) (time.Duration, error) {
		// 60 members (national format for every other one), 20 members that
		// a bulk run opted out (when it ran), 15 numbers on no roster, 5 invalid.
		var phones []string
		for i := range 60 {
			p := rt.rows[len(rt.rows)-1-(run*60+i)%(len(rt.rows)/2)].Phone
			if i%2 == 1 {
				p = harness.National(p)
			}
			phones = append(phones, p)
		}
		for i := range 20 {
			phones = append(phones, rt.rows[(run*20+i)%(len(rt.rows)/2)].Phone)
		}
		for i := range 15 {
			phones = append(phones, harness.Phone(blockUnknown, run*15+i))
		}
		phones = append(phones, invalid...)
		var res client.DataBodyListCheck
		d, err := timedCall(ctx, env.api(ring.key()), http.StatusOK, http.MethodPost, "/recipients/validate", client.ValidateRecipientsRequest{Phones: phones}, &res)
		if err != nil {
			return d, err
		}
		valid, on := 0, 0
		for _, c := range res.Data {
			if c.Valid {
				valid++
			}
			if c.OnRoster {
				on++
			}
		}
		if len(res.Data) != validateSize || valid != validateSize-len(invalid) || on != 80 {
			return d, fmt.Errorf("validate: %d results, %d valid, %d on the roster; want %d, %d, 80", len(res.Data), valid, on, validateSize, validateSize-len(invalid))
		}
		return d, nil
	})
	if err != nil {
		return result{}, err
	}
	r.Desc = fmt.Sprintf("HTTP `POST /recipients/validate` with %d numbers: 60 members (half in national format), 20 members "+
		"of the bulk runs' range (opted out when that row ran), 15 on no roster, 5 invalid; %d requests after one unmeasured", validateSize, validateRuns)
	r.Note = fmt.Sprintf("%d fresh keys", len(ring.keys))
	return r, nil
}

// importOne imports n new members of block into the roster team in one
// request (at most 100,000, the most one import may carry).
func importOne(name string, block, n int) runFunc {
	return onRoster(func(ctx context.Context, env *benchEnv, rt *rosterTeam) (result, error) {
		before := rt.members()
		r, err := importRows(ctx, env, name, rt.TeamID, teamRows(block, n, rosterGroups), n)
		if err != nil {
			return result{}, err
		}
		rt.extra += n
		r.Desc = fmt.Sprintf("admin CSV import of %d new members in **one request**, into the team of %d members (rows as above)", n, before)
		if n <= 5000 {
			r.Target, r.Met = "one request (45 s budget)", r.Requests == 1
		} else {
			r.Target, r.Met = "≥ 20,000 rows/s, one request", r.Requests == 1 && r.Throughput() >= 20000
		}
		return r, nil
	})
}

func rosterBullets(meta reportMeta) []string {
	return []string{
		fmt.Sprintf("Fixture: a new Team Plus team with a head coach and %d members imported by the `roster-import` row (athletes and "+
			"guardians, each in one of 4 groups), so %d on the roster; the single-request imports add to the same team last",
			meta.Env.members, meta.Env.members+1),
		fmt.Sprintf("Load: one worker unless the row says otherwise; API requests use fresh keys of the head coach (at most %d requests a key, and "+
			"one key per bulk request, %d per validate key, under the heavy pool's 10/min); *CPU* and *DB acquires* are per unit: "+
			"per page, per imported row, per bulk item, per checked number", requestBudget, heavyBudget),
	}
}
