package inbound_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
)

// The inbox's use cases over an in-memory store: which texts are inbox
// items, the filters, and the read state.

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// inboxOf returns an inbox over team_1's texts a (unread), b (read), c
// (replied), a held text, a STOP, and a text to team_2.
func inboxOf(t *testing.T) (*inbound.Inbox, *memInbox, *clock.Fake) {
	t.Helper()
	read, replied := t0.Add(-90*time.Minute), t0.Add(-30*time.Minute)
	store := &memInbox{texts: []domain.Inbound{
		{ID: "inb_a", TeamID: "team_1", Body: "a", ReceivedAt: t0.Add(-3 * time.Hour)},
		{ID: "inb_b", TeamID: "team_1", Body: "b", ReceivedAt: t0.Add(-2 * time.Hour), ReadAt: &read},
		{ID: "inb_c", TeamID: "team_1", Body: "c", ReceivedAt: t0.Add(-1 * time.Hour), ReadAt: &replied, RepliedAt: &replied},
		{ID: "inb_held", TeamID: "team_1", Body: "held", ReceivedAt: t0.Add(-50 * time.Minute), Held: true},
		{ID: "inb_stop", TeamID: "team_1", Body: "STOP", Keyword: domain.KeywordStop, ReceivedAt: t0.Add(-40 * time.Minute)},
		{ID: "inb_other", TeamID: "team_2", Body: "other", ReceivedAt: t0},
	}}
	clk := clock.NewFake(t0)
	return inbound.NewInbox(inbound.InboxDeps{Store: store, Clock: clk}), store, clk
}

func bodiesOf(ins []domain.Inbound) []string {
	out := make([]string, len(ins))
	for i := range ins {
		out[i] = ins[i].Body
	}
	return out
}

func TestInboxListsAndFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	box, _, _ := inboxOf(t)
	for filter, want := range map[string][]string{
		"":        {"c", "b", "a"},
		"all":     {"c", "b", "a"},
		"unread":  {"a"},
		"replied": {"c"},
	} {
		got, err := box.List(ctx, "team_1", filter, 10, 0)
		require.NoError(t, err, filter)
		require.Equal(t, want, bodiesOf(got), "filter %q: newest first; held and keyword texts are not inbox items", filter)
	}
	_, err := box.List(ctx, "team_1", "read", 10, 0)
	f, ok := fault.As(err)
	require.True(t, ok)
	require.Equal(t, fault.CodeInvalidRequest, f.Code)

	all, err := box.InboundMessages(ctx, "team_1", 10, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"STOP", "c", "b", "a"}, bodiesOf(all), "every visible text, keywords included")

	n, err := box.UnreadCount(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

func TestInboxMarkRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	box, _, clk := inboxOf(t)

	in, err := box.MarkRead(ctx, "team_1", "inb_a")
	require.NoError(t, err)
	require.Equal(t, t0, *in.ReadAt, "read now, by the clock")
	clk.Advance(time.Hour)
	in, err = box.MarkRead(ctx, "team_1", "inb_a")
	require.NoError(t, err)
	require.Equal(t, t0, *in.ReadAt, "marking again keeps the first read_at")
	unread, err := box.List(ctx, "team_1", "unread", 10, 0)
	require.NoError(t, err)
	require.Empty(t, unread)

	for _, id := range []string{"inb_held", "inb_stop", "inb_other", "inb_nope"} {
		_, err := box.MarkRead(ctx, "team_1", id)
		require.ErrorIs(t, err, fault.NotFoundf("x"), "%s is not one of team_1's inbox items", id)
	}
}

func TestInboxMarkAllRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	box, store, clk := inboxOf(t)
	store.texts = append(store.texts, domain.Inbound{ID: "inb_d", TeamID: "team_1", Body: "d", ReceivedAt: t0})
	clk.Advance(time.Minute)

	n, err := box.MarkAllRead(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, 2, n, "a and d; not the held text, the STOP or team_2's")
	all, err := box.List(ctx, "team_1", "all", 10, 0)
	require.NoError(t, err)
	for _, in := range all {
		require.NotNil(t, in.ReadAt, in.Body)
	}
	require.Equal(t, t0.Add(time.Minute), *all[0].ReadAt, "d, read now")
	require.Equal(t, t0.Add(-90*time.Minute), *all[2].ReadAt, "b keeps its read_at")
	other, err := box.UnreadCount(ctx, "team_2")
	require.NoError(t, err)
	require.Equal(t, 1, other, "another team's inbox is untouched")

	n, err = box.MarkAllRead(ctx, "team_1")
	require.NoError(t, err)
	require.Zero(t, n)
}
