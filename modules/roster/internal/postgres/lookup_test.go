package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

// TestLookupsForInboundBatches: the teams of many numbers and the entries
// of many (team, number) pairs, each in one statement — per team (the same
// number on two teams stays apart), oldest first, removed entries left
// out, unknown numbers and pairs absent.
func TestLookupsForInboundBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := server.Migrated(t, postgres.Migrations())
	dir := directory(postgres.NewRepo(d))
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	_, err := d.Pool.Exec(ctx, `INSERT INTO roster_teams (id, name, code, number, time_zone, created_at) VALUES
  ('team_a', 'A', 'a', '+12025550100', 'UTC', $1), ('team_b', 'B', 'b', '+12025550200', 'UTC', $1)`, at)
	require.NoError(t, err)
	const p, q = "+12025550901", "+12025550902"
	_, err = d.Pool.Exec(ctx, `INSERT INTO roster_members (id, team_id, name, phone, role, status, created_at, updated_at, deleted_at) VALUES
  ('mem_a2', 'team_a', 'Second', $2, 'guardian', 'active', $1::timestamptz + interval '1 hour', $1, NULL),
  ('mem_a1', 'team_a', 'First', $2, 'guardian', 'opted_out', $1, $1, NULL),
  ('mem_ax', 'team_a', 'Removed', $2, 'guardian', 'active', $1::timestamptz - interval '1 hour', $1, $1),
  ('mem_b1', 'team_b', 'Other team', $2, 'athlete', 'active', $1, $1, NULL),
  ('mem_aq', 'team_a', 'Q', $3, 'athlete', 'active', $1, $1, NULL)`, at, p, q)
	require.NoError(t, err)

	teams, err := dir.TeamsByNumbers(ctx, []string{"+12025550100", "+12025550200", "+12025550300"})
	require.NoError(t, err)
	require.Len(t, teams, 2)
	require.Equal(t, "team_a", teams["+12025550100"].ID)
	require.Equal(t, "team_b", teams["+12025550200"].ID)

	ms, err := dir.MembersByTeamPhones(ctx, []rosterapi.TeamPhone{{TeamID: "team_a", Phone: p}, {TeamID: "team_a", Phone: p},
		{TeamID: "team_b", Phone: p}, {TeamID: "team_b", Phone: q}, {TeamID: "team_c", Phone: p}})
	require.NoError(t, err)
	ids := func(k rosterapi.TeamPhone) []string {
		var out []string
		for _, m := range ms[k] {
			out = append(out, m.ID)
		}
		return out
	}
	require.Equal(t, []string{"mem_a1", "mem_a2"}, ids(rosterapi.TeamPhone{TeamID: "team_a", Phone: p}), "oldest first, removed left out, once")
	require.Equal(t, []string{"mem_b1"}, ids(rosterapi.TeamPhone{TeamID: "team_b", Phone: p}))
	require.Len(t, ms, 2, "team_b has no q; team_c is no team")

	// One probe of the (team, phone) expression index per pair once the
	// team is large, under a generic plan over statistics taken while it
	// was small: never a scan of the team or the table.
	_, err = d.Pool.Exec(ctx, `ANALYZE roster_members`)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `INSERT INTO roster_members (id, team_id, name, phone, email, role, status, created_at, updated_at)
  SELECT 'mem_f' || i, 'team_a', 'M' || i, '+1303' || lpad(i::text, 7, '0'), 'm' || i || '@example.com', 'athlete', 'active', $1, $1
  FROM generate_series(1, 10000) i`, at)
	require.NoError(t, err)
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SET LOCAL plan_cache_mode = force_generic_plan`)
	require.NoError(t, err)
	text := dbtest.Explain(t, tx, `EXPLAIN `+postgres.MembersByTeamPhonesSQL, []string{"team_a", "team_b"}, []string{p, q})
	require.Contains(t, text, "roster_members_team_phone_key", text)
	require.NotContains(t, text, "Seq Scan on roster_members", text)
}
