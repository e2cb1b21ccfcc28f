package inbound_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/clock"
)

// memKeywords is the keyword store's matching and replies, counting the
// statements the Postgres store would run.
type memKeywords struct {
	inbound.KeywordStore // the admin use cases' methods: not called here
	keywords             []domain.TeamKeyword
	replies              []*domain.Reply
	statements           int
}

func (m *memKeywords) MatchTeamKeywords(_ context.Context, words []domain.TeamWord) ([]domain.TeamKeyword, error) {
	m.statements++
	var out []domain.TeamKeyword
	for _, k := range m.keywords {
		for _, w := range words {
			if w.TeamID == k.TeamID && w.Word == k.Keyword {
				out = append(out, k)
				break
			}
		}
	}
	return out, nil
}

func (m *memKeywords) InsertReplies(_ context.Context, rps []*domain.Reply) error {
	m.statements++
	m.replies = append(m.replies, rps...)
	return nil
}

type manyJobs struct{ args []river.JobArgs }

func (j *manyJobs) InsertMany(_ context.Context, ps []river.InsertManyParams) error {
	for _, p := range ps {
		j.args = append(j.args, p.Args)
	}
	return nil
}

// rosterPorts are the opt-outs and group joins of the shared roster fake,
// counting the calls (each one statement) and keeping the joins asked for.
type rosterPorts struct {
	*rostertest.Roster
	joins []rosterapi.GroupJoin
	calls int
}

func (r *rosterPorts) OptedOutAmong(ctx context.Context, pairs []rosterapi.TeamPhone) ([]rosterapi.TeamPhone, error) {
	r.calls++
	return r.Roster.OptedOutAmong(ctx, pairs)
}

func (r *rosterPorts) JoinGroups(ctx context.Context, js []rosterapi.GroupJoin) (int, error) {
	r.calls++
	r.joins = append(r.joins, js...)
	return r.Roster.JoinGroups(ctx, js)
}

// TestTeamKeywordAnswer: only single words can match, so a batch of
// sentences costs no statement; matched texts are claimed and answered
// from the team's name, members join the group, a non-member gets the
// reply only, an opted-out number nothing; a word of another team is
// not matched.
func TestTeamKeywordAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	store := &memKeywords{keywords: []domain.TeamKeyword{
		{ID: "kwd_1", TeamID: "team_1", Keyword: "CARPOOL", Reply: "Rides: see the sheet", GroupID: "grp_1"},
		{ID: "kwd_2", TeamID: "team_2", Keyword: "SCHEDULE", Reply: "Theirs"},
	}}
	roster := rostertest.New(clock.NewFake(now))
	require.NoError(t, roster.AddTeam(ctx, rosterapi.Team{ID: "team_1", Name: "Tigers", Code: "tigers", Number: "+12025550100"}))
	require.NoError(t, roster.AddGroup(ctx, "team_1", "grp_1", "Carpool"))
	require.NoError(t, roster.OptOutBySMS(ctx, "team_1", "+12025550103"))
	jobs, ports := &manyJobs{}, &rosterPorts{Roster: roster}
	k := inbound.NewTeamKeywords(inbound.KeywordDeps{Tx: inline{}, Store: store, Jobs: jobs, Groups: ports, OptOuts: ports,
		Clock: clock.NewFake(now), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	teams := map[string]rosterapi.Team{"+12025550100": {ID: "team_1", Name: "Tigers"}}
	text := func(id, from, body, member string) *domain.Inbound {
		return &domain.Inbound{ID: id, TeamID: "team_1", FromPhone: from, ToPhone: "+12025550100", Body: body, Member: domain.InboundMember{ID: member}}
	}

	claimed, err := k.Answer(ctx, teams, []*domain.Inbound{text("inb_0", "+12025550101", "carpool please", "mem_1"), text("inb_00", "+12025550101", "", "")})
	require.NoError(t, err)
	require.Empty(t, claimed)
	require.Zero(t, store.statements+ports.calls, "no single word: no statement")

	claimed, err = k.Answer(ctx, teams, []*domain.Inbound{text("inb_9", "+12025550101", "thanks", "mem_1")})
	require.NoError(t, err)
	require.Empty(t, claimed)
	require.Equal(t, 1, store.statements, "one word, no keyword: one statement")
	require.Zero(t, ports.calls)

	store.statements = 0
	claimed, err = k.Answer(ctx, teams, []*domain.Inbound{
		text("inb_1", "+12025550101", " Carpool! ", "mem_1"), // a member
		text("inb_2", "+12025550102", "CARPOOL", ""),         // not on the roster
		text("inb_3", "+12025550103", "carpool", "mem_3"),    // opted out
		text("inb_4", "+12025550101", "schedule", "mem_1"),   // another team's keyword
		text("inb_5", "+12025550101", "Is carpool on?", "mem_1"),
	})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"inb_1": true, "inb_2": true, "inb_3": true}, claimed)
	require.Equal(t, 2, store.statements, "the match and the replies")
	require.Equal(t, 2, ports.calls, "the opt-outs and the joins")
	require.Len(t, store.replies, 2)
	for i, to := range []string{"+12025550101", "+12025550102"} {
		rp := store.replies[i]
		require.Equal(t, to, rp.ToPhone)
		require.Equal(t, "Tigers: Rides: see the sheet", rp.Body)
		require.Equal(t, domain.ReplyKeyword, rp.Kind)
		require.Equal(t, inbound.ReplyArgs{TeamID: "team_1", ReplyID: rp.ID}, jobs.args[i])
	}
	require.Equal(t, []rosterapi.GroupJoin{{TeamID: "team_1", GroupID: "grp_1", Phone: "+12025550101"}}, ports.joins, "the member only")
}

// The reserved join keywords of team keywords are roster's join keywords.
func TestTeamKeywordsReserveRostersJoinKeywords(t *testing.T) {
	t.Parallel()
	require.ElementsMatch(t, rosterapi.JoinKeywords(), domain.JoinKeywords())
	for _, w := range rosterapi.JoinKeywords() {
		_, err := domain.ValidKeywordWord(strings.ToLower(w), "TIGERS")
		require.Error(t, err, w)
	}
}
