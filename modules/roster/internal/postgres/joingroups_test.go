package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// TestJoinGroups: a phone's live entries on the team join the group (a
// parent on the roster twice joins twice), once whatever the repeats;
// another team's group, an unknown group and a deleted entry add nothing.
func TestJoinGroups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, r := membershipEnv(t)
	_, err := d.Pool.Exec(ctx, `INSERT INTO roster_members (id, team_id, name, phone, role, status, created_at, updated_at, deleted_at) VALUES
  ('mem_1b', 'team_a', 'One too', '+12025550101', 'guardian', 'active', now(), now(), NULL),
  ('mem_1x', 'team_a', 'Gone', '+12025550101', 'guardian', 'active', now(), now(), now())`)
	require.NoError(t, err)

	n, err := r.JoinGroups(ctx, []rosterapi.GroupJoin{
		{TeamID: "team_a", GroupID: "grp_1", Phone: "+12025550101"},
		{TeamID: "team_a", GroupID: "grp_1", Phone: "+12025550101"}, // the same text twice in a batch
		{TeamID: "team_a", GroupID: "grp_b", Phone: "+12025550102"}, // another team's group
		{TeamID: "team_a", GroupID: "grp_none", Phone: "+12025550102"},
		{TeamID: "team_b", GroupID: "grp_b", Phone: "+12025550101"}, // no entry with the phone on team_b
	})
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, 1, memberships(t, d, "group_id = 'grp_1' AND member_id = 'mem_1'"))
	require.Equal(t, 1, memberships(t, d, "group_id = 'grp_1' AND member_id = 'mem_1b'"))
	require.Equal(t, 2, memberships(t, d, "true"), "the deleted entry and the other teams' stay out")

	n, err = r.JoinGroups(ctx, []rosterapi.GroupJoin{{TeamID: "team_a", GroupID: "grp_1", Phone: "+12025550101"}})
	require.NoError(t, err)
	require.Zero(t, n, "already members")
}
