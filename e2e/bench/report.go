package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// reportMeta is what every section states besides its table.
type reportMeta struct {
	Date     time.Time
	Command  string
	Facts    machineFacts
	Env      *benchEnv
	PoolSize int // the bench's own connections (-pg-max-conns)
}

// section describes how a scenario group is written to -out. Groups without
// an entry get a generic title.
type section struct {
	title   string
	bullets func(meta reportMeta) []string // the section's fixture and load
}

var sections = map[string]section{
	"foundation": {title: "Foundation: `GET /api/v1/team` under load", bullets: foundationBullets},
	"access":     {title: "Access control and limits: what auth and the rate limiter add to a request", bullets: accessBullets},
	"roster":     {title: "Roster: a large team's pages, bulk opt-outs, number checks, CSV import", bullets: rosterBullets},
	"messaging":  {title: "Messaging: accepting a send to a large team, delivering it, River's own pace", bullets: messagingBullets},
	"inbound15":  {title: "Inbound ingestion: carrier callbacks to `message.received` stored", bullets: inboundBullets},
	"webhooks":   {title: "Webhook recovery and throttle: re-queueing 10,000 abandoned deliveries, then delivering them in order", bullets: webhooksBullets},
	"engine":     {title: "Delivery engine: many teams at once, each number at its pace; STOP behind the backlog", bullets: engineBullets},
}

// fileHeader starts a new -out file (docs/BENCHMARKS.md has its own
// introduction, outside the sections).
const fileHeader = "# Benchmarks\n\nFigures from `go run ./e2e/bench`: each section is replaced between its " +
	"`<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` markers on every run; text outside them is kept.\n"

// renderTable is the Markdown table of rs. Rows that count items rather
// than requests (Items or Unit set) switch the per-request columns to per
// unit; rows with a target get Target and Met columns.
func renderTable(rs []result) string {
	plain, targets := true, false
	for _, r := range rs {
		plain = plain && r.Items == 0 && r.Unit == ""
		targets = targets || r.Target != ""
	}
	per, what, head, rule := "req", "One request is", "", ""
	if !plain {
		per, what = "unit", "What is measured"
	}
	if targets {
		head, rule = " Target | Met |", "---|---|"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| Scenario | %s | Requests | Workers | Throughput | p50 | p90 | p99 | max | Errors |"+
		" CPU/%s: bench | CPU/%s: service | CPU/%s: Postgres | DB acquires/%s |%s\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|%s\n",
		what, per, per, per, per, head, rule)
	for _, r := range rs {
		reqs := fmt.Sprint(r.Requests)
		if r.Truncated {
			reqs += " (time limit)"
		}
		n := r.units()
		perUnit := func(d time.Duration, ok bool) string {
			if !ok || n == 0 {
				return "n/a"
			}
			return fmtMicros(d / time.Duration(n))
		}
		acq := "n/a"
		if r.Use.HasAcq {
			acq = fmt.Sprintf("%.1f", r.Acquires)
		}
		desc := r.Desc
		if r.Note != "" {
			desc += "; *" + r.Note + "*"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s |",
			r.Name, desc, reqs, r.Concurrency, fmtRate(r.Throughput(), r.unit()),
			fmtDur(r.Stats.P50), fmtDur(r.Stats.P90), fmtDur(r.Stats.P99), fmtDur(r.Stats.Max), r.Errors,
			perUnit(r.Use.Bench, r.Use.Bench > 0), perUnit(r.Use.Service, r.Use.HasService), perUnit(r.Use.Postgres, r.Use.HasPostgres), acq)
		if targets {
			met := map[bool]string{false: "no", true: "**yes**"}[r.Met]
			if r.Target == "" {
				met = ""
			}
			fmt.Fprintf(&b, " %s | %s |", r.Target, met)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// fmtRate renders a throughput: "450 req/s", "12.5 rows/s".
func fmtRate(v float64, unit string) string {
	if v < 100 {
		return fmt.Sprintf("%.1f %s/s", v, unit)
	}
	return fmt.Sprintf("%.0f %s/s", v, unit)
}

// fmtDur renders a latency in milliseconds with sensible precision.
func fmtDur(d time.Duration) string {
	switch ms := float64(d) / float64(time.Millisecond); {
	case ms < 1:
		return fmt.Sprintf("%.3f ms", ms)
	case ms < 100:
		return fmt.Sprintf("%.2f ms", ms)
	default:
		return fmt.Sprintf("%.0f ms", ms)
	}
}

func fmtMicros(d time.Duration) string {
	if d >= 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

func foundationBullets(meta reportMeta) []string {
	e, keys := meta.Env, fmt.Sprintf("API keys: %d (`-keys`), requests round-robin over them", len(meta.Env.keys.keys))
	if !e.keysSet {
		keys = fmt.Sprintf("API keys: %d, one team's, requests round-robin over them, so that none makes more than %d requests a "+
			"minute (90%% of the service's per-key limit); the limiter's check is part of what is measured", len(e.keys.keys), requestBudget)
	}
	return []string{keys, fmt.Sprintf("Load: %d measured requests per row after %d unmeasured warm-up requests, %d concurrent workers; "+
		"latencies are per request as the load generator sees them; *CPU/req* is the CPU time the load generator, "+
		"the `teamtext` process and the Postgres container each used during the measured run, divided by its requests; "+
		"*DB acquires/req* counts connections taken from the service's pool (its /metrics) and the bench's pgx pool, "+
		"idle background taken out: one per statement outside a transaction", e.requests, e.warmup, e.concurrency)}
}

// renderSection is one group's section, markers included.
func renderSection(group string, meta reportMeta, rs []result) string {
	sec, ok := sections[group]
	if !ok {
		sec.title = "Scenarios: " + group
	}
	f, e := meta.Facts, meta.Env
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
	bullets := []string{"Date: " + meta.Date.Format("2006-01-02 15:04 MST"), "Command: " + meta.Command, "Machine: " + machine,
		fmt.Sprintf("Setup: load generator, `teamtext serve` (`LOG_LEVEL=warn`, `DB_MAX_CONNS` 20, `JOB_WORKERS` 50) and %s "+
			"(testcontainers, fsync off) on the same machine; keep-alive HTTP/1.1 over loopback; "+
			"the bench's own pool of %d connections for fixtures and polls", strings.TrimSpace("Postgres "+f.Postgres), meta.PoolSize)}
	if idle := e.idle; idle.HasService || idle.HasPostgres {
		rate := func(d time.Duration, ok bool) string {
			if !ok {
				return "n/a"
			}
			return fmt.Sprintf("%.1f ms/s", float64(d)/float64(time.Millisecond)/idleWindow.Seconds())
		}
		bullets = append(bullets, fmt.Sprintf("Background CPU while idle (measured over %s before the scenarios): service %s, Postgres %s",
			idleWindow, rate(idle.Service, idle.HasService), rate(idle.Postgres, idle.HasPostgres)))
	}
	if sec.bullets != nil {
		bullets = append(bullets, sec.bullets(meta)...)
	}
	return fmt.Sprintf("<!-- bench:%s:start -->\n## %s\n\n- %s\n\n%s<!-- bench:%s:end -->\n",
		group, sec.title, strings.Join(bullets, "\n- "), renderTable(rs), group)
}

// writeSections writes one section per scenario group that ran in full into
// path, replacing that group's earlier section and keeping everything else.
func writeSections(path string, meta reportMeta, rs []result) error {
	groups, byGroup := groupResults(rs)
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
	// Written aside and renamed, so that an interrupted run leaves the
	// file as it was.
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".bench")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	progress("wrote %d section(s) to %s", wrote, path)
	return nil
}

// groupResults is the groups of rs in order of appearance, with their results.
func groupResults(rs []result) ([]string, map[string][]result) {
	var groups []string
	byGroup := map[string][]result{}
	for _, r := range rs {
		if _, seen := byGroup[r.Group]; !seen {
			groups = append(groups, r.Group)
		}
		byGroup[r.Group] = append(byGroup[r.Group], r)
	}
	return groups, byGroup
}

// missingFromGroup lists the registered scenarios of group absent from rs.
func missingFromGroup(group string, rs []result) []string {
	var missing []string
	for _, s := range scenarios {
		if s.group == group && !slices.ContainsFunc(rs, func(r result) bool { return r.Name == s.name }) {
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
	return doc[:i] + sec + strings.TrimPrefix(doc[j+len(end):], "\n"), nil
}
