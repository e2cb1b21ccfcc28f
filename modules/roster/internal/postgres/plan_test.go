package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

// directory is the roster's directory on repo, as the module wires it.
func directory(repo *postgres.Repo) *service.Directory {
	return service.NewDirectory(service.DirectoryStores{Teams: repo, Members: repo, Groups: repo, Outcomes: repo})
}

// planDB is a database of its own with the roster's migrations and fixture (SQL)
// loaded: the rows and statistics a plan test's statement meets.
func planDB(t *testing.T, fixture string) *db.DB {
	t.Helper()
	d := server.Migrated(t, postgres.Migrations())
	_, err := d.Pool.Exec(context.Background(), fixture)
	require.NoError(t, err)
	return d
}

// TestGroupIDsPlanUsesIndex: on a 10,001-member team with two groups per
// member and fresh statistics, a page's group ids are read through the
// (member_id, group_id) index, never by scanning every membership.
func TestGroupIDsPlanUsesIndex(t *testing.T) {
	t.Parallel()
	d := planDB(t, `
INSERT INTO roster_teams (id, name, code, time_zone, created_at) VALUES ('team_plan', 'Plan', 'plan', 'UTC', now());
INSERT INTO roster_groups (id, team_id, name, created_at) SELECT 'grp_' || g, 'team_plan', 'G' || g, now() FROM generate_series(1, 20) g;
INSERT INTO roster_members (id, team_id, name, phone, role, status, created_at, updated_at)
  SELECT 'mem_' || lpad(i::text, 6, '0'), 'team_plan', 'M' || i, '+1202' || lpad(i::text, 7, '0'), 'athlete', 'active',
         now() + i * interval '1 millisecond', now()
  FROM generate_series(1, 10001) i;
INSERT INTO roster_group_members (group_id, member_id, team_id)
  SELECT 'grp_' || (1 + (i + k) % 20), 'mem_' || lpad(i::text, 6, '0'), 'team_plan' FROM generate_series(1, 10001) i, generate_series(0, 1) k;
ANALYZE roster_teams, roster_groups, roster_members, roster_group_members;`)

	var page []string
	for i := 5000; i < 5201; i++ { // a page of 200 and the one that says there is more
		page = append(page, fmt.Sprintf("mem_%06d", i))
	}
	text := dbtest.Explain(t, d.Pool, "EXPLAIN "+postgres.GroupIDsSQL, page)
	require.NotContains(t, text, "Seq Scan on roster_group_members", text)
	require.Contains(t, text, "roster_group_members_member_group", text)
}

// TestImportEntriesPlanUsesIndex: the import's entry lookup stays one index
// probe per phone under the worst conditions it meets: a table that grew
// since its statistics were taken (here: never analyzed) and a generic plan
// (pgx prepares it; Postgres switches to a generic plan after five runs).
func TestImportEntriesPlanUsesIndex(t *testing.T) {
	t.Parallel()
	d := planDB(t, `
INSERT INTO roster_teams (id, name, code, time_zone, created_at) VALUES ('team_imp', 'Imp', 'imp', 'UTC', now());
INSERT INTO roster_members (id, team_id, name, phone, email, role, status, created_at, updated_at)
  SELECT 'mem_' || lpad(i::text, 6, '0'), 'team_imp', 'M' || i, '+1202' || lpad(i::text, 7, '0'), 'm' || i || '@example.com', 'athlete', 'active',
         now() + i * interval '1 millisecond', now()
  FROM generate_series(1, 10000) i;`)
	var phones []string
	for i := 4000; i < 6000; i++ {
		phones = append(phones, fmt.Sprintf("'+1202%07d'", i))
	}
	text := dbtest.GenericPlan(t, d, `PREPARE import_entries(text, text[]) AS `+postgres.ImportEntriesSQL,
		`EXECUTE import_entries('team_imp', ARRAY[`+strings.Join(phones, ",")+`])`, "enable_seqscan = off")
	require.Contains(t, text, "roster_members_team_phone_key", text)
	require.NotContains(t, text, "Filter", text)
}

// TestAudienceFilters: an audience through pgx keeps its rules (active,
// unblocked, live, not opted out; roles and group when given; oldest
// first), and with a group its generic plan never scans every membership.
func TestAudienceFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := planDB(t, `
INSERT INTO roster_teams (id, name, code, time_zone, created_at) VALUES ('team_aud', 'Aud', 'aud', 'UTC', now()), ('team_big', 'Big', 'big', 'UTC', now());
INSERT INTO roster_groups (id, team_id, name, created_at) VALUES ('grp_a', 'team_aud', 'A', now());
INSERT INTO roster_groups (id, team_id, name, created_at) SELECT 'grp_big' || g, 'team_big', 'G' || g, now() FROM generate_series(1, 20) g;
INSERT INTO roster_members (id, team_id, name, phone, role, status, is_blocked, created_at, updated_at, deleted_at) VALUES
  ('mem_1', 'team_aud', 'One', '+12025550001', 'athlete', 'active', false, timestamptz '2026-01-01 00:00:05+00', now(), NULL),
  ('mem_2', 'team_aud', 'Two', '+12025550002', 'coach', 'active', false, timestamptz '2026-01-01 00:00:01+00', now(), NULL),
  ('mem_3', 'team_aud', 'Three', '+12025550003', 'guardian', 'active', false, timestamptz '2026-01-01 00:00:03+00', now(), NULL),
  ('mem_4', 'team_aud', 'Blocked', '+12025550004', 'athlete', 'active', true, timestamptz '2026-01-01 00:00:02+00', now(), NULL),
  ('mem_5', 'team_aud', 'Gone', '+12025550005', 'athlete', 'active', false, timestamptz '2026-01-01 00:00:02+00', now(), now()),
  ('mem_6', 'team_aud', 'Invited', '+12025550006', 'athlete', 'invited', false, timestamptz '2026-01-01 00:00:02+00', now(), NULL),
  ('mem_7', 'team_aud', 'Out', '+12025550007', 'athlete', 'active', false, timestamptz '2026-01-01 00:00:02+00', now(), NULL),
  ('mem_8', 'team_aud', 'Tie', '+12025550008', 'athlete', 'active', false, timestamptz '2026-01-01 00:00:03+00', now(), NULL);
INSERT INTO roster_opt_outs (team_id, phone, source, created_at) VALUES ('team_aud', '+12025550007', 'sms', now());
INSERT INTO roster_group_members (group_id, member_id, team_id) VALUES ('grp_a', 'mem_1', 'team_aud'), ('grp_a', 'mem_2', 'team_aud'), ('grp_a', 'mem_4', 'team_aud'), ('grp_a', 'mem_8', 'team_aud');
INSERT INTO roster_members (id, team_id, name, phone, role, status, created_at, updated_at)
  SELECT 'mem_b' || lpad(i::text, 6, '0'), 'team_big', 'M' || i, '+1202' || lpad(i::text, 7, '0'), 'athlete', 'active',
         now() + i * interval '1 millisecond', now()
  FROM generate_series(1, 10000) i;
INSERT INTO roster_group_members (group_id, member_id, team_id)
  SELECT 'grp_big' || (1 + (i + k) % 20), 'mem_b' || lpad(i::text, 6, '0'), 'team_big' FROM generate_series(1, 10000) i, generate_series(0, 1) k;
ANALYZE roster_teams, roster_groups, roster_members, roster_group_members, roster_opt_outs;`)

	repo := postgres.NewRepo(d)
	ids := func(roles []rosterapi.Role, group string) []string {
		rs, err := repo.Audience(ctx, "team_aud", roles, group)
		require.NoError(t, err)
		var out []string
		for _, r := range rs {
			out = append(out, r.MemberID+":"+string(r.Role)+":"+string(r.Phone)+":"+r.Name)
		}
		return out
	}
	require.Equal(t, []string{"mem_2:coach:+12025550002:Two", "mem_3:guardian:+12025550003:Three", "mem_8:athlete:+12025550008:Tie", "mem_1:athlete:+12025550001:One"}, ids(nil, ""))
	require.Equal(t, []string{"mem_3:guardian:+12025550003:Three"}, ids([]rosterapi.Role{"guardian"}, ""))
	require.Equal(t, []string{"mem_8:athlete:+12025550008:Tie", "mem_1:athlete:+12025550001:One"}, ids([]rosterapi.Role{"athlete"}, ""))
	require.Equal(t, []string{"mem_2:coach:+12025550002:Two", "mem_8:athlete:+12025550008:Tie", "mem_1:athlete:+12025550001:One"}, ids(nil, "grp_a"))
	require.Equal(t, []string{"mem_2:coach:+12025550002:Two"}, ids([]rosterapi.Role{"coach", "guardian"}, "grp_a"))
	require.Empty(t, ids([]rosterapi.Role{"staff"}, "grp_a"))

	text := dbtest.GenericPlan(t, d, `PREPARE audience_group(text, text[], text) AS `+postgres.AudienceSQL+
		` AND m.role = ANY($2::text[]) AND EXISTS (SELECT 1 FROM roster_group_members gm WHERE gm.member_id = m.id AND gm.group_id = $3) ORDER BY m.created_at, m.id`,
		`EXECUTE audience_group('team_big', '{athlete}', 'grp_big7')`)
	require.NotContains(t, text, "Seq Scan on roster_group_members", text)
}
