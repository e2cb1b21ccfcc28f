package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/db"
)

// membershipEnv is a database with team_a (groups grp_1, grp_2; members
// mem_1, mem_2) and team_b (group grp_b, member mem_b).
func membershipEnv(t *testing.T) (*db.DB, *postgres.Repo) {
	t.Helper()
	ctx := context.Background()
	d := server.Migrated(t, postgres.Migrations())
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	_, err := d.Pool.Exec(ctx, `INSERT INTO roster_teams (id, name, code, time_zone, created_at) VALUES
  ('team_a', 'A', 'a', 'UTC', $1), ('team_b', 'B', 'b', 'UTC', $1)`, at)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `INSERT INTO roster_groups (id, team_id, name, created_at) VALUES
  ('grp_1', 'team_a', 'One', $1), ('grp_2', 'team_a', 'Two', $1), ('grp_b', 'team_b', 'B', $1)`, at)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `INSERT INTO roster_members (id, team_id, name, phone, role, status, created_at, updated_at) VALUES
  ('mem_1', 'team_a', 'One', '+12025550101', 'athlete', 'active', $1, $1),
  ('mem_2', 'team_a', 'Two', '+12025550102', 'athlete', 'active', $1, $1),
  ('mem_b', 'team_b', 'B', '+12025550103', 'athlete', 'active', $1, $1)`, at)
	require.NoError(t, err)
	return d, postgres.NewRepo(d)
}

func memberships(t *testing.T, d *db.DB, where string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM roster_group_members WHERE `+where, args...).Scan(&n))
	return n
}

// waitForLockWaiter waits until one backend of this test's database waits
// on a lock.
func waitForLockWaiter(t *testing.T, d *db.DB) {
	t.Helper()
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, d.Pool.QueryRow(context.Background(),
			`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n))
		return n == 1
	}, 10*time.Second, 5*time.Millisecond)
}

// TestMembershipsFollowTheirGroupAndMember: deleting a group or a member,
// by any statement, deletes its memberships and no other (the table's
// triggers; there is no foreign key to cascade).
func TestMembershipsFollowTheirGroupAndMember(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, r := membershipEnv(t)
	for _, m := range [][2]string{{"grp_1", "mem_1"}, {"grp_1", "mem_2"}, {"grp_2", "mem_1"}, {"grp_2", "mem_2"}} {
		require.NoError(t, r.AddToGroup(ctx, "team_a", m[0], m[1]))
	}
	require.NoError(t, r.AddToGroup(ctx, "team_b", "grp_b", "mem_b"))
	require.Equal(t, 5, memberships(t, d, "true"))

	_, err := d.Pool.Exec(ctx, `DELETE FROM roster_groups WHERE id = 'grp_1'`)
	require.NoError(t, err)
	require.Zero(t, memberships(t, d, "group_id = 'grp_1'"))
	require.Equal(t, 3, memberships(t, d, "true"), "grp_2's and grp_b's stay")

	_, err = d.Pool.Exec(ctx, `DELETE FROM roster_members WHERE id = 'mem_2'`)
	require.NoError(t, err)
	require.Zero(t, memberships(t, d, "member_id = 'mem_2'"))
	require.Equal(t, 2, memberships(t, d, "true"), "mem_1's and mem_b's stay")

	// Several rows in one statement.
	_, err = d.Pool.Exec(ctx, `DELETE FROM roster_members WHERE id IN ('mem_1', 'mem_b')`)
	require.NoError(t, err)
	require.Zero(t, memberships(t, d, "true"))
}

// TestAddToGroupNeedsBoth: a membership is written only for a group and a
// member of the team that exist; again, it stays one row.
func TestAddToGroupNeedsBoth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, r := membershipEnv(t)
	for _, c := range []struct{ team, group, member string }{
		{"team_a", "grp_none", "mem_1"}, // no such group
		{"team_a", "grp_1", "mem_none"}, // no such member
		{"team_a", "grp_b", "mem_1"},    // the group of another team
		{"team_a", "grp_1", "mem_b"},    // the member of another team
		{"team_b", "grp_1", "mem_1"},    // both of another team
	} {
		require.NoError(t, r.AddToGroup(ctx, c.team, c.group, c.member))
		require.Zero(t, memberships(t, d, "true"), "%+v", c)
	}
	require.NoError(t, r.AddToGroup(ctx, "team_a", "grp_1", "mem_1"))
	require.NoError(t, r.AddToGroup(ctx, "team_a", "grp_1", "mem_1"))
	require.Equal(t, 1, memberships(t, d, "group_id = 'grp_1' AND member_id = 'mem_1' AND team_id = 'team_a'"))
	require.Equal(t, 1, memberships(t, d, "true"))
}

// TestGroupDeletedWhileAWriterHoldsIt: a group deleted while a transaction
// that wrote a membership of it is open waits for that transaction, then
// takes the membership with it — through AddToGroup and through an import
// chunk — and a membership written after the group is gone is none. No
// membership outlives its group.
func TestGroupDeletedWhileAWriterHoldsIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	writers := map[string]func(ctx context.Context, r *postgres.Repo) error{
		"add to group": func(ctx context.Context, r *postgres.Repo) error {
			return r.AddToGroup(ctx, "team_a", "grp_1", "mem_1")
		},
		"import chunk": func(ctx context.Context, r *postgres.Repo) error {
			st, err := r.ImportState(ctx, "team_a", []string{"+12025550199"}, []string{"grp_1"})
			if err != nil {
				return err
			}
			if !st.Groups["grp_1"] {
				return nil // the group was gone: the row fails invalid_group
			}
			m := domain.Member{ID: "mem_new", TeamID: "team_a", Name: "New", Phone: "+12025550199", Role: rosterapi.RoleAthlete,
				Status: domain.StatusActive, CreatedAt: at, UpdatedAt: at}
			return r.CopyMembers(ctx, "team_a", []domain.Member{m}, []domain.Membership{{GroupID: "grp_1", MemberID: "mem_new"}}, nil)
		},
	}
	for name, write := range writers {
		t.Run(name+", then the delete", func(t *testing.T) {
			t.Parallel()
			d, r := membershipEnv(t)
			wrote, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
			var once sync.Once
			releaseWriter := func() { once.Do(func() { close(release) }) }
			defer releaseWriter() // a failed assertion below still ends the writer's transaction
			go func() {
				done <- d.Tx(ctx, func(ctx context.Context) error {
					if err := write(ctx, r); err != nil {
						return err
					}
					close(wrote)
					<-release
					return nil
				})
			}()
			<-wrote
			deleted := make(chan error, 1)
			go func() {
				_, err := d.Pool.Exec(ctx, `DELETE FROM roster_groups WHERE id = 'grp_1'`)
				deleted <- err
			}()
			waitForLockWaiter(t, d) // the delete waits on the writer's lock of the group
			select {
			case err := <-deleted:
				t.Fatalf("the delete did not wait for the writer: %v", err)
			default:
			}
			releaseWriter()
			require.NoError(t, <-done)
			require.NoError(t, <-deleted)
			require.Zero(t, memberships(t, d, "true"), "the membership went with its group")
		})
		t.Run("the delete, then "+name, func(t *testing.T) {
			t.Parallel()
			d, r := membershipEnv(t)
			tx, err := d.Pool.Begin(ctx)
			require.NoError(t, err)
			defer func() { _ = tx.Rollback(ctx) }()
			_, err = tx.Exec(ctx, `DELETE FROM roster_groups WHERE id = 'grp_1'`)
			require.NoError(t, err)
			done := make(chan error, 1)
			go func() { done <- d.Tx(ctx, func(ctx context.Context) error { return write(ctx, r) }) }()
			waitForLockWaiter(t, d) // the writer waits on the delete's lock of the group
			require.NoError(t, tx.Commit(ctx))
			require.NoError(t, <-done)
			require.Zero(t, memberships(t, d, "true"), "nothing written for a group that is gone")
		})
	}
}
