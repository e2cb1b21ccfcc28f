package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/db"
)

// TestTeamKeywordsStore: a team's keywords listed in keyword order with
// limit+1 rows, another team's id not found, the duplicate check, the
// unique index behind it, a change, the batch match (one statement, each
// keyword of its own team, repeats once) and a delete; the answers'
// replies stored in one statement.
func TestTeamKeywordsStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	r := postgres.NewRepo(d, nil)

	sched := domain.NewTeamKeyword("kwd_1", "team_1", domain.KeywordFields{Keyword: "SCHEDULE", Reply: "Games at 5", GroupID: "grp_1"}, at)
	fields := domain.NewTeamKeyword("kwd_2", "team_1", domain.KeywordFields{Keyword: "FIELDS", Reply: "Field 3"}, at)
	other := domain.NewTeamKeyword("kwd_3", "team_2", domain.KeywordFields{Keyword: "SCHEDULE", Reply: "Other team"}, at)
	for _, k := range []*domain.TeamKeyword{&sched, &fields, &other} {
		require.NoError(t, r.InsertTeamKeyword(ctx, k))
	}
	dup := domain.NewTeamKeyword("kwd_4", "team_1", domain.KeywordFields{Keyword: "SCHEDULE", Reply: "again"}, at)
	require.Error(t, r.InsertTeamKeyword(ctx, &dup), "the unique index backs the duplicate check")

	ks, err := r.TeamKeywords(ctx, "team_1", 1, 0)
	require.NoError(t, err)
	require.Len(t, ks, 2, "limit+1 rows")
	require.Equal(t, []string{"FIELDS", "SCHEDULE"}, []string{ks[0].Keyword, ks[1].Keyword})
	require.Equal(t, sched, ks[1], "every field round-trips")
	require.Equal(t, "", ks[0].GroupID, "no group is NULL, read back as none")
	n, err := r.CountTeamKeywords(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, 2, n)

	_, err = r.TeamKeyword(ctx, "team_1", "kwd_3")
	require.True(t, errors.Is(err, domain.ErrNotFound), "another team's id: %v", err)
	taken, err := r.KeywordTaken(ctx, "team_1", "SCHEDULE", "")
	require.NoError(t, err)
	require.True(t, taken)
	taken, err = r.KeywordTaken(ctx, "team_1", "SCHEDULE", "kwd_1")
	require.NoError(t, err)
	require.False(t, taken, "a keyword does not clash with itself")

	inTx(t, d, func(ctx context.Context) error {
		if err := r.LockTeamKeywords(ctx, "team_1"); err != nil {
			return err
		}
		_, err := r.UpdateTeamKeyword(ctx, "team_1", "kwd_2", func(k *domain.TeamKeyword) error {
			k.Keyword, k.GroupID, k.UpdatedAt = "FIELD", "grp_2", at.Add(1)
			return nil
		})
		return err
	})
	got, err := r.TeamKeyword(ctx, "team_1", "kwd_2")
	require.NoError(t, err)
	require.Equal(t, "FIELD", got.Keyword)
	require.Equal(t, "grp_2", got.GroupID)

	m, err := r.MatchTeamKeywords(ctx, []domain.TeamWord{{TeamID: "team_1", Word: "SCHEDULE"}, {TeamID: "team_1", Word: "SCHEDULE"},
		{TeamID: "team_2", Word: "SCHEDULE"}, {TeamID: "team_2", Word: "FIELD"}, {TeamID: "team_1", Word: "NOPE"}})
	require.NoError(t, err)
	byID := map[string]domain.TeamKeyword{}
	for _, k := range m {
		byID[k.ID] = k
	}
	require.Len(t, m, 2, "each pair once, only the team's own")
	require.Equal(t, "Games at 5", byID["kwd_1"].Reply)
	require.Equal(t, "grp_1", byID["kwd_1"].GroupID)
	require.Equal(t, "Other team", byID["kwd_3"].Reply)

	ok, err := r.DeleteTeamKeyword(ctx, "team_2", "kwd_1")
	require.NoError(t, err)
	require.False(t, ok, "another team's keyword is not deleted")
	ok, err = r.DeleteTeamKeyword(ctx, "team_1", "kwd_1")
	require.NoError(t, err)
	require.True(t, ok)
	_, err = r.TeamKeyword(ctx, "team_1", "kwd_1")
	require.True(t, errors.Is(err, domain.ErrNotFound))

	// Replies to a batch's keyword texts, in one statement.
	ins := []domain.Inbound{
		{ID: "inb_1", TeamID: "team_1", ProviderMessageID: "p1", FromPhone: "+12025550101", ToPhone: "+12025550100", Body: "schedule", ReceivedAt: at, CreatedAt: at},
		{ID: "inb_2", TeamID: "team_1", ProviderMessageID: "p2", FromPhone: "+12025550102", ToPhone: "+12025550100", Body: "Schedule!", ReceivedAt: at, CreatedAt: at},
	}
	_, err = r.InsertInbounds(ctx, ins)
	require.NoError(t, err)
	rps := []*domain.Reply{domain.NewKeywordReply("rpl_1", &ins[0], &sched, "Tigers", at), domain.NewKeywordReply("rpl_2", &ins[1], &sched, "Tigers", at)}
	dctx, counter := db.WithStatementCounter(ctx)
	require.NoError(t, r.InsertReplies(dctx, rps))
	require.EqualValues(t, 1, counter.Count())
	for _, rp := range rps {
		back, err := r.ReplyForSend(ctx, "team_1", rp.ID)
		require.NoError(t, err)
		require.Equal(t, domain.ReplyKeyword, back.Kind)
		require.Equal(t, "Tigers: Games at 5", back.Body)
		require.Equal(t, rp.InboundID, back.InboundID)
	}
}
