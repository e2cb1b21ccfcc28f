package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/teamtext/teamtext/e2e/harness/load"
)

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

func TestFollowMakesTheRowOfItsPolls(t *testing.T) {
	ctx, start := context.Background(), time.Now()
	counts := []int{2, 5}
	r, err := follow(ctx, start, time.Millisecond, time.Minute, 5, "jobs", func() (int, error) { n := counts[0]; counts = counts[1:]; return n, nil })
	if err != nil || r.Requests != 1 || r.Items != 5 || r.Unit != "jobs" || r.Truncated || r.Stats.N != 5 || r.Elapsed != r.Stats.Max {
		t.Fatalf("done on the second poll: %+v, %v", r, err)
	}
	// Past its timeout with 3 of 5 done: a truncated row.
	if r, err := follow(ctx, start, time.Millisecond, 0, 5, "jobs", func() (int, error) { return 3, nil }); err != nil || !r.Truncated || r.Items != 3 {
		t.Fatalf("3 of 5: %+v, %v", r, err)
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
	plain := renderTable([]result{{Name: "a", Desc: "d", Run: load.Run{Requests: 10, Elapsed: time.Second}, Concurrency: 1}})
	if !strings.Contains(plain, "CPU/req: bench") || !strings.Contains(plain, "| 10.0 req/s |") || strings.Contains(plain, "Target") {
		t.Fatalf("plain table:\n%s", plain)
	}
	mixed := renderTable([]result{
		{Name: "imp", Desc: "d", Run: load.Run{Requests: 10, Elapsed: 20 * time.Second}, Items: 10000, Unit: "rows", Concurrency: 1, Note: "n"},
		{Name: "pg", Desc: "d", Run: load.Run{Requests: 5, Elapsed: time.Second}, Concurrency: 1, Target: "p99 < 25 ms", Met: true},
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
	builds := 0
	build := func(context.Context, *benchEnv) (map[string]result, error) {
		builds++
		return map[string]result{"a": {Run: load.Run{Requests: 1}}, "b": {Run: load.Run{Requests: 2}}}, nil
	}
	env := &benchEnv{}
	b, err := shared("fx", build, "b")(context.Background(), env)
	if err != nil || b.Requests != 2 {
		t.Fatalf("row b: %+v, %v", b, err)
	}
	a, err := shared("fx", build, "a")(context.Background(), env)
	if err != nil || a.Requests != 1 || builds != 1 {
		t.Fatalf("row a: %+v, %v; %d builds", a, err, builds)
	}
	if _, err := shared("fx", build, "c")(context.Background(), env); err == nil || builds != 1 {
		t.Fatalf("row c, which the fixture did not measure: %v; %d builds", err, builds)
	}
}
