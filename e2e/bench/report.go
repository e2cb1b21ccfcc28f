package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// reportMeta is what every section states besides its table.
type reportMeta struct {
	Date    time.Time
	Command string
	Facts   machineFacts
	Env     *benchEnv
}

// section describes how a scenario group is written to -out. Groups without
// an entry get a generic title and no reading.
type section struct {
	title   string
	reading func(meta reportMeta, rs []result) string
}

var sections = map[string]section{
	"foundation": {title: "Foundation: `GET /api/v1/team` against raw SQL", reading: foundationReading},
}

const fileHeader = `# Benchmarks

Figures from ` + "`make bench`" + ` (` + "`go run ./e2e/bench -out docs/BENCHMARKS.md`" + `): a load
generator that starts Postgres in a container, builds and starts one
` + "`teamtext serve`" + ` and drives it over loopback. Each section below is written
by the bench between its ` + "`<!-- bench:NAME:start -->`" + ` and ` + "`<!-- bench:NAME:end -->`" + `
markers and replaced on every run; text outside the markers is kept.
`

// renderTable is the Markdown table of rs.
func renderTable(rs []result) string {
	var b strings.Builder
	b.WriteString("| Scenario | One request is | Requests | Workers | Throughput | p50 | p90 | p99 | max | Errors |" +
		" CPU/req: bench | CPU/req: service | CPU/req: Postgres | DB acquires/req |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rs {
		reqs := fmt.Sprint(r.Requests)
		if r.Truncated {
			reqs += " (time limit)"
		}
		perReq := func(d time.Duration, ok bool) string {
			if !ok || r.Requests == 0 {
				return "n/a"
			}
			return fmtMicros(d / time.Duration(r.Requests))
		}
		acq := "n/a"
		if r.Use.HasAcq {
			acq = fmt.Sprintf("%.1f", r.Acquires)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d | %.0f req/s | %s | %s | %s | %s | %d | %s | %s | %s | %s |\n",
			r.Name, r.Desc, reqs, r.Concurrency, r.Throughput(),
			fmtDur(r.Stats.P50), fmtDur(r.Stats.P90), fmtDur(r.Stats.P99), fmtDur(r.Stats.Max), r.Errors,
			perReq(r.Use.Bench, r.Use.Bench > 0), perReq(r.Use.Service, r.Use.HasService), perReq(r.Use.Postgres, r.Use.HasPostgres), acq)
	}
	return b.String()
}

func fmtMicros(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

// renderSection is one group's section, markers included.
func renderSection(group string, meta reportMeta, rs []result) string {
	sec, ok := sections[group]
	if !ok {
		sec.title = "Scenarios: " + group
	}
	f, e := meta.Facts, meta.Env
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- bench:%s:start -->\n", group)
	fmt.Fprintf(&b, "## %s\n\n", sec.title)
	fmt.Fprintf(&b, "- Date: %s\n", meta.Date.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Command: %s\n", meta.Command)
	machine := fmt.Sprintf("%d CPUs (runtime.NumCPU), %s/%s, %s", f.NumCPU, f.GOOS, f.GOARCH, f.Go)
	if f.CPUModel != "" {
		machine += ", " + f.CPUModel
	}
	if f.LoadAvg != "" {
		machine += "; load average " + f.LoadAvg + " when the run started"
		if f.LoadEnd != "" {
			machine += ", " + f.LoadEnd + " when the scenarios were done"
		}
	}
	fmt.Fprintf(&b, "- Machine: %s\n", machine)
	pg := "Postgres"
	if f.Postgres != "" {
		pg += " " + f.Postgres
	}
	fmt.Fprintf(&b, "- Setup: load generator, `teamtext serve` (`LOG_LEVEL=warn`, `DB_MAX_CONNS` 20) and %s "+
		"(testcontainers, fsync off) on the same machine; one team; keep-alive HTTP/1.1 over loopback; "+
		"raw pgx pool of %d connections\n", pg, e.pgMaxConns)
	switch kp := e.keyPlan; {
	case kp.Explicit:
		fmt.Fprintf(&b, "- API keys: %d (`-keys`), requests round-robin over them\n", kp.Keys)
	case kp.Quota > 0:
		fmt.Fprintf(&b, "- API keys: %d, requests round-robin over them, so that none exceeds the per-key limit the "+
			"service announces (`RateLimit-Policy: %s`); the limiter's check is part of what is measured\n", kp.Keys, kp.Policy)
	default:
		b.WriteString("- API keys: 1 (the service announced no rate limit)\n")
	}
	if idle := e.idle; idle.HasService || idle.HasPostgres {
		rate := func(d time.Duration, ok bool) string {
			if !ok {
				return "n/a"
			}
			return fmt.Sprintf("%.1f ms/s", float64(d)/float64(time.Millisecond)/idleWindow.Seconds())
		}
		fmt.Fprintf(&b, "- Background CPU while idle (measured over %s before the scenarios): service %s, Postgres %s\n",
			idleWindow, rate(idle.Service, idle.HasService), rate(idle.Postgres, idle.HasPostgres))
	}
	fmt.Fprintf(&b, "- Load: %d measured requests per row after %d unmeasured warm-up requests, %d concurrent workers; "+
		"latencies are per request as the load generator sees them; *CPU/req* is the CPU time the load generator, "+
		"the `teamtext` process and the Postgres container each used during the measured run, divided by its requests; "+
		"*DB acquires/req* counts connections taken from the service's pool (its /metrics) and the bench's pgx pool, "+
		"idle background taken out: one per statement outside a transaction\n\n",
		e.requests, e.warmup, e.concurrency)
	b.WriteString(renderTable(rs))
	if sec.reading != nil {
		if txt := sec.reading(meta, rs); txt != "" {
			b.WriteString("\n" + txt + "\n")
		}
	}
	fmt.Fprintf(&b, "<!-- bench:%s:end -->\n", group)
	return b.String()
}

// writeSections writes one section per scenario group that ran in full into
// path, replacing that group's earlier section and keeping everything else.
func writeSections(path string, meta reportMeta, rs []result) error {
	var groups []string
	byGroup := map[string][]result{}
	for _, r := range rs {
		if _, seen := byGroup[r.Group]; !seen {
			groups = append(groups, r.Group)
		}
		byGroup[r.Group] = append(byGroup[r.Group], r)
	}

	doc, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		doc = []byte(fileHeader)
	case err != nil:
		return err
	}
	text := string(doc)
	wrote := 0
	for _, g := range groups {
		if missing := missingFromGroup(g, byGroup[g]); len(missing) > 0 {
			progress("not writing section %q to %s: scenarios %s did not run", g, path, strings.Join(missing, ", "))
			continue
		}
		text, err = replaceSection(text, g, renderSection(g, meta, byGroup[g]))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		wrote++
	}
	if wrote == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".bench-*.md")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	progress("wrote %d section(s) to %s", wrote, path)
	return nil
}

// missingFromGroup lists the registered scenarios of group absent from rs.
func missingFromGroup(group string, rs []result) []string {
	var missing []string
	for _, s := range scenarios {
		if s.group != group {
			continue
		}
		found := false
		for _, r := range rs {
			found = found || r.Name == s.name
		}
		if !found {
			missing = append(missing, s.name)
		}
	}
	return missing
}

// replaceSection swaps the marked section of group in doc for sec (markers
// included), or appends sec when doc has none.
func replaceSection(doc, group, sec string) (string, error) {
	start := fmt.Sprintf("<!-- bench:%s:start -->", group)
	end := fmt.Sprintf("<!-- bench:%s:end -->", group)
	i := strings.Index(doc, start)
	j := strings.Index(doc, end)
	switch {
	case i < 0 && j < 0:
		doc = strings.TrimRight(doc, "\n")
		if doc != "" {
			doc += "\n\n"
		}
		return doc + sec, nil
	case i < 0 || j < i:
		return "", fmt.Errorf("unbalanced markers %s … %s", start, end)
	}
	if strings.Contains(doc[i+len(start):], start) {
		return "", fmt.Errorf("marker %s appears twice", start)
	}
	rest := doc[j+len(end):]
	rest = strings.TrimPrefix(rest, "\n")
	return doc[:i] + sec + rest, nil
}
