package inbound_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// sameLane returns a number other than from whose texts share from's lane.
func sameLane(t *testing.T, from string) string {
	t.Helper()
	for i := 0; i < 1000; i++ {
		n := fmt.Sprintf("+1202555%04d", 2000+i)
		if n != from && inbound.LaneOf(n) == inbound.LaneOf(from) {
			return n
		}
	}
	t.Fatal("no number in the lane")
	return ""
}

// TestFileNextKeywordsFirst: a lane's backlog is filed in batches of at
// most BatchSize, each number's texts in the order they came; a STOP sent
// behind the backlog is filed in the first batch, with the earlier texts of
// its number, and the rest follow.
func TestFileNextKeywordsFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	other := sameLane(t, parent)
	at := time.Now().UTC()
	stage := func(from, body string, i int) {
		require.NoError(t, inbound.Enqueue(ctx, b.repo, inbound.Args{From: from, To: teamNumber, Body: body,
			ProviderMessageID: fmt.Sprintf("SMlane_%s_%d", from, i), ReceivedAt: at.Add(time.Duration(i) * time.Millisecond)}))
	}
	backlog := inbound.BatchSize + 50
	for i := range backlog {
		stage(parent, fmt.Sprintf("p%d", i), i)
	}
	stage(other, "hello", backlog)
	stage(other, "STOP", backlog+1)
	stage(other, "after", backlog+2)
	stage(parent, "p-retry", 0) // a carrier retry while still staged: not staged twice
	require.NoError(t, inbound.Enqueue(ctx, b.repo, inbound.Args{From: parent, To: teamNumber, Body: "p0",
		ProviderMessageID: fmt.Sprintf("SMlane_%s_%d", parent, 0), ReceivedAt: at}))

	// The backlog metrics' source: how many are staged, since when.
	n, oldest, err := b.repo.PendingStats(ctx)
	require.NoError(t, err)
	require.EqualValues(t, backlog+3, n)
	require.NotNil(t, oldest)
	require.True(t, oldest.Equal(at.Truncate(time.Microsecond)), "%s", oldest)

	lane := inbound.LaneOf(parent)
	got, err := svc.FileNext(ctx, lane)
	require.NoError(t, err)
	require.Len(t, got, inbound.BatchSize)
	require.Equal(t, []string{"stop " + other}, calls(b.roster), "the STOP is filed in the first batch")
	bodies := func(from string) []string {
		var out []string
		for _, e := range b.events(t, "message.received") {
			if e.Data["from"] == from {
				out = append(out, e.Data["body"].(string))
			}
		}
		return out
	}
	require.Equal(t, []string{"hello", "STOP"}, bodies(other), "with the earlier texts of its number, not the later")
	want := make([]string, 0, backlog)
	for i := range backlog {
		want = append(want, fmt.Sprintf("p%d", i))
	}
	require.Equal(t, want[:inbound.BatchSize-2], bodies(parent), "the oldest of the lane, in order")

	for {
		got, err := svc.FileNext(ctx, lane)
		require.NoError(t, err)
		if len(got) == 0 {
			break
		}
	}
	require.Equal(t, want, bodies(parent), "all, once each, in order")
	require.Equal(t, []string{"hello", "STOP", "after"}, bodies(other))
	require.Equal(t, backlog+3, b.count(t, `SELECT count(*) FROM messaging_inbound`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM messaging_inbound_pending`))
	n, oldest, err = b.repo.PendingStats(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Nil(t, oldest)
}

// TestFileSkipsStoredAndUnknown: a batch holding a text filed before (a
// carrier retry staged after the first was taken) and a text to a number
// no team has files the others, each once.
func TestFileSkipsStoredAndUnknown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	first := text(parent, "one")
	require.NoError(t, svc.File(ctx, []inbound.Args{first}))
	lost := text(parent, "to nobody")
	lost.To = "+12025550188"
	second := text(stranger, "two")
	require.NoError(t, svc.File(ctx, []inbound.Args{first, lost, second, second}))
	evs := b.events(t, "message.received")
	require.Len(t, evs, 2)
	require.Equal(t, "one", evs[0].Data["body"])
	require.Equal(t, "two", evs[1].Data["body"])
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM messaging_inbound`))
}

// TestFileNextSetsAsideATextThatFails: a text that cannot be filed (here
// roster refuses its keyword) does not hold its lane: the batch is filed
// again text by text, the others are filed in order, and the failing text
// is set aside after domain.InboundMaxAttempts tries, kept staged with
// its error.
func TestFileNextSetsAsideATextThatFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	poison := sameLane(t, parent)
	b.roster.FailKeywords(func(k rosterapi.KeywordText) error {
		if string(k.Phone) == poison {
			return errors.New("roster refused the keyword")
		}
		return nil
	})
	at := time.Now().UTC()
	for i, tx := range []struct{ from, body string }{{parent, "one"}, {poison, "STOP"}, {parent, "two"}, {poison, "later"}, {parent, "three"}} {
		require.NoError(t, inbound.Enqueue(ctx, b.repo, inbound.Args{From: tx.from, To: teamNumber, Body: tx.body,
			ProviderMessageID: fmt.Sprintf("SMpoison_%d", i), ReceivedAt: at.Add(time.Duration(i) * time.Millisecond)}))
	}
	got, err := svc.FileNext(ctx, inbound.LaneOf(parent))
	require.NoError(t, err)
	require.Len(t, got, 4, "every text but the failing one")
	var bodies []string
	for _, e := range b.events(t, "message.received") {
		bodies = append(bodies, e.Data["from"].(string)+" "+e.Data["body"].(string))
	}
	require.Equal(t, []string{parent + " one", parent + " two", poison + " later", parent + " three"}, bodies)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM messaging_inbound_pending WHERE attempts = 5 AND last_error LIKE '%roster refused%'`))
	got, err = svc.FileNext(ctx, inbound.LaneOf(parent))
	require.NoError(t, err)
	require.Empty(t, got, "set aside: no longer taken")
	n, _, err := b.repo.PendingStats(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "still staged, for an operator")
}

// TestFileNextKeywordLaneFirst: a lane holding a keyword text is taken
// before the others, whichever lane the filer would look at first.
func TestFileNextKeywordLaneFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	var elsewhere string
	for i := 0; i < 1000 && elsewhere == ""; i++ {
		if n := fmt.Sprintf("+1202555%04d", 3000+i); inbound.LaneOf(n) != inbound.LaneOf(parent) {
			elsewhere = n
		}
	}
	at := time.Now().UTC()
	for i := range 10 {
		require.NoError(t, inbound.Enqueue(ctx, b.repo, inbound.Args{From: parent, To: teamNumber, Body: fmt.Sprint("p", i),
			ProviderMessageID: fmt.Sprintf("SMfirst_%d", i), ReceivedAt: at}))
	}
	require.NoError(t, inbound.Enqueue(ctx, b.repo, inbound.Args{From: elsewhere, To: teamNumber, Body: "STOP",
		ProviderMessageID: "SMfirst_stop", ReceivedAt: at}))
	got, err := svc.FileNext(ctx, inbound.LaneOf(parent))
	require.NoError(t, err)
	require.Len(t, got, 1, "the STOP's lane, alone")
	require.Equal(t, []string{"stop " + elsewhere}, calls(b.roster))
	got, err = svc.FileNext(ctx, inbound.LaneOf(parent))
	require.NoError(t, err)
	require.Len(t, got, 10)
}
