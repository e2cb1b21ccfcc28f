package inbound_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/events"
)

// Filing's decisions over an in-memory store: which texts are stored,
// who they are from, which are held, acted on and announced, in order.

// memFiling is an inbound.FilingStore keeping what a batch writes.
type memFiling struct {
	mu       sync.Mutex
	stored   []domain.Inbound
	counted  []string // ids counted in analytics
	groups   map[rosterapi.TeamPhone]string
	locked   [][]string // each LockHolds call's teams
	provided map[string]bool
}

var _ inbound.FilingStore = (*memFiling)(nil)

func (m *memFiling) StageInbound(context.Context, domain.PendingInbound) error { return nil }
func (m *memFiling) LockInboundLane(context.Context, int, int) (int, error)    { return -1, nil }
func (m *memFiling) TakeInbound(context.Context, int, int) ([]domain.PendingInbound, error) {
	return nil, nil
}
func (m *memFiling) NoteInboundFailure(context.Context, int64, string) error { return nil }

func (m *memFiling) LockHolds(_ context.Context, teamIDs []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.locked = append(m.locked, teamIDs)
	return nil
}

func (m *memFiling) LatestGroupsTo(_ context.Context, pairs []rosterapi.TeamPhone) (map[rosterapi.TeamPhone]string, error) {
	out := map[rosterapi.TeamPhone]string{}
	for _, p := range pairs {
		if g, ok := m.groups[p]; ok {
			out[p] = g
		}
	}
	return out, nil
}

func (m *memFiling) InsertInbounds(_ context.Context, ins []domain.Inbound) (map[string]bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	stored := map[string]bool{}
	for _, in := range ins {
		if m.provided[in.ProviderMessageID] {
			continue
		}
		m.provided[in.ProviderMessageID] = true
		m.stored = append(m.stored, in)
		stored[in.ID] = true
	}
	return stored, nil
}

func (m *memFiling) CountReceivedMany(_ context.Context, ins []domain.Inbound) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, in := range ins {
		m.counted = append(m.counted, in.ID)
	}
	return nil
}

// No polls in memory: no text answers one.
func (m *memFiling) OpenPolls(_ context.Context, teams, _ []string, _ []time.Time) ([]*domain.OpenPoll, error) {
	return make([]*domain.OpenPoll, len(teams)), nil
}
func (m *memFiling) RecordResponses(context.Context, []domain.Response) ([]int, error) {
	return nil, nil
}
func (m *memFiling) SetResponseTo(context.Context, []string, []string) error { return nil }

// announced records published events in order.
type announced struct {
	mu  sync.Mutex
	evs []events.Event
}

func (a *announced) Publish(_ context.Context, ev events.Event) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.evs = append(a.evs, ev)
	return nil
}

// helped records the HELP texts answered.
type helped struct{ texts []string }

func (h *helped) QueueHelp(_ context.Context, team rosterapi.Team, in *domain.Inbound) error {
	h.texts = append(h.texts, team.ID+" "+in.ID)
	return nil
}

// cleared records the numbers whose undeliverable mark is cleared.
type cleared struct{ outcomes []rosterapi.NumberOutcome }

func (c *cleared) NoteOutcomes(_ context.Context, outs []rosterapi.NumberOutcome, _ int) ([]rosterapi.TeamPhone, error) {
	c.outcomes = append(c.outcomes, outs...)
	return nil, nil
}

func TestFileBatchDecisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := newRoster(t, clock.NewFake(t0), []rosterapi.Team{
		{ID: "team_1", Name: "Tigers", Code: "tigers", Number: teamNumber},
		{ID: "team_2", Name: "Lions", Code: "lions", Number: "+12025550200"},
	},
		rosterapi.Member{ID: "mem_old", TeamID: "team_1", Name: "Old", Phone: parent, Role: rosterapi.RoleGuardian, Status: "opted_out", CreatedAt: base},
		rosterapi.Member{ID: "mem_a", TeamID: "team_1", Name: "Pat", Phone: parent, Role: rosterapi.RoleGuardian, Status: "active", CreatedAt: base.Add(time.Hour)},
		rosterapi.Member{ID: "mem_gone", TeamID: "team_2", Name: "Gone", Phone: stranger, Role: rosterapi.RoleAthlete, Status: "opted_out", CreatedAt: base},
	)
	store := &memFiling{provided: map[string]bool{"SMdone": true},
		groups: map[rosterapi.TeamPhone]string{{TeamID: "team_1", Phone: parent}: "grp_u12"}}
	pub, help, clear := &announced{}, &helped{}, &cleared{}
	bill := newBilling(t, "team_1", "team_2")
	setOverdue(t, bill, "team_2", true)
	svc := inbound.New(inbound.Deps{Tx: inline{}, Store: store, Help: help, Clock: clock.NewFake(t0), Lookup: r, Billing: bill,
		Events: pub, Log: slog.New(slog.DiscardHandler), Deliverability: clear, Keywords: r})

	at := t0.Add(-time.Minute)
	require.NoError(t, svc.File(ctx, []inbound.Args{
		{From: "(202) 555-0101", To: teamNumber, Body: "Running late", ProviderMessageID: "SM1", ReceivedAt: at},
		{From: parent, To: teamNumber, Body: "Running late", ProviderMessageID: "SM1", ReceivedAt: at}, // the same callback twice in a batch
		{From: parent, To: "+12025550999", Body: "wrong number", ProviderMessageID: "SM2", ReceivedAt: at},
		{From: stranger, To: teamNumber, Body: "help", ProviderMessageID: "SM3", ReceivedAt: at.Add(time.Second)},
		{From: stranger, To: "+12025550200", Body: "Stop.", ProviderMessageID: "SM4", ReceivedAt: at.Add(2 * time.Second)},
		{From: parent, To: teamNumber, Body: "filed before", ProviderMessageID: "SMdone", ReceivedAt: at},
		{From: parent, To: teamNumber, Body: "no time", ProviderMessageID: "SM5"},
	}))

	require.Len(t, store.stored, 4, "once per provider id; the unknown number dropped; a filed one skipped")
	byProvider := map[string]domain.Inbound{}
	for _, in := range store.stored {
		byProvider[in.ProviderMessageID] = in
	}
	first := byProvider["SM1"]
	require.Equal(t, parent, first.FromPhone, "numbers normalised to E.164")
	require.Equal(t, domain.InboundMember{ID: "mem_a", Name: "Pat", Role: "guardian"}, first.Member, "the oldest active entry")
	require.Equal(t, "grp_u12", first.GroupID)
	require.Equal(t, at, first.ReceivedAt)
	require.Equal(t, t0, first.CreatedAt)
	require.Equal(t, domain.KeywordHelp, byProvider["SM3"].Keyword)
	require.Zero(t, byProvider["SM3"].Member, "not on the roster")
	stop := byProvider["SM4"]
	require.Equal(t, domain.KeywordStop, stop.Keyword)
	require.True(t, stop.Held, "team_2's renewal is overdue")
	require.Equal(t, "mem_gone", stop.Member.ID, "no active entry: the oldest")
	require.Equal(t, t0, byProvider["SM5"].ReceivedAt, "no arrival time: now")

	require.Equal(t, [][]string{{"team_1", "team_2"}}, store.locked, "one lock call, teams in order")
	require.Equal(t, []string{"help " + stranger, "stop " + stranger}, calls(r), "keywords carried out, held or not")
	require.Equal(t, []string{"team_1 " + byProvider["SM3"].ID}, help.texts, "HELP answered")
	require.Len(t, clear.outcomes, 4, "every number that texted is deliverable again")

	var announcedIDs []string
	for _, ev := range pub.evs {
		require.Equal(t, events.MessageReceived, ev.Type)
		announcedIDs = append(announcedIDs, ev.Data.(messagingapi.Received).MessageID)
	}
	visible := []string{byProvider["SM1"].ID, byProvider["SM3"].ID, byProvider["SM5"].ID}
	require.Equal(t, visible, announcedIDs, "visible texts announced in arrival order; the held STOP is not")
	require.Equal(t, visible, store.counted, "and counted in analytics")
}
