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
			b.WriteString(": more, although the service sends the same three statements per request (extended protocol, " +
				"cached prepared statements, like raw pgx; checked once with `log_statement = all`; bun inlines the " +
				"arguments into the SQL text)")
			if bg := meta.Env.idle; bg.HasPostgres {
				// Background work runs per second, so it is spread over the row's requests.
				bgPer := time.Duration(float64(bg.Postgres) / idleWindow.Seconds() * h.Elapsed.Seconds() / float64(h.Requests))
				fmt.Fprintf(&b, " and Postgres's idle background accounts for only %s of it", fmtMicros(bgPer))
			}
			b.WriteString("; the extra is not explained yet")
			if h.CPU.HasService && hp-pp < per(h, h.CPU.Service) {
				b.WriteString(", and it is smaller than the service's own share")
			}
			b.WriteString(". ")
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
			"%.0f req/s, %.1f× the three-statement rate, with a median of %s",
			p1.Throughput(), p1.Throughput()/p3.Throughput(), fmtDur(p1.Stats.P50))
		if p1.CPU.HasPostgres && p3.CPU.HasPostgres {
			fmt.Fprintf(&b, " and %s of Postgres CPU against %s", fmtMicros(per(p1, p1.CPU.Postgres)), fmtMicros(per(p3, p3.CPU.Postgres)))
		}
		b.WriteString(": on loopback the cost grows with the number of statements, so fewer statements per request " +
			"is the second lever after the service's own CPU. ")
	}
	b.WriteString("All figures, CPU per request included, move noticeably between runs on a small machine that " +
		"shares its CPUs with other work (see the load average above): compare rows of one run rather than runs.")
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
