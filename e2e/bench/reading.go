package main

import (
	"fmt"
	"strings"
	"time"
)

// foundationReading interprets the foundation rows: how much HTTP, auth and
// huma add on top of the same queries sent straight through pgx.
func foundationReading(meta reportMeta, rs []result) string {
	h, okH := findResult(rs, "team-http")
	p3, okP := findResult(rs, "team-pgx")
	if !okH || !okP || h.Requests == 0 || p3.Requests == 0 {
		return ""
	}
	per := func(r result, d time.Duration) time.Duration { return d / time.Duration(r.Requests) }
	var b strings.Builder
	b.WriteString("**Reading.** Postgres answers the same three statements in the `team-http` and `team-pgx` rows, " +
		"so the gap between them is what HTTP, the auth middleware and huma (with bun and database/sql underneath) " +
		"add on top of raw SQL. ")
	if h.Throughput() < p3.Throughput() {
		fmt.Fprintf(&b, "The endpoint served %.0f req/s, %.1f× fewer than raw pgx (%.0f req/s), with a median of %s against %s "+
			"(p99 %s against %s). ", h.Throughput(), p3.Throughput()/h.Throughput(), p3.Throughput(),
			fmtDur(h.Stats.P50), fmtDur(p3.Stats.P50), fmtDur(h.Stats.P99), fmtDur(p3.Stats.P99))
	} else {
		fmt.Fprintf(&b, "The endpoint kept up with raw pgx (%.0f against %.0f req/s; p50 %s against %s), "+
			"so in this run the database, not the service, set the pace. ", h.Throughput(), p3.Throughput(),
			fmtDur(h.Stats.P50), fmtDur(p3.Stats.P50))
	}
	if h.CPU.HasService {
		fmt.Fprintf(&b, "The CPU columns say where the time goes: the `teamtext` process spent %s of CPU per request "+
			"(net/http, the request-id, logging and metrics middleware, the key check with its SHA-256, huma's routing and "+
			"JSON encoding, bun's query building and row scanning over database/sql), where a bare pgx client needed %s "+
			"for the same three statements (the bench's own CPU in the `team-pgx` row); the HTTP client in the bench cost "+
			"another %s. ", fmtMicros(per(h, h.CPU.Service)), fmtMicros(per(p3, p3.CPU.Bench)), fmtMicros(per(h, h.CPU.Bench)))
	}
	if h.CPU.HasPostgres && p3.CPU.HasPostgres {
		hp, pp := per(h, h.CPU.Postgres), per(p3, p3.CPU.Postgres)
		fmt.Fprintf(&b, "Postgres spent %s per request behind the endpoint and %s under raw pgx", fmtMicros(hp), fmtMicros(pp))
		if float64(hp) > 1.15*float64(pp) {
			b.WriteString(" — more for the same statements (bun inlines its arguments into the SQL text and goes " +
				"through database/sql; not investigated yet), but less than the service's own share. ")
		} else {
			b.WriteString(", so the database is not where the overhead is. ")
		}
		if h.CPU.HasService {
			fmt.Fprintf(&b, "Summed over the three processes that is %s of CPU per request for the endpoint against %s "+
				"for raw pgx; with %d CPUs shared by the load generator, the service and Postgres, that sum rather than the "+
				"service alone bounds the throughput figures. ",
				fmtMicros(per(h, h.CPU.Bench+h.CPU.Service+h.CPU.Postgres)),
				fmtMicros(per(p3, p3.CPU.Bench+p3.CPU.Service+p3.CPU.Postgres)), meta.Facts.NumCPU)
		}
	}
	if p1, ok := findResult(rs, "team-pgx-1q"); ok && p1.Requests > 0 {
		fmt.Fprintf(&b, "For reference, one statement joining team and billing (`team-pgx-1q`, no key lookup) ran at "+
			"%.0f req/s with a median of %s: every round trip saved is worth about as much as the statement itself, "+
			"so fewer statements per request is the second lever after the service's own CPU. ",
			p1.Throughput(), fmtDur(p1.Stats.P50))
	}
	b.WriteString("Throughput and tail latencies move noticeably between runs on a small shared machine; " +
		"compare rows of one run, and lean on the CPU-per-request columns, which are steadier.")
	return b.String()
}

func findResult(rs []result, name string) (result, bool) {
	for _, r := range rs {
		if r.Name == name {
			return r, true
		}
	}
	return result{}, false
}
