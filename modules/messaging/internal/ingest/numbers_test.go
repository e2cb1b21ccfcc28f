package ingest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
)

// recorded is a rosterapi.Deliverability that keeps what it was told.
type recorded struct {
	calls [][]rosterapi.NumberOutcome
	after int
}

func (r *recorded) NoteOutcomes(_ context.Context, os []rosterapi.NumberOutcome, markAfter int) ([]rosterapi.TeamPhone, error) {
	r.calls, r.after = append(r.calls, os), markAfter
	return nil, nil
}

func landline(code string) domain.NumberFault {
	if code == "30006" {
		return domain.FaultLandline
	}
	return domain.FaultNone
}

// TestNoteNumbersFoldsPerNumber: a batch's final words reach the roster in
// one call, one outcome per number folded in the order they were applied;
// words that say nothing about a number are left out, and a batch of only
// those makes no call.
func TestNoteNumbersFoldsPerNumber(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	roster := &recorded{}
	s := (&Service{clock: clock.NewFake(t0), log: slog.New(slog.DiscardHandler)}).
		TrackNumbers(Numbers{Roster: roster, Classify: landline, MarkAfter: 2})
	ctx := context.Background()

	require.NoError(t, s.noteNumbers(ctx, []finalWord{
		{teamID: "team_a", phone: "+1", status: domain.DeliveryFailed, code: "30001", at: t0}, // neutral
		{teamID: "team_a", phone: "+2", status: domain.DeliveryUnconfirmed, at: t0},           // neutral
		{teamID: "team_a", phone: "+3", status: domain.DeliveryFailed, code: domain.CodeOptedOut, at: t0},
	}))
	require.Empty(t, roster.calls, "nothing to say about any number")

	require.NoError(t, s.noteNumbers(ctx, []finalWord{
		{teamID: "team_a", phone: "+1", status: domain.DeliveryFailed, code: "30006", at: t0},
		{teamID: "team_b", phone: "+1", status: domain.DeliveryFailed, code: "30006", at: t0},
		{teamID: "team_a", phone: "+2", status: domain.DeliveryDelivered, at: t0},
		{teamID: "team_a", phone: "+1", status: domain.DeliveryDelivered, at: t0.Add(time.Second)},
		{teamID: "team_a", phone: "+1", status: domain.DeliveryFailed, code: "30006", at: t0.Add(2 * time.Second)},
		{teamID: "team_a", phone: "+3", status: domain.DeliveryFailed, code: "30007", at: t0}, // filtered: neutral
	}))
	require.Len(t, roster.calls, 1)
	require.Equal(t, 2, roster.after)
	require.Equal(t, []rosterapi.NumberOutcome{
		{TeamID: "team_a", Phone: "+1", Reset: true, Failures: 1, LastCode: "30006", At: t0.Add(2 * time.Second)},
		{TeamID: "team_b", Phone: "+1", Failures: 1, LastCode: "30006", At: t0},
		{TeamID: "team_a", Phone: "+2", Reset: true, At: t0},
	}, roster.calls[0])
}
