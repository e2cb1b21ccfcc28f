package main

// Issue 15's rows: the statements the service now sends, sent raw through
// pgx (prepared by its statement cache) in the same run, beside the HTTP
// rows they mirror (team-http, roster-pages, roster-import-5k).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

// sqlLeanGate is the gate's one statement
// (modules/roster/internal/postgres.KeyAuthSQL with billing's AccessSQL and
// platform/ratelimit's check). Kept in step by hand, like the texts below
// (billing's creditsUsed; roster's MemberPage without filters): the bench
// cannot import internals.
func sqlLeanGate() string {
	return `WITH a AS (
SELECT k.id AS key_id, k.hash, k.revoked_at, t.id AS team_id, t.code, t.name, t.number, t.time_zone, t.disabled, t.locked,
       m.id AS member_id, m.is_blocked, m.role, m.can_send_broadcasts, (m.deleted_at IS NOT NULL) AS member_gone,
       acc.plan, acc.card_on_file, acc.payment_state, acc.trial, acc.trial_credits
FROM roster_api_keys k
JOIN roster_teams t ON t.id = k.team_id
JOIN roster_members m ON m.id = k.member_id
LEFT JOIN LATERAL (SELECT plan, card_on_file, payment_state, trial, trial_credits FROM billing_accounts WHERE team_id = k.team_id) acc ON true
WHERE k.lookup = $1),
rl_src AS (
SELECT $3::text || a.key_id AS bucket FROM a
WHERE a.hash = $2::bytea AND a.revoked_at IS NULL AND NOT a.member_gone AND NOT a.is_blocked AND NOT a.disabled AND NOT a.locked
  AND a.plan IS NOT NULL AND ($4::text[] IS NULL OR a.plan = ANY($4::text[])) AND (NOT $5::bool OR a.card_on_file)),
` + ratelimit.CheckCTEs("rl_src", 6) + `
SELECT a.*, rl.admitted, rl.hits, rl.now FROM a LEFT JOIN rl ON true`
}

// leanGate sends the gate's statement for key, counting the request
// against the bucket prefix (the key's id follows it), as the service does.
func leanGate(ctx context.Context, pool *pgxpool.Pool, limiter *ratelimit.Limiter, query, key, bucket string) (keyRow, error) {
	check, err := limiter.Check(auth.RequestPolicy)
	if err != nil {
		return keyRow{}, err
	}
	var (
		k            keyRow
		name, number string
		tz           string
		plan, pstate *string
		card, trial  *bool
		trialCredits *int32
		admitted     *bool
		hits         []pgtype.Timestamptz
		now          *time.Time
	)
	args := append([]any{keyLookup(key), auth.Hash(key), bucket, billingapi.APIPlans(), false}, check.Args()...)
	err = pool.QueryRow(ctx, query, args...).Scan(&k.keyID, &k.hash, &k.revokedAt, &k.teamID, &k.teamCode, &name, &number, &tz,
		&k.disabled, &k.locked, &k.memberID, &k.blocked, &k.role, &k.canBroadcast, &k.memberGone, &plan, &card, &pstate, &trial, &trialCredits,
		&admitted, &hits, &now)
	if err != nil {
		return keyRow{}, fmt.Errorf("gate: %w", err)
	}
	if !auth.Verify(key, k.hash) || plan == nil || admitted == nil || now == nil {
		return keyRow{}, errors.New("gate: key or account does not match")
	}
	if d := check.Decision(*admitted, hits, *now); !d.Allowed {
		return keyRow{}, errors.New("limiter refused a bench bucket")
	}
	return k, nil
}

// The other texts.
const (
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

// runTeamPgxLean sends GET /team's two statements: the gate's one (the
// key's read and the 120/min ring check, buckets rotating as team-http's
// keys do) and the credits used.
func runTeamPgxLean(ctx context.Context, env *benchEnv) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	limiter := ratelimit.New(pool, clock.Real{})
	key := env.keys[0]
	gate := sqlLeanGate()
	run := time.Now().UnixNano()
	var next atomic.Uint64
	do := func(ctx context.Context) error {
		bucket := fmt.Sprintf("bench-lean:%d:%d:", run, (next.Add(1)-1)%uint64(len(env.keys)))
		k, err := leanGate(ctx, pool, limiter, gate, key, bucket)
		if err != nil {
			return err
		}
		var used, trialUsed int
		if err := pool.QueryRow(ctx, sqlLeanCredits, time.Now().UTC().Format("2006-01"), k.teamID).Scan(&used, &trialUsed); err != nil {
			return fmt.Errorf("credits: %w", err)
		}
		return nil
	}
	return measure(ctx, env, "team-pgx-lean", do)
}

// runRosterPagesPgxLean sends the page's own statement (the page with its
// group ids), without the gate's.
func runRosterPagesPgxLean(ctx context.Context, env *benchEnv) (result, error) {
	return rosterPagesPgxLean(ctx, env, "roster-pages-pgx-lean", 1, false)
}

// runRosterPagesPgxLean16 is roster-pages-pgx-lean with -concurrency
// clients, beside roster-pages-16.
func runRosterPagesPgxLean16(ctx context.Context, env *benchEnv) (result, error) {
	return rosterPagesPgxLean(ctx, env, "roster-pages-pgx-lean-16", env.concurrency, false)
}

// runRosterPagesPgxGate sends both statements a members page is, the
// gate's and the page's: the same SQL as roster-pages.
func runRosterPagesPgxGate(ctx context.Context, env *benchEnv) (result, error) {
	return rosterPagesPgxLean(ctx, env, "roster-pages-pgx-gate", 1, true)
}

// runRosterPagesPgxGate16 is roster-pages-pgx-gate with -concurrency
// clients, beside roster-pages-16.
func runRosterPagesPgxGate16(ctx context.Context, env *benchEnv) (result, error) {
	return rosterPagesPgxLean(ctx, env, "roster-pages-pgx-gate-16", env.concurrency, true)
}

// rosterPagesPgxLean reads the roster team's pages raw, with the gate's
// statement before each when withGate (one key, buckets rotating so the
// 120/min limit never refuses).
func rosterPagesPgxLean(ctx context.Context, env *benchEnv, name string, workers int, withGate bool) (result, error) {
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
	requests := max(env.requests/10, pages)
	if workers > 1 {
		requests = 4 * pagePassesFromEnv() * pages // as many as roster-pages-16
	}
	limiter := ratelimit.New(pool, clock.Real{})
	gate := sqlLeanGate()
	run := time.Now().UnixNano()
	var next atomic.Uint64
	do := func(ctx context.Context) error {
		i := next.Add(1) - 1
		page := int(i % uint64(pages))
		offset := page * pageLimit
		if withGate {
			if _, err := leanGate(ctx, pool, limiter, gate, env.keys[0], fmt.Sprintf("bench-pages:%d:%d:", run, i/uint64(requestBudget))); err != nil {
				return err
			}
		}
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
	r, err := measureSpec(ctx, env, name, pages,
		loadSpec{Requests: requests, Concurrency: workers, MaxDuration: env.maxDuration}, do)
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

// runRosterCopyAll10k and runRosterCopyAll100k are the import's own
// statements sent raw: what roster-import-10k and -100k cost without the
// service (HTTP, CSV, phone checks, the rules, building the rows and the
// events' JSON).
func runRosterCopyAll10k(ctx context.Context, env *benchEnv) (result, error) {
	return rosterCopyAll(ctx, env, "roster-copy-all-10k", import10k, 3)
}

func runRosterCopyAll100k(ctx context.Context, env *benchEnv) (result, error) {
	return rosterCopyAll(ctx, env, "roster-copy-all-100k", import100k, 1)
}

// The import's reads of a chunk (modules/roster/internal/postgres: LockPhones,
// ImportState with ImportEntriesSQL). Kept in step by hand, as above.
const (
	sqlCopyAllLock = `SELECT pg_advisory_xact_lock(hashtextextended($1 || '|' || p, 0))
FROM (SELECT DISTINCT unnest($2::text[]) AS p ORDER BY 1) ps`
	sqlCopyAllOptOuts = `SELECT p.phone FROM unnest($2::text[]) AS p(phone)
WHERE EXISTS (SELECT 1 FROM roster_opt_outs o WHERE o.team_id = $1 AND o.phone = p.phone)`
	sqlCopyAllEntries = `SELECT p.phone, m.id, m.name, m.role, m.dashboard_login, m.created_at
FROM unnest($2::text[]) AS p(phone)
CROSS JOIN LATERAL (SELECT id, name, role, dashboard_login, created_at FROM roster_members
                    WHERE team_id || ' ' || phone = $1 || ' ' || p.phone AND deleted_at IS NULL OFFSET 0) m`
	sqlCopyAllGroups = `SELECT id FROM roster_groups WHERE team_id = $1 AND id = ANY($2::text[])`
)

// rosterCopyAll writes n members into a fresh team with 4 groups the way
// the import does, through pgx with nothing else around it: chunks of
// 1,000 rows, two in flight, each one transaction with the chunk's phone
// locks, its reads (opt-outs, live entries, groups) and four COPYs — the
// members (with their consent record), their group memberships, their
// consent history rows and their member.joined events (the service's
// envelope and member payload). The service's import can approach this,
// not beat it.
func rosterCopyAll(ctx context.Context, env *benchEnv, name string, n, runs int) (result, error) {
	pool, err := env.pgxPool(ctx)
	if err != nil {
		return result{}, err
	}
	admin := env.admin()
	return timedRuns(ctx, env, name, 1, runs, n, "row", func(ctx context.Context, run int) (time.Duration, error) {
		fx, err := harness.NewTeam(ctx, admin, harness.TeamOptions{})
		if err != nil {
			return 0, err
		}
		var groups []string
		for _, g := range []string{"U10", "U12", "U14", "U16"} {
			var out struct {
				ID string `json:"id"`
			}
			if err := admin.Expect(ctx, http.StatusCreated, http.MethodPost, "/teams/"+fx.TeamID+"/groups", map[string]any{"name": g}, &out); err != nil {
				return 0, err
			}
			groups = append(groups, out.ID)
		}
		now := time.Now().UTC()
		stamp := now.Format("2006-01-02T15:04:05.000000Z")
		chunk := func(ctx context.Context, from, to int) error {
			tx, err := pool.Begin(ctx)
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback(ctx) }()
			ids := make([]string, 0, to-from)
			phones := make([]string, 0, to-from)
			for j := from; j < to; j++ {
				ids = append(ids, fmt.Sprintf("mem_all_%d_%s_%d_%d", env.runID, name, run, j))
				phones = append(phones, benchPhone(blockImport5k+1, j))
			}
			if _, err := tx.Exec(ctx, sqlCopyAllLock, fx.TeamID, phones); err != nil {
				return fmt.Errorf("lock: %w", err)
			}
			if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
				return err
			}
			for _, q := range []struct {
				sql  string
				args []any
			}{{sqlCopyAllOptOuts, []any{fx.TeamID, phones}}, {sqlCopyAllEntries, []any{fx.TeamID, phones}}, {sqlCopyAllGroups, []any{fx.TeamID, groups}}} {
				rows, err := tx.Query(ctx, q.sql, q.args...)
				if err != nil {
					return err
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					return err
				}
			}
			k := to - from
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"roster_members"},
				[]string{"id", "team_id", "name", "phone", "email", "role", "status", "is_blocked", "dashboard_login", "can_send_broadcasts", "created_at", "updated_at",
					"consent_source", "consent_at", "consent_evidence"},
				pgx.CopyFromSlice(k, func(j int) ([]any, error) {
					return []any{ids[j], fx.TeamID, fmt.Sprintf("Copy %d", from+j), phones[j], "", "athlete", "active", false, false, false, now, now,
						"import", now, nil}, nil
				})); err != nil {
				return fmt.Errorf("copy members: %w", err)
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"roster_group_members"}, []string{"group_id", "member_id", "team_id"},
				pgx.CopyFromSlice(k, func(j int) ([]any, error) { return []any{groups[(from+j)%len(groups)], ids[j], fx.TeamID}, nil })); err != nil {
				return fmt.Errorf("copy group members: %w", err)
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"roster_consent_events"},
				[]string{"id", "team_id", "phone", "member_id", "kind", "channel", "changed", "source", "evidence", "message_id", "at", "recorded_at"},
				pgx.CopyFromSlice(k, func(j int) ([]any, error) {
					return []any{"cev_" + ids[j][4:], fx.TeamID, phones[j], ids[j], "consent_given", "import", true, "import", nil, nil, now, now}, nil
				})); err != nil {
				return fmt.Errorf("copy consent events: %w", err)
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"webhook_events"}, []string{"id", "team_id", "type", "created_at", "body", "skipped", "webhook_id"},
				pgx.CopyFromSlice(k, func(j int) ([]any, error) {
					body := fmt.Sprintf(`{"id":"evt_%s","type":"member.joined","created_at":%q,"team":{"id":%q,"code":"BENCH1"},`+
						`"data":{"member":{"id":%q,"name":"Copy %d","phone":%q,"email":"","role":"athlete","status":"active","is_blocked":false,"created_at":%q}}}`,
						ids[j][4:], stamp, fx.TeamID, ids[j], from+j, phones[j], stamp)
					return []any{"evt_" + ids[j][4:], fx.TeamID, "member.joined", now, body, true, nil}, nil
				})); err != nil {
				return fmt.Errorf("copy events: %w", err)
			}
			return tx.Commit(ctx)
		}
		t0 := time.Now()
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(2) // two chunks in flight, as the import
		for from := 0; from < n; from += 1000 {
			g.Go(func() error { return chunk(gctx, from, min(from+1000, n)) })
		}
		err = g.Wait()
		return time.Since(t0), err
	})
}
