package postgres_test

// The roster's statements on the service's hot paths, each measured two
// ways in one run (see dbtest.Bench): "repo" is the repository method the
// service calls, "pgx" the same text, from the same builder, sent raw
// through the pool. make bench-sql runs them; docs/BENCHMARKS.md maps the
// load harness's former raw-SQL rows to them.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

const (
	benchMembers = 10000 // the team's members besides its head coach, as in the load harness
	benchPage    = 200   // GET /members' largest page
	benchClients = 16    // the parallel variants' clients, as the harness's 16 workers
	importChunk  = 1000  // rows per import transaction, two in flight, as the service's import
)

// benchAccessSQL stands in for billing's part of the gate's statement
// (billingapi.Accounts.AccessSQL), whose tables are billing's alone: a
// table with the same columns, read the same way (one row by team id).
// BenchmarkCreditsUsed and BenchmarkAccount in billing's postgres package
// measure billing's own statements.
func benchAccessSQL(teamID string) string {
	return `SELECT plan, card_on_file, payment_state, trial, trial_credits FROM bench_accounts WHERE team_id = ` + teamID
}

// benchTeam is a team of the given size (athletes and guardians,
// one of 4 groups each) and a head coach with an API key, vacuumed and
// analyzed, in a database of its own.
type benchTeam struct {
	d       *db.DB
	repo    *postgres.Repo
	limiter *ratelimit.Limiter
	id      string
	members int // on the roster, the head coach included
	groups  []string
	lookup  string
	hash    []byte
	gate    string // the gate's statement, built as the service builds it
}

func newBenchTeam(b testing.TB, members int) *benchTeam {
	b.Helper()
	ctx := context.Background()
	d := server.Migrated(b, db.PlatformMigrations(), postgres.Migrations())
	t := &benchTeam{d: d, repo: postgres.NewRepo(d), limiter: ratelimit.New(d.Pool, clock.Real{}), id: "team_bench",
		members: members + 1, groups: []string{"grp_1", "grp_2", "grp_3", "grp_4"},
		gate: postgres.KeyAuthSQL(benchAccessSQL("k.team_id"))}
	_, err := d.Pool.Exec(ctx, fmt.Sprintf(`
CREATE TABLE bench_accounts (team_id text PRIMARY KEY, plan text NOT NULL, card_on_file boolean NOT NULL,
  payment_state text NOT NULL, trial boolean NOT NULL, trial_credits integer NOT NULL);
INSERT INTO bench_accounts VALUES ('team_bench', 'team_plus', true, 'ok', false, 0);
INSERT INTO roster_teams (id, name, code, time_zone, created_at) VALUES ('team_bench', 'Bench', 'bench', 'America/New_York', now());
INSERT INTO roster_groups (id, team_id, name, created_at) SELECT 'grp_' || g, 'team_bench', 'U' || (8 + 2 * g), now() FROM generate_series(1, 4) g;
INSERT INTO roster_members (id, team_id, name, phone, role, status, dashboard_login, can_send_broadcasts, created_at, updated_at)
  VALUES ('mem_coach', 'team_bench', 'Head Coach', '+12025550199', 'head_coach', 'active', true, true, now() - interval '1 day', now());
INSERT INTO roster_members (id, team_id, name, phone, role, status, created_at, updated_at)
  SELECT 'mem_' || lpad(i::text, 6, '0'), 'team_bench', 'Member ' || i, '+1310' || lpad(i::text, 7, '0'),
         CASE WHEN i %% 3 = 2 THEN 'guardian' ELSE 'athlete' END, 'active', now() + i * interval '1 millisecond', now()
  FROM generate_series(1, %[1]d) i;
INSERT INTO roster_group_members (group_id, member_id, team_id)
  SELECT 'grp_' || (1 + i %% 4), 'mem_' || lpad(i::text, 6, '0'), 'team_bench' FROM generate_series(1, %[1]d) i;`, members))
	if err != nil {
		b.Fatal(err)
	}
	key, lookup, hash, err := auth.NewKey()
	if err != nil {
		b.Fatal(err)
	}
	t.lookup, t.hash = lookup, auth.Hash(key)
	if err := t.repo.InsertKey(ctx, &domain.APIKey{ID: "key_bench", TeamID: t.id, MemberID: "mem_coach", Name: "bench",
		Lookup: lookup, Hash: hash, CreatedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	// The pages are read as on a server up a while: no autovacuum of the
	// fresh rows in the middle of a run.
	if _, err := d.Pool.Exec(ctx, `VACUUM (ANALYZE) roster_members, roster_group_members`); err != nil {
		b.Fatal(err)
	}
	return t
}

// buckets names the limit's buckets of one run: at most 100 requests each,
// under the 120 a minute that auth.RequestPolicy allows, so that the check
// admits every request and its write is part of what is measured.
func buckets() func(i int) string {
	run := time.Now().UnixNano()
	return func(i int) string { return fmt.Sprintf("bench:%d:%d:", run, i/100) }
}

// gateRepo sends the gate's statement through the repository, as the
// service's Authenticate does, and fails unless the key is admitted.
func (t *benchTeam) gateRepo(ctx context.Context, bucket string) error {
	check, err := t.limiter.Check(auth.RequestPolicy)
	if err != nil {
		return err
	}
	a, err := t.repo.KeyAuth(ctx, t.gate, domain.KeyAuthQuery{Lookup: t.lookup, Hash: t.hash, Bucket: bucket,
		APIPlans: billingapi.APIPlans(), Limit: check})
	if err != nil {
		return err
	}
	if !auth.SameHash(t.hash, a.Hash) || a.Plan == nil || a.Limit == nil || !a.Limit.Allowed {
		return errors.New("the gate did not admit the key")
	}
	return nil
}

// gatePgx sends the same statement raw and reads its row into variables.
func (t *benchTeam) gatePgx(ctx context.Context, bucket string) error {
	check, err := t.limiter.Check(auth.RequestPolicy)
	if err != nil {
		return err
	}
	var (
		keyID, teamID, code, name, number, tz, memberID, role string
		hash                                                  []byte
		revokedAt, now                                        *time.Time
		disabled, locked, blocked, canBroadcast, gone         bool
		plan, paymentState                                    *string
		card, trial, admitted                                 *bool
		credits                                               *int32
		hits                                                  []pgtype.Timestamptz
	)
	args := append([]any{t.lookup, t.hash, bucket, billingapi.APIPlans(), false}, check.Args()...)
	err = t.d.Pool.QueryRow(ctx, t.gate, args...).Scan(&keyID, &hash, &revokedAt, &teamID, &code, &name, &number, &tz,
		&disabled, &locked, &memberID, &blocked, &role, &canBroadcast, &gone, &plan, &card, &paymentState, &trial, &credits,
		&admitted, &hits, &now)
	if err != nil {
		return err
	}
	if !auth.SameHash(t.hash, hash) || plan == nil || admitted == nil || now == nil || !check.Decision(*admitted, hits, *now).Allowed {
		return errors.New("the gate did not admit the key")
	}
	return nil
}

// BenchmarkKeyAuth is the API gate's one statement for a valid key: the
// key with its team, creator and account, its last use, and the 120/min
// limit's check (every request the public API serves sends it).
func BenchmarkKeyAuth(b *testing.B) {
	t := newBenchTeam(b, benchMembers)
	b.Run("repo", func(b *testing.B) {
		bucket := buckets()
		dbtest.Bench(b, func(ctx context.Context, i int) error { return t.gateRepo(ctx, bucket(i)) })
	})
	b.Run("pgx", func(b *testing.B) {
		bucket := buckets()
		dbtest.Bench(b, func(ctx context.Context, i int) error { return t.gatePgx(ctx, bucket(i)) })
	})
}

// BenchmarkTeam is a team's row as bun reads it (the admin team view's
// first statement).
func BenchmarkTeam(b *testing.B) {
	t := newBenchTeam(b, benchMembers)
	b.Run("repo", func(b *testing.B) {
		dbtest.Bench(b, func(ctx context.Context, _ int) error {
			got, err := t.repo.Team(ctx, t.id)
			if err == nil && got.ID != t.id {
				err = fmt.Errorf("team %s, want %s", got.ID, t.id)
			}
			return err
		})
	})
	b.Run("pgx", func(b *testing.B) {
		text := postgres.TeamText(t.d, t.id)
		dbtest.Bench(b, func(ctx context.Context, _ int) error {
			var (
				id, name, code, number, tz               string
				approval, joinApproval, disabled, locked bool
				created                                  time.Time
			)
			// bun's text carries its values: the simple protocol, as bun sends it.
			return t.d.Pool.QueryRow(ctx, text, pgx.QueryExecModeSimpleProtocol).Scan(&id, &name, &code, &number, &tz,
				&approval, &joinApproval, &disabled, &locked, &created)
		})
	})
}

// page is the i-th request's page of a pass over every page in order, and
// how many members it must hold.
func (t *benchTeam) page(i int) (domain.MemberFilter, int) {
	pages := (t.members + benchPage - 1) / benchPage
	offset := (i % pages) * benchPage
	return domain.MemberFilter{Limit: benchPage, Offset: offset}, min(benchPage, t.members-offset)
}

func (t *benchTeam) pageRepo(ctx context.Context, i int) error {
	f, want := t.page(i)
	ms, groups, _, err := t.repo.MemberPage(ctx, t.id, f)
	if err != nil {
		return err
	}
	if min(len(ms), benchPage) != want || len(groups) != len(ms) {
		return fmt.Errorf("page at %d: %d members, want %d", f.Offset, len(ms), want)
	}
	return nil
}

func (t *benchTeam) pagePgx(ctx context.Context, i int) error {
	f, want := t.page(i)
	query, args := postgres.MemberPageSQL(t.id, f)
	rows, err := t.d.Pool.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	var (
		id, team, name, phone, email, role, status, tz string
		blocked, login, canBroadcast                   bool
		created, updated                               time.Time
		deleted, consentAt, since                      *time.Time
		consentSource, consentEvidence                 *string
		groups                                         []string
		n                                              int
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &team, &name, &phone, &email, &role, &status, &blocked, &login, &canBroadcast, &tz,
		&created, &updated, &deleted, &consentSource, &consentAt, &consentEvidence, &groups, &since}, func() error { n++; return nil })
	if err != nil {
		return err
	}
	if min(n, benchPage) != want {
		return fmt.Errorf("page at %d: %d members, want %d", f.Offset, n, want)
	}
	return nil
}

// BenchmarkMemberPage is a 200-member page of GET /members on the
// 10,001-member team, every page in turn: one client, then 16 at once;
// and, as the request sends them, the gate's statement before the page's.
func BenchmarkMemberPage(b *testing.B) {
	t := newBenchTeam(b, benchMembers)
	type path struct {
		name string
		gate func(context.Context, string) error
		page func(context.Context, int) error
	}
	for _, p := range []path{{"repo", t.gateRepo, t.pageRepo}, {"pgx", t.gatePgx, t.pagePgx}} {
		withGate := func(bucket func(int) string) func(context.Context, int) error {
			return func(ctx context.Context, i int) error {
				if err := p.gate(ctx, bucket(i)); err != nil {
					return err
				}
				return p.page(ctx, i)
			}
		}
		b.Run(p.name, func(b *testing.B) { dbtest.Bench(b, p.page) })
		b.Run(fmt.Sprintf("%s-%d", p.name, benchClients), func(b *testing.B) { dbtest.BenchParallel(b, benchClients, p.page) })
		b.Run("gate+"+p.name, func(b *testing.B) { dbtest.Bench(b, withGate(buckets())) })
		b.Run(fmt.Sprintf("gate+%s-%d", p.name, benchClients), func(b *testing.B) {
			dbtest.BenchParallel(b, benchClients, withGate(buckets()))
		})
	}
}

// freshTeam adds an empty team with the 4 groups, outside the timer.
func (t *benchTeam) freshTeam(b *testing.B, name string) (string, []string) {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	id := fmt.Sprintf("team_%s_%d", name, time.Now().UnixNano())
	_, err := t.d.Pool.Exec(context.Background(), `INSERT INTO roster_teams (id, name, code, time_zone, created_at) VALUES ($1, $1, $1, 'UTC', now())`, id)
	if err != nil {
		b.Fatal(err)
	}
	groups := make([]string, 4)
	for g := range groups {
		groups[g] = fmt.Sprintf("grp_%s_%d", id[5:], g)
		if _, err := t.d.Pool.Exec(context.Background(), `INSERT INTO roster_groups (id, team_id, name, created_at) VALUES ($1, $2, $1, now())`, groups[g], id); err != nil {
			b.Fatal(err)
		}
	}
	return id, groups
}

// chunk is one transaction's worth of an import: new members (athletes,
// one of the team's groups each, consent given by the import) and their
// consent history, as the service's import writes them.
type chunk struct {
	phones  []string
	members []domain.Member
	groups  []domain.Membership
	history []domain.ConsentEvent
	lock    string // LockPhones' text for the raw path
}

func (t *benchTeam) chunks(team string, groups []string, n int) []chunk {
	now := time.Now().UTC()
	var out []chunk
	for from := 0; from < n; from += importChunk {
		var c chunk
		for j := from; j < min(from+importChunk, n); j++ {
			id := fmt.Sprintf("mem_%s_%d", team[5:], j)
			phone := fmt.Sprintf("+1415%03d%04d", 200+j/10000, j%10000)
			src, m := "import", domain.Member{ID: id, TeamID: team, Name: fmt.Sprintf("Import %d", j), Phone: phone, Role: rosterapi.Role("athlete"),
				Status: "active", CreatedAt: now, UpdatedAt: now}
			m.ConsentSource, m.ConsentAt = &src, &now
			c.phones, c.members = append(c.phones, phone), append(c.members, m)
			c.groups = append(c.groups, domain.Membership{GroupID: groups[j%len(groups)], MemberID: id})
			c.history = append(c.history, domain.ConsentEvent{ID: "cev_" + id[4:], TeamID: team, Phone: phone, MemberID: &m.ID,
				Kind: "consent_given", Channel: "import", Changed: true, Source: &src, At: now, RecordedAt: now})
		}
		c.lock = postgres.LockPhonesText(t.d, team, c.phones)
		out = append(out, c)
	}
	return out
}

// copyRows fills COPY rows in columns' order from one getter per column,
// so that the raw path follows the repository's column lists; a column
// without a getter is an error, not a silent gap.
func copyRows[T any](columns []string, getters map[string]func(*T) any, items []T) (pgx.CopyFromSource, error) {
	gs := make([]func(*T) any, len(columns))
	for i, c := range columns {
		if gs[i] = getters[c]; gs[i] == nil {
			return nil, fmt.Errorf("no value for COPY column %s", c)
		}
	}
	return pgx.CopyFromSlice(len(items), func(i int) ([]any, error) {
		row := make([]any, len(gs))
		for k, g := range gs {
			row[k] = g(&items[i])
		}
		return row, nil
	}), nil
}

// copyFrom is tx.CopyFrom with copyRows' rows.
func copyFrom[T any](ctx context.Context, tx pgx.Tx, table string, columns []string, getters map[string]func(*T) any, items []T) error {
	src, err := copyRows(columns, getters, items)
	if err != nil {
		return err
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, src); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	return nil
}

var memberValues = map[string]func(*domain.Member) any{
	"id": func(m *domain.Member) any { return m.ID }, "team_id": func(m *domain.Member) any { return m.TeamID },
	"name": func(m *domain.Member) any { return m.Name }, "phone": func(m *domain.Member) any { return m.Phone },
	"email": func(m *domain.Member) any { return m.Email }, "role": func(m *domain.Member) any { return string(m.Role) },
	"status": func(m *domain.Member) any { return m.Status }, "is_blocked": func(m *domain.Member) any { return m.IsBlocked },
	"dashboard_login": func(m *domain.Member) any { return m.DashboardLogin }, "can_send_broadcasts": func(m *domain.Member) any { return m.CanSendBroadcasts },
	"created_at": func(m *domain.Member) any { return m.CreatedAt }, "updated_at": func(m *domain.Member) any { return m.UpdatedAt },
	"consent_source": func(m *domain.Member) any { return m.ConsentSource }, "consent_at": func(m *domain.Member) any { return m.ConsentAt },
	"consent_evidence": func(m *domain.Member) any { return m.ConsentEvidence }, "time_zone": func(m *domain.Member) any { return m.TimeZone },
}

var consentValues = map[string]func(*domain.ConsentEvent) any{
	"id": func(e *domain.ConsentEvent) any { return e.ID }, "team_id": func(e *domain.ConsentEvent) any { return e.TeamID },
	"phone": func(e *domain.ConsentEvent) any { return e.Phone }, "member_id": func(e *domain.ConsentEvent) any { return e.MemberID },
	"kind": func(e *domain.ConsentEvent) any { return e.Kind }, "channel": func(e *domain.ConsentEvent) any { return e.Channel },
	"changed": func(e *domain.ConsentEvent) any { return e.Changed }, "source": func(e *domain.ConsentEvent) any { return e.Source },
	"evidence": func(e *domain.ConsentEvent) any { return e.Evidence }, "message_id": func(e *domain.ConsentEvent) any { return e.MessageID },
	"at": func(e *domain.ConsentEvent) any { return e.At }, "recorded_at": func(e *domain.ConsentEvent) any { return e.RecordedAt },
}

// BenchmarkCopyMembers is the import's floor: COPY of n members straight
// into roster_members of a fresh team (the table and its indexes, no
// groups, history or events).
func BenchmarkCopyMembers(b *testing.B) {
	t := newBenchTeam(b, benchMembers)
	for _, n := range []int{5000, 10000, 100000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.Run("repo", func(b *testing.B) {
				dbtest.Bench(b, func(ctx context.Context, _ int) error {
					team, groups := t.freshTeam(b, "copy")
					ms := t.newMembers(b, team, groups, n)
					return t.d.Tx(ctx, func(ctx context.Context) error { return t.repo.CopyMembers(ctx, team, ms, nil, nil) })
				})
				dbtest.PerSecond(b, n, "rows")
			})
			b.Run("pgx", func(b *testing.B) {
				dbtest.Bench(b, func(ctx context.Context, _ int) error {
					team, groups := t.freshTeam(b, "copy")
					ms := t.newMembers(b, team, groups, n)
					tx, err := t.d.Pool.Begin(ctx)
					if err != nil {
						return err
					}
					defer func() { _ = tx.Rollback(ctx) }()
					if err := copyFrom(ctx, tx, "roster_members", postgres.MemberCopyColumns, memberValues, ms); err != nil {
						return err
					}
					return tx.Commit(ctx)
				})
				dbtest.PerSecond(b, n, "rows")
			})
		})
	}
}

// newMembers is n new members of team, built outside the timer.
func (t *benchTeam) newMembers(b *testing.B, team string, groups []string, n int) []domain.Member {
	b.StopTimer()
	defer b.StartTimer()
	var ms []domain.Member
	for _, c := range t.chunks(team, groups, n) {
		ms = append(ms, c.members...)
	}
	return ms
}

// importRepo writes a chunk through the repository, as the service's
// import does (its rules and events aside).
func (t *benchTeam) importRepo(ctx context.Context, team string, groups []string, c *chunk) error {
	return t.d.Tx(ctx, func(ctx context.Context) error {
		if err := t.repo.LockPhones(ctx, team, c.phones); err != nil {
			return err
		}
		if _, err := t.repo.ImportState(ctx, team, c.phones, groups); err != nil {
			return err
		}
		if err := t.repo.CopyMembers(ctx, team, c.members, c.groups, nil); err != nil {
			return err
		}
		return t.repo.InsertConsentEvents(ctx, c.history)
	})
}

// importPgx sends the same statements raw.
func (t *benchTeam) importPgx(ctx context.Context, team string, groups []string, c *chunk) error {
	tx, err := t.d.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, c.lock); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if _, err := tx.Exec(ctx, postgres.ImportPlanSQL); err != nil {
		return err
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{{postgres.ImportOptOutsSQL, []any{team, c.phones}}, {postgres.ImportEntriesSQL, []any{team, c.phones}}, {postgres.ImportGroupsSQL, []any{team, groups}}} {
		rows, err := tx.Query(ctx, q.sql, q.args...)
		if err != nil {
			return err
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	if err := copyFrom(ctx, tx, "roster_members", postgres.MemberCopyColumns, memberValues, c.members); err != nil {
		return err
	}
	memberships := map[string]func(*domain.Membership) any{
		"group_id": func(m *domain.Membership) any { return m.GroupID }, "member_id": func(m *domain.Membership) any { return m.MemberID },
		"team_id": func(*domain.Membership) any { return team },
	}
	if err := copyFrom(ctx, tx, "roster_group_members", postgres.MembershipCopyColumns, memberships, c.groups); err != nil {
		return err
	}
	if err := copyFrom(ctx, tx, "roster_consent_events", postgres.ConsentEventColumns, consentValues, c.history); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// BenchmarkImport is the import's own statements for n members into a
// fresh team: chunks of 1,000 rows, two in flight, each one transaction
// with the chunk's number locks, its reads (plan setting, opt-outs, live
// entries, groups) and its COPYs (members, group memberships, consent
// history). The member.joined events the import publishes in the same
// transaction are webhooks' (BenchmarkInsertEvents there).
func BenchmarkImport(b *testing.B) {
	t := newBenchTeam(b, benchMembers)
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			for _, p := range []struct {
				name  string
				chunk func(context.Context, string, []string, *chunk) error
			}{{"repo", t.importRepo}, {"pgx", t.importPgx}} {
				b.Run(p.name, func(b *testing.B) {
					dbtest.Bench(b, func(ctx context.Context, _ int) error {
						team, groups := t.freshTeam(b, "import")
						b.StopTimer()
						cs := t.chunks(team, groups, n)
						b.StartTimer()
						g, gctx := errgroup.WithContext(ctx)
						g.SetLimit(2)
						for i := range cs {
							g.Go(func() error { return p.chunk(gctx, team, groups, &cs[i]) })
						}
						if err := g.Wait(); err != nil {
							return err
						}
						b.StopTimer()
						defer b.StartTimer()
						var got int
						err := t.d.Pool.QueryRow(ctx, `SELECT count(*) FROM roster_members WHERE team_id = $1`, team).Scan(&got)
						if err == nil && got != n {
							err = fmt.Errorf("%d members imported, want %d", got, n)
						}
						return err
					})
					dbtest.PerSecond(b, n, "rows")
				})
			}
		})
	}
}

// TestBenchPaths runs every path of the benchmarks above once on a small
// team and holds the raw ones to the repository's: the same page sizes,
// the same team, the same members imported. So the benchmarks keep
// measuring statements the service sends, and `go test` catches one that
// stopped working.
func TestBenchPaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bt := newBenchTeam(t, 450) // 451 on the roster: pages of 200, 200 and 51
	bucket := buckets()
	for i := range 3 {
		require.NoError(t, bt.gateRepo(ctx, bucket(i)), "gate through the repository")
		require.NoError(t, bt.gatePgx(ctx, bucket(i)), "gate raw")
		require.NoError(t, bt.pageRepo(ctx, i), "page %d through the repository", i)
		require.NoError(t, bt.pagePgx(ctx, i), "page %d raw", i)
	}
	f, want := bt.page(2)
	require.Equal(t, 400, f.Offset)
	require.Equal(t, 51, want)

	// A refused key is refused by both paths: the checks are live.
	bt.hash = auth.Hash("tt_live_not_the_key")
	require.Error(t, bt.gateRepo(ctx, bucket(3)))
	require.Error(t, bt.gatePgx(ctx, bucket(3)))

	team, err := bt.repo.Team(ctx, bt.id)
	require.NoError(t, err)
	var id string
	require.NoError(t, bt.d.Pool.QueryRow(ctx, postgres.TeamText(bt.d, bt.id), pgx.QueryExecModeSimpleProtocol).Scan(&id,
		new(string), new(string), new(string), new(string), new(bool), new(bool), new(bool), new(bool), new(time.Time)))
	require.Equal(t, bt.id, id, "bun's text selects the team's id first")
	require.Equal(t, "Bench", team.Name)

	for _, p := range []struct {
		name  string
		chunk func(context.Context, string, []string, *chunk) error
	}{{"repo", bt.importRepo}, {"pgx", bt.importPgx}} {
		id := "team_paths_" + p.name
		_, err := bt.d.Pool.Exec(ctx, `INSERT INTO roster_teams (id, name, code, time_zone, created_at) VALUES ($1, $1, $1, 'UTC', now())`, id)
		require.NoError(t, err)
		_, err = bt.d.Pool.Exec(ctx, `INSERT INTO roster_groups (id, team_id, name, created_at) VALUES ($1 || '_g', $1, 'G', now())`, id)
		require.NoError(t, err)
		cs := bt.chunks(id, []string{id + "_g"}, 1500)
		require.Len(t, cs, 2)
		for i := range cs {
			require.NoError(t, p.chunk(ctx, id, []string{id + "_g"}, &cs[i]), p.name)
		}
		var members, memberships, history int
		require.NoError(t, bt.d.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM roster_members WHERE team_id = $1),
  (SELECT count(*) FROM roster_group_members WHERE team_id = $1), (SELECT count(*) FROM roster_consent_events WHERE team_id = $1)`, id).
			Scan(&members, &memberships, &history))
		require.Equal(t, [3]int{1500, 1500, 1500}, [3]int{members, memberships, history}, p.name)
		ms, _, _, err := bt.repo.MemberPage(ctx, id, domain.MemberFilter{Limit: 1})
		require.NoError(t, err)
		require.NotNil(t, ms[0].ConsentSource, "%s: the consent record was written", p.name)
	}
}
