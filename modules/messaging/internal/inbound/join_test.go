package inbound_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
)

// joiner records the batches handed to joining and claims the texts whose
// body starts with "name:" or is a join keyword, answering each.
type joiner struct{ batches [][]rosterapi.JoinText }

func (j *joiner) Join(_ context.Context, texts []rosterapi.JoinText) ([]rosterapi.JoinAnswer, error) {
	j.batches = append(j.batches, texts)
	out := make([]rosterapi.JoinAnswer, len(texts))
	for i, t := range texts {
		if _, _, ok := rosterapi.MatchJoinKeyword(t.Body, t.Team.Code); ok {
			out[i] = rosterapi.JoinAnswer{Claimed: true, Reply: "Tigers: reply with your full name"}
		} else if t.Body == "Jo Doe" {
			out[i] = rosterapi.JoinAnswer{Claimed: true}
		}
	}
	return out, nil
}

// answered records the answers queued.
type answered struct{ got []string }

func (a *answered) QueueAnswer(_ context.Context, in *domain.Inbound, kind, body string) error {
	a.got = append(a.got, kind+" "+in.FromPhone+" "+body)
	return nil
}

// The joining step: a batch of plain texts from members never reaches the
// roster; keywords (from anyone) and texts from numbers not on the roster
// go in one call per batch, and each answer is queued for its text.
func TestJoinStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := newRoster(t, clock.NewFake(t0), []rosterapi.Team{{ID: "team_1", Name: "Tigers", Code: "tigers", Number: teamNumber}},
		rosterapi.Member{ID: "mem_a", TeamID: "team_1", Name: "Pat", Phone: parent, Role: rosterapi.RoleGuardian, Status: "active", CreatedAt: base})
	j, ans := &joiner{}, &answered{}
	svc := inbound.New(inbound.Deps{Tx: inline{}, Store: &memFiling{provided: map[string]bool{}}, Help: &helped{}, Clock: clock.NewFake(t0),
		Lookup: r, Billing: newBilling(t, "team_1"), Events: &announced{},
		Log: slog.New(slog.DiscardHandler), Keywords: r, Joining: j, Answers: ans})
	at := t0.Add(-time.Minute)

	require.NoError(t, svc.File(ctx, []inbound.Args{
		{From: parent, To: teamNumber, Body: "Running late", ProviderMessageID: "SM1", ReceivedAt: at},
		{From: parent, To: teamNumber, Body: "See you at 6", ProviderMessageID: "SM2", ReceivedAt: at},
	}))
	require.Empty(t, j.batches, "members' plain texts: no call, no statement")

	require.NoError(t, svc.File(ctx, []inbound.Args{
		{From: parent, To: teamNumber, Body: "Running late", ProviderMessageID: "SM3", ReceivedAt: at},
		{From: parent, To: teamNumber, Body: " join ", ProviderMessageID: "SM4", ReceivedAt: at},
		{From: stranger, To: teamNumber, Body: "TIGERS", ProviderMessageID: "SM5", ReceivedAt: at},
		{From: stranger, To: teamNumber, Body: "Jo Doe", ProviderMessageID: "SM6", ReceivedAt: at},
		{From: stranger, To: teamNumber, Body: "STOP", ProviderMessageID: "SM7", ReceivedAt: at},
	}))
	require.Len(t, j.batches, 1, "one call for the batch")
	var bodies []string
	for _, x := range j.batches[0] {
		bodies = append(bodies, x.Body)
		require.Equal(t, "tigers", x.Team.Code)
		require.NotEmpty(t, x.MessageID)
	}
	require.Equal(t, []string{" join ", "TIGERS", "Jo Doe"}, bodies, "a member's keyword, a stranger's texts; never STOP")
	require.Equal(t, "mem_a", j.batches[0][0].MemberID)
	require.Equal(t, []string{"join " + parent + " Tigers: reply with your full name", "join " + stranger + " Tigers: reply with your full name"}, ans.got)
}
