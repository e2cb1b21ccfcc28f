package main

// Issue 15's rows: the statements the service now sends, sent raw through
// pgx (prepared by its statement cache) in the same run, beside the HTTP
// rows they mirror (team-http, roster-pages, roster-import-5k).

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

// The texts the service sends (modules/roster/internal/postgres.KeyAuthSQL
// with billing's AccessSQL; billing's creditsUsed; roster's MemberPage
// without filters). Kept in step by hand: the bench cannot import internals.
const (
	sqlLeanGate = `SELECT k.id, k.hash, k.revoked_at, t.id, t.code, t.name, t.number, t.time_zone, t.disabled, t.locked,
       m.id, m.is_blocked, m.role, m.can_send_broadcasts, (m.deleted_at IS NOT NULL),
       a.plan, a.card_on_file, a.payment_state, a.trial, a.trial_credits
FROM roster_api_keys k
JOIN roster_teams t ON t.id = k.team_id
JOIN roster_members m ON m.id = k.member_id
LEFT JOIN LATERAL (SELECT plan, card_on_file, payment_state, trial, trial_credits FROM billing_accounts WHERE team_id = k.team_id) a ON true
WHERE k.lookup = $1`
	sqlLeanCredits = `SELECT
  coalesce(sum(credits) FILTER (WHERE period = $1 AND NOT trial), 0)::int,
  coalesce(sum(credits) FILTER (WHERE trial), 0)::int
FROM billing_credit_entries WHERE team_id = $2`
	sqlLeanPage = `SELECT m.id, m.team_id, m.name, m.phone, m.email, m.role, m.status, m.is_blocked, m.dashboard_login,
       m.can_send_broadcasts, m.created_at, m.updated_at, m.deleted_at, m.consent_source, m.consent_at, m.consent_evidence,
       ARRAY(SELECT gm.group_id FROM roster_group_members gm WHERE gm.member_id = m.id ORDER BY gm.group_id),
       (SELECT u.since FROM roster_undeliverable u WHERE u.team_id = m.team_id AND u.phone = m.phone)
FROM (SELECT * FROM roster_members m WHERE m.team_id = $1 AND m.deleted_at IS NULL ORDER BY m.created_at, m.id LIMIT $2 OFFSET $3) m ORDER BY m.created_at, m.id`
)

// runTeamPgxLean sends GET /team's three statements: the gate's one read,
// the 120/min ring check (platform/ratelimit itself, buckets rotating as
// team-http's keys do) and the credits used.
func runTeamPgxLean(ctx context.Context, env *benchEnv) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	limiter := ratelimit.New(pool, clock.Real{})
	key := env.keys[0]
	lookup := keyLookup(key)
	run := time.Now().UnixNano()
	var next atomic.Uint64
	do := func(ctx context.Context) error {
		var (
			k            keyRow
			name, number string
			tz           string
			plan, pstate *string
			card, trial  *bool
			trialCredits *int32
		)
		err := pool.QueryRow(ctx, sqlLeanGate, lookup).Scan(&k.keyID, &k.hash, &k.revokedAt, &k.teamID, &k.teamCode, &name, &number, &tz,
			&k.disabled, &k.locked, &k.memberID, &k.blocked, &k.role, &k.canBroadcast, &k.memberGone, &plan, &card, &pstate, &trial, &trialCredits)
		if err != nil {
			return fmt.Errorf("gate: %w", err)
		}
		if !auth.Verify(key, k.hash) || plan == nil {
			return errors.New("gate: key or account does not match")
		}
		bucket := fmt.Sprintf("bench-lean:%d:%d", run, (next.Add(1)-1)%uint64(len(env.keys)))
		d, err := limiter.Allow(ctx, bucket, auth.RequestPolicy)
		if err != nil {
			return err
		}
		if !d.Allowed {
			return errors.New("limiter refused a bench bucket")
		}
		var used, trialUsed int
		if err := pool.QueryRow(ctx, sqlLeanCredits, time.Now().UTC().Format("2006-01"), k.teamID).Scan(&used, &trialUsed); err != nil {
			return fmt.Errorf("credits: %w", err)
		}
		return nil
	}
	return measure(ctx, env, "team-pgx-lean", do)
}

// runRosterPagesPgxLean sends the one statement a members page now is.
func runRosterPagesPgxLean(ctx context.Context, env *benchEnv) (result, error) {
	rt, err := env.rosterTeam(ctx)
	if err != nil {
		return result{}, err
	}
	if err := env.settle(ctx); err != nil {
		return result{}, err
	}
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	pages := (rt.members + pageLimit - 1) / pageLimit
	var next atomic.Uint64
	do := func(ctx context.Context) error {
		page := int((next.Add(1) - 1) % uint64(pages))
		offset := page * pageLimit
		rows, err := pool.Query(ctx, sqlLeanPage, rt.teamID, pageLimit+1, offset)
		if err != nil {
			return err
		}
		n := 0
		var (
			m      memberDBRow
			groups []string
		)
		_, err = pgx.ForEachRow(rows, []any{&m.id, &m.teamID, &m.name, &m.phone, &m.email, &m.role, &m.status, &m.blocked, &m.login,
			&m.canBroadcast, &m.createdAt, &m.updatedAt, &m.deletedAt, &m.consentSource, &m.consentAt, &m.consentEvidence, &groups, &m.undeliverableSince},
			func() error { n++; return nil })
		if err != nil {
			return err
		}
		if want := min(pageLimit, rt.members-offset); min(n, pageLimit) != want {
			return fmt.Errorf("page at %d: %d members, want %d", offset, n, want)
		}
		return nil
	}
	r, err := measureSpec(ctx, env, "roster-pages-pgx-lean", pages,
		loadSpec{Requests: max(env.requests/10, pages), Concurrency: 1, MaxDuration: env.maxDuration}, do)
	return r, err
}

// runRosterCopy5k is the floor of roster-import-5k: COPY of 5,000 members
// straight into roster_members of a fresh team, one run at a time.
func runRosterCopy5k(ctx context.Context, env *benchEnv) (result, error) {
	return rosterCopy(ctx, env, "roster-copy-5k", import5k, 3)
}

// runRosterCopy10k and runRosterCopy100k are the floors of the 10,000- and
// 100,000-row imports in one request.
func runRosterCopy10k(ctx context.Context, env *benchEnv) (result, error) {
	return rosterCopy(ctx, env, "roster-copy-10k", import10k, 3)
}

func runRosterCopy100k(ctx context.Context, env *benchEnv) (result, error) {
	return rosterCopy(ctx, env, "roster-copy-100k", import100k, 1)
}

// rosterCopy copies n members straight into roster_members of a fresh team
// (runs times, one at a time): the members table with its indexes, nothing
// else — what an import of n rows cannot beat.
func rosterCopy(ctx context.Context, env *benchEnv, name string, n, runs int) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	return timedRuns(ctx, env, name, 1, runs, n, "row", func(ctx context.Context, i int) (time.Duration, error) {
		fx, err := harness.NewTeam(ctx, env.admin(), harness.TeamOptions{})
		if err != nil {
			return 0, err
		}
		now := time.Now().UTC()
		t0 := time.Now()
		copied, err := pool.CopyFrom(ctx, pgx.Identifier{"roster_members"},
			[]string{"id", "team_id", "name", "phone", "email", "role", "status", "is_blocked", "dashboard_login", "can_send_broadcasts", "created_at", "updated_at"},
			pgx.CopyFromSlice(n, func(j int) ([]any, error) {
				return []any{fmt.Sprintf("mem_copy_%d_%s_%d_%d", env.runID, name, i, j), fx.TeamID, fmt.Sprintf("Copy %d", j), benchPhone(blockImport5k+1, j), "",
					"athlete", "active", false, false, false, now, now}, nil
			}))
		d := time.Since(t0)
		if err != nil {
			return d, err
		}
		if copied != int64(n) {
			return d, fmt.Errorf("copied %d rows, want %d", copied, n)
		}
		return d, nil
	})
}
