package main

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	ms := time.Millisecond
	if s := computeStats(lat); s != (latencyStats{N: 100, P50: 50 * ms, P90: 90 * ms, P99: 99 * ms, Max: 100 * ms}) {
		t.Errorf("stats %+v", s)
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("single value p99 = %v", got)
	}
	if got := computeStats(nil); got.N != 0 {
		t.Errorf("empty stats = %+v", got)
	}
}

func TestRunLoadCountsAndErrors(t *testing.T) {
	var calls atomic.Int64
	r, err := runLoad(context.Background(), 1000, 8, time.Minute,
		func(context.Context) error {
			if calls.Add(1)%100 == 0 {
				return errors.New("boom")
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1000 || r.Requests != 1000 || r.Errors != 10 || r.FirstError != "boom" || r.Truncated {
		t.Fatalf("calls %d, result %+v", calls.Load(), r)
	}
}

func TestRunLoadTimeBound(t *testing.T) {
	// Calls cut short by the deadline are not counted; every call that
	// finished is. (How many finish depends on the machine's load, so the
	// test checks the accounting, not a count.)
	var finished atomic.Int64
	r, err := runLoad(context.Background(), 1<<30, 2, 50*time.Millisecond,
		func(ctx context.Context) error {
			select {
			case <-time.After(time.Millisecond):
				finished.Add(1)
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || r.Errors != 0 || int64(r.Requests) != finished.Load() || r.Stats.N != r.Requests {
		t.Fatalf("finished %d, result %+v", finished.Load(), r)
	}
}

func TestReplaceSection(t *testing.T) {
	doc := "# B\n\nintro\n\n<!-- bench:x:start -->\nold\n<!-- bench:x:end -->\n\ntail\n"
	sec := "<!-- bench:x:start -->\nnew\n<!-- bench:x:end -->\n"
	got, err := replaceSection(doc, "x", sec)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# B\n\nintro\n\n" + sec + "\ntail\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	got, err = replaceSection("# B\n", "y", "<!-- bench:y:start -->\n<!-- bench:y:end -->\n")
	if err != nil || !strings.HasPrefix(got, "# B\n\n<!-- bench:y:start -->") {
		t.Fatalf("append: %q, %v", got, err)
	}
	if _, err := replaceSection("<!-- bench:x:end -->\n<!-- bench:x:start -->\n", "x", sec); err == nil {
		t.Fatal("reversed markers accepted")
	}
}

func TestSmallestQuota(t *testing.T) {
	for in, want := range map[string]int{
		``:                      0,
		`"requests";q=120;w=60`: 120,
		`"requests";q=120;w=60, "heavy";q=10;w=60`:            10,
		`"sends-minute";q=20;w=60, "sends-hour";q=200;w=3600`: 20,
	} {
		if got := smallestQuota(in); got != want {
			t.Errorf("smallestQuota(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestCurveStats(t *testing.T) {
	start := time.Unix(0, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	// 2 units by 100 ms, none more by 200 ms, 4 by 300 ms, a dip ignored, 6 by 500 ms.
	s := curveStats(start, []curvePoint{{at(100), 2}, {at(200), 2}, {at(300), 4}, {at(400), 3}, {at(500), 6}})
	if s.N != 6 || s.P50 != 300*time.Millisecond || s.Max != 500*time.Millisecond {
		t.Fatalf("stats %+v", s)
	}
	if got := curveStats(start, nil); got.N != 0 {
		t.Fatalf("empty curve: %+v", got)
	}
}

func TestFollowMakesTheRowOfItsPolls(t *testing.T) {
	ctx, start := context.Background(), time.Now()
	counts := []int{2, 5}
	r, err := follow(ctx, start, time.Millisecond, time.Minute, 5, "jobs", func() (int, error) { n := counts[0]; counts = counts[1:]; return n, nil })
	if err != nil || r.Requests != 1 || r.Items != 5 || r.Unit != "jobs" || r.Truncated || r.Stats.N != 5 || r.Elapsed != r.Stats.Max {
		t.Fatalf("done on the second poll: %+v, %v", r, err)
	}
	// Past its timeout with 3 of 5 done: a truncated row; with none done: an error.
	if r, err := follow(ctx, start, time.Millisecond, 0, 5, "jobs", func() (int, error) { return 3, nil }); err != nil || !r.Truncated || r.Items != 3 {
		t.Fatalf("3 of 5: %+v, %v", r, err)
	}
	if _, err := follow(ctx, start, time.Millisecond, 0, 5, "jobs", func() (int, error) { return 0, nil }); err == nil {
		t.Fatal("none done: no error")
	}
}

func TestNational(t *testing.T) {
	if got := national("+12022000042"); got != "(202) 200-0042" {
		t.Fatalf("national = %q", got)
	}
}

func TestTakeIPs(t *testing.T) {
	env := &benchEnv{}
	a, err := env.takeIPs(251)
	if err != nil {
		t.Fatal(err)
	}
	b, err := env.takeIPs(1)
	if err != nil {
		t.Fatal(err)
	}
	if a[0].String() != "127.0.1.1" || a[249].String() != "127.0.1.250" || a[250].String() != "127.0.2.1" || b[0].String() != "127.0.2.2" {
		t.Fatalf("addresses %v … %v, %v, then %v", a[0], a[249], a[250], b[0])
	}
}

func TestRenderTableUnits(t *testing.T) {
	plain := renderTable([]result{{Name: "a", Desc: "d", Requests: 10, Concurrency: 1, Elapsed: time.Second}})
	if !strings.Contains(plain, "CPU/req: bench") || !strings.Contains(plain, "| 10.0 req/s |") || strings.Contains(plain, "Target") {
		t.Fatalf("plain table:\n%s", plain)
	}
	mixed := renderTable([]result{
		{Name: "imp", Desc: "d", Requests: 10, Items: 10000, Unit: "rows", Concurrency: 1, Elapsed: 20 * time.Second, Note: "n"},
		{Name: "pg", Desc: "d", Requests: 5, Concurrency: 1, Elapsed: time.Second, Target: "p99 < 25 ms", Met: true},
	})
	for _, want := range []string{"CPU/unit: bench", "| 500 rows/s |", "d; *n*", "| Target | Met |", "| p99 < 25 ms | **yes** |"} {
		if !strings.Contains(mixed, want) {
			t.Fatalf("mixed table lacks %q:\n%s", want, mixed)
		}
	}
}

func TestSharedFixtureRunsOnce(t *testing.T) {
	// Two rows of one fixture: whichever runs first builds it, the other
	// reads its own part of the same run.
	type run struct{ a, b result }
	builds := 0
	build := func(context.Context, *benchEnv) (*run, error) {
		builds++
		return &run{a: result{Requests: 1}, b: result{Requests: 2}}, nil
	}
	env := &benchEnv{}
	b, err := shared("fx", build, func(r *run) result { return r.b })(context.Background(), env)
	if err != nil || b.Requests != 2 {
		t.Fatalf("row b: %+v, %v", b, err)
	}
	a, err := shared("fx", build, func(r *run) result { return r.a })(context.Background(), env)
	if err != nil || a.Requests != 1 || builds != 1 {
		t.Fatalf("row a: %+v, %v; %d builds", a, err, builds)
	}
}

func TestWaitFor(t *testing.T) {
	calls := 0
	ok, err := waitFor(context.Background(), time.Millisecond, time.Minute, func() (bool, error) { calls++; return calls == 3, nil })
	if !ok || err != nil || calls != 3 {
		t.Fatalf("done on the third call: %v, %v after %d calls", ok, err, calls)
	}
	ok, err = waitFor(context.Background(), time.Millisecond, 0, func() (bool, error) { return false, nil })
	if ok || err != nil {
		t.Fatalf("past its timeout: %v, %v; want false without an error", ok, err)
	}
	boom := errors.New("boom")
	if _, err := waitFor(context.Background(), time.Millisecond, time.Minute, func() (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Fatalf("a failing check: %v", err)
	}
}

func TestParallelStopsAtFirstError(t *testing.T) {
	var ran atomic.Int64
	boom := errors.New("boom")
	err := parallel(context.Background(), 1000, 4, func(ctx context.Context, i int) error {
		ran.Add(1)
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || ran.Load() >= 1000 {
		t.Fatalf("err %v after %d calls; want boom, and the calls after it skipped", err, ran.Load())
	}
	ran.Store(0)
	if err := parallel(context.Background(), 100, 4, func(context.Context, int) error { ran.Add(1); return nil }); err != nil || ran.Load() != 100 {
		t.Fatalf("err %v after %d calls; want every call", err, ran.Load())
	}
}
