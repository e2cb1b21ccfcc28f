package main

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// foundationReading interprets the foundation rows: what HTTP, auth and huma
// add on top of the endpoint's data access sent straight through pgx. It is
// generated from the figures, so it stays true when they change.
func foundationReading(meta reportMeta, rs []result) string {
	h, okH := findResult(rs, "team-http")
	p3, okP := findResult(rs, "team-pgx")
	if !okH || !okP || h.Requests == 0 || p3.Requests == 0 {
		return ""
	}
	per := func(r result, d time.Duration) time.Duration { return d / time.Duration(r.Requests) }
	haveAcq := h.Use.HasAcq && p3.Acquires > 0
	sameStmts := haveAcq && math.Abs(h.Acquires-p3.Acquires) < 0.5

	var b strings.Builder
	b.WriteString("**Reading.** ")
	switch {
	case sameStmts:
		fmt.Fprintf(&b, "The endpoint sends Postgres as many statements per request as the `team-pgx` row "+
			"(%.1f pool acquires against %.1f), so the gap between the two rows is what HTTP, the auth middleware and "+
			"huma (with bun and database/sql underneath) add on top of raw SQL. ", h.Acquires, p3.Acquires)
	case haveAcq:
		fmt.Fprintf(&b, "The endpoint took %.1f pool connections per request, about one per statement, against %.1f for the "+
			"`team-pgx` row (key lookup, team, billing): besides what HTTP, the auth middleware and huma (with bun and "+
			"database/sql underneath) add, the gap between the two rows includes %.1f more statements per request",
			h.Acquires, p3.Acquires, h.Acquires-p3.Acquires)
		if meta.Env.keyPlan.Quota > 0 {
			b.WriteString(", the rate limiter's check among them")
		}
		b.WriteString(". ")
	default:
		b.WriteString("The `team-pgx` row sends the endpoint's three statements (key lookup, team, billing) straight " +
			"through pgx, so the gap between the two rows is what HTTP, the auth middleware and huma (with bun and " +
			"database/sql underneath) add, plus any statement the request path makes beyond those three (the service's " +
			"/metrics could not be read to count them). ")
	}
	if h.Throughput() < p3.Throughput() {
		fmt.Fprintf(&b, "The endpoint served %.0f req/s, %.1f× fewer than raw pgx (%.0f req/s), with a median of %s against %s "+
			"(p99 %s against %s). ", h.Throughput(), p3.Throughput()/h.Throughput(), p3.Throughput(),
			fmtDur(h.Stats.P50), fmtDur(p3.Stats.P50), fmtDur(h.Stats.P99), fmtDur(p3.Stats.P99))
	} else {
		fmt.Fprintf(&b, "The endpoint kept up with raw pgx (%.0f against %.0f req/s; p50 %s against %s), "+
			"so in this run the database, not the service, set the pace. ", h.Throughput(), p3.Throughput(),
			fmtDur(h.Stats.P50), fmtDur(p3.Stats.P50))
	}
	if h.Use.HasService {
		fmt.Fprintf(&b, "The CPU columns say where the time goes: the `teamtext` process spent %s of CPU per request "+
			"(net/http, the request-id, logging and metrics middleware, the auth gate with its key hash and access checks, "+
			"huma's routing and JSON encoding, bun's query building and row scanning over database/sql), where a bare pgx client needed %s "+
			"for its three statements (the bench's own CPU in the `team-pgx` row); the HTTP client in the bench cost "+
			"another %s. ", fmtMicros(per(h, h.Use.Service)), fmtMicros(per(p3, p3.Use.Bench)), fmtMicros(per(h, h.Use.Bench)))
	}
	if h.Use.HasPostgres && p3.Use.HasPostgres {
		hp, pp := per(h, h.Use.Postgres), per(p3, p3.Use.Postgres)
		fmt.Fprintf(&b, "Postgres spent %s per request behind the endpoint and %s under raw pgx", fmtMicros(hp), fmtMicros(pp))
		var bgPer time.Duration // Postgres's idle background, spread over the endpoint row's requests
		if bg := meta.Env.idle; bg.HasPostgres {
			bgPer = time.Duration(float64(bg.Postgres) / idleWindow.Seconds() * h.Elapsed.Seconds() / float64(h.Requests))
		}
		switch {
		case float64(hp) <= 1.15*float64(pp):
			b.WriteString(", so the database is not where the overhead is. ")
		case sameStmts:
			fmt.Fprintf(&b, ": more for as many statements (Postgres's idle background accounts for %s of it; bun "+
				"inlines the arguments into the SQL text where the bench sends parameters); the extra is not explained yet",
				fmtMicros(bgPer))
			if h.Use.HasService && hp-pp < per(h, h.Use.Service) {
				b.WriteString(", and it is smaller than the service's own share")
			}
			b.WriteString(". ")
		case haveAcq:
			each := time.Duration(float64(pp) / p3.Acquires)
			want := time.Duration(float64(each) * h.Acquires)
			if float64(hp) <= 1.15*float64(want) {
				fmt.Fprintf(&b, ": about what %.1f statements cost at the raw rate (%s each), so the extra database "+
					"time is the extra statements. ", h.Acquires, fmtMicros(each))
			} else {
				fmt.Fprintf(&b, ": more than %.1f statements at the raw rate of the point reads (%s each) would cost (%s)",
					h.Acquires, fmtMicros(each), fmtMicros(want))
				if meta.Env.keyPlan.Quota > 0 {
					b.WriteString(", most likely because one of the extra statements is the rate limiter's check, a " +
						"write (an upsert of the key's sliding log) rather than a point read; the bench does not isolate it. ")
				} else {
					b.WriteString("; the rest of the difference is not explained yet. ")
				}
			}
		default:
			b.WriteString(". ")
		}
		if h.Use.HasService {
			fmt.Fprintf(&b, "Summed over the three processes that is %s of CPU per request for the endpoint against %s "+
				"for raw pgx; with %d CPUs shared by the load generator, the service and Postgres, that sum rather than the "+
				"service alone bounds the throughput figures. ",
				fmtMicros(per(h, h.Use.Bench+h.Use.Service+h.Use.Postgres)),
				fmtMicros(per(p3, p3.Use.Bench+p3.Use.Service+p3.Use.Postgres)), meta.Facts.NumCPU)
		}
	}
	if p1, ok := findResult(rs, "team-pgx-1q"); ok && p1.Requests > 0 {
		fmt.Fprintf(&b, "For reference, one statement joining team and billing (`team-pgx-1q`, no key lookup) ran at "+
			"%.0f req/s, %.1f× the three-statement rate, with a median of %s",
			p1.Throughput(), p1.Throughput()/p3.Throughput(), fmtDur(p1.Stats.P50))
		if p1.Use.HasPostgres && p3.Use.HasPostgres {
			fmt.Fprintf(&b, " and %s of Postgres CPU against %s", fmtMicros(per(p1, p1.Use.Postgres)), fmtMicros(per(p3, p3.Use.Postgres)))
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
