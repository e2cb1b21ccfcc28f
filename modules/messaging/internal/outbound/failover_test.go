package outbound_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// Refile plans taken slots on the healthy numbers: urgent slots first (as
// taken), each slot on the number that would finish soonest, at its pace,
// none before the slot was due; the segments taken and added match.
func TestRefileSpreadsAtThePaceAndNeverEarlier(t *testing.T) {
	t.Parallel()
	now := t0
	h1 := outbound.Number{ID: "num_a", Schedule: domain.Schedule{Pace: 2}}
	h2 := outbound.Number{ID: "num_b", Schedule: domain.Schedule{Pace: 2, LastAt: now.Add(10 * time.Second), LastSegments: 2}, NextAt: now.Add(time.Second)}
	slots := []outbound.QueuedSlot{
		{ID: 7, NumberID: "num_down", MessageID: "msg_u", DueAt: now.Add(-time.Minute), Seqs: []int32{1, 2}, Segments: 4, Urgent: true},
		{ID: 1, NumberID: "num_down", MessageID: "msg_r", DueAt: now.Add(-time.Minute), Seqs: []int32{1, 2, 3}, Segments: 3},
		{ID: 2, NumberID: "num_down", MessageID: "msg_r", DueAt: now.Add(time.Hour), Seqs: []int32{4}, Segments: 1}, // held for quiet hours
	}
	r := outbound.Refile(now, slots, []outbound.Number{h1, h2})
	require.Equal(t, 6, r.Texts)
	require.Equal(t, map[string]int64{"num_down": 8}, r.Taken)
	require.Equal(t, []string{"msg_u", "msg_r"}, r.Messages)
	require.True(t, r.Kick, "overdue texts are due at once")

	var added int64
	for _, u := range r.Updates {
		added += u.BacklogDelta
	}
	require.Equal(t, int64(8), added, "every segment taken is planned again")
	var seqs []int32
	for _, s := range r.Slots {
		seqs = append(seqs, s.Seqs...)
		require.LessOrEqual(t, s.Segments, 2, "no slot holds more than a second of a 2/s number")
	}
	require.ElementsMatch(t, []int32{1, 2, 1, 2, 3, 4}, seqs)

	// num_a is idle and finishes first: the urgent texts go there, at once,
	// a text (2 segments) a second.
	require.Equal(t, outbound.NewSlot{NumberID: "num_a", MessageID: "msg_u", DueAt: now, Seqs: []int32{1}, Segments: 2, Urgent: true}, r.Slots[0])
	require.Equal(t, now.Add(time.Second), r.Slots[1].DueAt)
	last := r.Slots[len(r.Slots)-1]
	require.Equal(t, []int32{4}, last.Seqs)
	require.Equal(t, now.Add(time.Hour), last.DueAt, "a held text stays held")
	for _, u := range r.Updates {
		if u.NumberID == "num_b" {
			require.Equal(t, now.Add(time.Second), u.NextAt, "an earlier look stays")
		}
	}
}

// failoverBundle is a team with a number on a Telnyx account and one on
// the default account, each at 5 texts a second, and its failover engine.
type failoverBundle struct {
	*bundle
	fo           *outbound.Service
	down, spare  outbound.Number
	other        outbound.Number // another team's number on the same account
	otherMessage string
}

func setupFailover(t *testing.T) failoverBundle {
	t.Helper()
	b := setup(t)
	ctx := context.Background()
	d := b.svc.Deps
	d.Failovers = outbound.FailoverDeps{Store: postgres.NewOutboundStore(b.db, b.repo), After: 30 * time.Second}
	fo := outbound.New(d)
	down := b.primary(t, b.team, 5)
	extra, pace := "+13105550101", 5.0
	spare, err := b.svc.AddNumber(ctx, b.team.ID, outbound.NumberInput{Number: &extra, Throughput: &pace})
	require.NoError(t, err)
	teamB := rosterapi.Team{ID: "team_2", Name: "Lions", Code: "lions", Number: "+13105550200", CreatedAt: t0}
	require.NoError(t, b.roster.AddTeam(ctx, teamB))
	other := b.primary(t, teamB, 5)
	exec(t, b, `INSERT INTO messaging_carrier_accounts (id, provider, name, created_at, updated_at) VALUES ('cac_tel', 'telnyx', 'T', now(), now())`)
	exec(t, b, `UPDATE messaging_numbers SET carrier_account_id = 'cac_tel' WHERE id IN ($1, $2)`, down.ID, other.ID)
	otherMsg, _ := b.sendAs(t, teamB, phones(50, 7000), false)
	return failoverBundle{bundle: b, fo: fo, down: down, spare: spare, other: other, otherMessage: otherMsg}
}

func exec(t *testing.T, b *bundle, q string, args ...any) {
	t.Helper()
	_, err := b.db.SQLDB.Exec(q, args...)
	require.NoError(t, err)
}

func (f failoverBundle) failover(t *testing.T) int {
	t.Helper()
	n, err := f.fo.Failover(context.Background())
	require.NoError(t, err)
	return n
}

// A team with failover on whose Telnyx account has been down long enough
// has its queued texts there moved to its number on the healthy account:
// nothing lost or sent twice, the healthy number keeps its pace, the
// sticky senders stay as they were, each delivery records the number it
// went from, the down number keeps its head slot (the probe), and another team on the down account (failover off) keeps its
// plan. An outage that is young, or that no node has confirmed lately,
// moves nothing.
func TestFailoverMovesQueuedTextsToHealthyNumbers(t *testing.T) {
	t.Parallel()
	f := setupFailover(t)
	ctx := context.Background()
	msg, _ := f.send(t, phones(200, 0))
	f.pumpUntil(t, t0.Add(4*time.Second), func(int) time.Duration { return 0 })
	sentBefore := len(f.carrier.all())
	require.Greater(t, sentBefore, 0)
	onDown := countRows(t, f.db, `SELECT coalesce(sum(cardinality(seqs)), 0) FROM messaging_slots WHERE number_id = $1`, f.down.ID)
	require.Greater(t, onDown, 50)
	senders := countRows(t, f.db, `SELECT count(*) FROM messaging_senders WHERE number_id = $1`, f.down.ID)
	otherSlots := slotsWhere(t, f.db, `number_id = $1`, f.other.ID)

	require.Zero(t, f.failover(t), "no outage: nothing moves")
	exec(t, f.bundle, `INSERT INTO messaging_carrier_outages (account_id, since, seen_at) VALUES ('cac_tel', clock_timestamp() - interval '1 hour', clock_timestamp())`)
	require.Zero(t, f.failover(t), "failover is off by default")
	exec(t, f.bundle, `INSERT INTO messaging_settings (team_id, carrier_failover, updated_at) VALUES ('team_1', true, now())`)
	exec(t, f.bundle, `UPDATE messaging_carrier_outages SET since = clock_timestamp() - interval '10 seconds'`)
	require.Zero(t, f.failover(t), "an outage younger than CARRIER_FAILOVER_AFTER")
	exec(t, f.bundle, `UPDATE messaging_carrier_outages SET since = clock_timestamp() - interval '1 hour', seen_at = clock_timestamp() - interval '5 minutes'`)
	require.Zero(t, f.failover(t), "an outage no node confirmed lately")
	exec(t, f.bundle, `UPDATE messaging_carrier_outages SET seen_at = clock_timestamp()`)

	head := slotsWhere(t, f.db, `number_id = $1`, f.down.ID)[0]
	moved := onDown - len(head.Seqs)
	require.Equal(t, moved, f.failover(t), "every text queued on the down number moves but its head slot, the probe")
	require.Equal(t, []slotRow{head}, slotsWhere(t, f.db, `number_id = $1`, f.down.ID))
	queued, err := postgres.NewOutboundStore(f.db, f.repo).QueuedByAccount(ctx)
	require.NoError(t, err)
	otherTexts := 0
	for _, sl := range otherSlots {
		otherTexts += len(sl.Seqs)
	}
	require.Equal(t, int64(len(head.Seqs)+otherTexts), queued["cac_tel"], "the account's queue: the head and the other team's texts")
	require.Equal(t, int64(countRows(t, f.db, `SELECT coalesce(sum(cardinality(seqs)), 0) FROM messaging_slots WHERE number_id = $1`, f.spare.ID)),
		queued["cac_default"])
	n, err := f.svc.Number(ctx, f.team.ID, f.down.ID)
	require.NoError(t, err)
	require.Equal(t, int64(head.Segments), n.Backlog)
	require.False(t, n.NextAt.Before(head.DueAt), "passes keep trying the head")
	require.WithinDuration(t, head.DueAt, n.NextAt, time.Second, "passes keep trying the head")
	require.Equal(t, head.DueAt, n.Schedule.LastAt, "a send planned once the account is back goes right after the head")
	require.Zero(t, f.failover(t), "a second pass finds nothing to move")
	require.Equal(t, senders, countRows(t, f.db, `SELECT count(*) FROM messaging_senders WHERE number_id = $1`, f.down.ID),
		"the sticky senders are kept for when the account is back")
	require.Equal(t, otherSlots, slotsWhere(t, f.db, `number_id = $1`, f.other.ID), "a team without failover keeps its plan")

	f.pumpUntil(t, t0.Add(10*time.Minute), func(int) time.Duration { return 0 })
	perPhone := map[string]int{}
	perSecond := map[int64]int{}
	fromDown := 0
	for i, s := range f.carrier.all() {
		if s.m.TeamID != f.team.ID {
			continue
		}
		perPhone[s.m.To]++
		if i >= sentBefore && s.m.From == f.down.Number {
			fromDown++
		}
		if s.m.From == f.spare.Number {
			perSecond[s.at.Unix()]++
		}
	}
	require.Equal(t, len(head.Seqs), fromDown, "only the head went from the down number after the move")
	require.Len(t, perPhone, 200, "every recipient got a text")
	for _, c := range perPhone {
		require.Equal(t, 1, c, "nobody got two")
	}
	for sec, c := range perSecond {
		require.LessOrEqual(t, c, 5, "the healthy number keeps its pace (second %d)", sec)
	}
	require.Equal(t, moved, countRows(t, f.db, `SELECT count(*) FROM messaging_deliveries d WHERE d.message_id = $1 AND d.sent_from = $2
  AND EXISTS (SELECT 1 FROM messaging_senders s WHERE s.team_id = d.team_id AND s.phone = d.phone AND s.number_id = $3)`, msg, f.spare.Number, f.down.ID),
		"the moved texts record the number that sent them, not their sticky one")
	n, err = f.svc.Number(ctx, f.team.ID, f.spare.ID)
	require.NoError(t, err)
	require.Zero(t, n.Backlog, "the healthy number's backlog is back to zero: nothing counted twice")
}
