package postgres_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// TestJoinConversations: one open conversation per team and number, a
// keyword text opens at most one, the batch lookup finds the open ones of
// the pairs asked for, STOP ends one, and a team's join_approval_required
// defaults to true and round-trips. The migration replays over itself.
func TestJoinConversations(t *testing.T) {
	t.Parallel()
	d := server.Migrated(t, postgres.Migrations())
	repo := postgres.NewRepo(d)
	ctx := context.Background()
	sql, err := os.ReadFile("migrations/20261207100001_joining.tx.up.sql")
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, string(sql))
	require.NoError(t, err, "replays")

	now := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	team := &domain.Team{ID: "team_j", Name: "Jays", Code: "jays", TimeZone: "America/New_York", CreatedAt: now}
	require.NoError(t, repo.InsertTeam(ctx, team))
	var def bool
	require.NoError(t, d.Pool.QueryRow(ctx, `INSERT INTO roster_teams (id, name, code, time_zone, created_at) VALUES ('team_k', 'K', 'kays', 'UTC', now())
RETURNING join_approval_required`).Scan(&def))
	require.True(t, def, "the column's default")
	team.JoinApprovalRequired = true
	require.NoError(t, repo.UpdateTeam(ctx, team))
	got, err := repo.Team(ctx, "team_j")
	require.NoError(t, err)
	require.True(t, got.JoinApprovalRequired)
	byCode, err := repo.TeamByCode(ctx, "jays")
	require.NoError(t, err)
	require.Equal(t, "team_j", byCode.ID)

	const a, b = "+12025550101", "+12025550102"
	c := domain.NewConversation("jcv_1", "team_j", a, "JOIN", "inb_1", rosterapi.RoleAthlete, now)
	fresh, err := repo.InsertConversation(ctx, c)
	require.NoError(t, err)
	require.True(t, fresh)
	again := *c
	again.ID = "jcv_2"
	fresh, err = repo.InsertConversation(ctx, &again)
	require.NoError(t, err)
	require.False(t, fresh, "the same keyword text opens one conversation")
	other := domain.NewConversation("jcv_3", "team_j", a, "PARENT", "inb_3", rosterapi.RoleGuardian, now)
	_, err = repo.InsertConversation(ctx, other)
	require.Error(t, err, "one open conversation per team and number")
	require.NoError(t, err2(repo.InsertConversation(ctx, domain.NewConversation("jcv_4", "team_j", b, "JOIN", "inb_4", rosterapi.RoleAthlete, now))))

	var open []domain.Conversation
	require.NoError(t, d.Tx(ctx, func(ctx context.Context) error {
		var err error
		open, err = repo.OpenConversations(ctx, []string{"team_j", "team_k"}, []string{a, a})
		return err
	}))
	require.Len(t, open, 1, "only the pairs asked for")
	require.Equal(t, "jcv_1", open[0].ID)
	require.Equal(t, now.Add(domain.JoinTTL), open[0].ExpiresAt.UTC())

	require.NoError(t, open[0].Joined("inb_5", "mem_1", now.Add(time.Minute)))
	require.NoError(t, repo.UpdateConversation(ctx, &open[0]))
	require.NoError(t, repo.StopConversation(ctx, "team_j", b, now.Add(time.Minute)))
	open, err = repo.OpenConversations(ctx, []string{"team_j", "team_j"}, []string{a, b})
	require.NoError(t, err)
	require.Empty(t, open, "joined and stopped")
	var states []string
	rows, err := d.Pool.Query(ctx, `SELECT state || ' ' || coalesce(member_id, '-') || ' ' || coalesce(name_message_id, '-') FROM roster_join_conversations ORDER BY id`)
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		states = append(states, s)
	}
	require.Equal(t, []string{"joined mem_1 inb_5", "stopped - -"}, states)
	// After it closed, the number may open a new one.
	require.NoError(t, err2(repo.InsertConversation(ctx, other)))
}

func err2(_ bool, err error) error { return err }
