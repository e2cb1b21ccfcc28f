package outbound_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/fakecarrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/db"
)

// slotRow is a planned hand-over as stored.
type slotRow struct {
	ID        int64
	NumberID  string
	MessageID string
	DueAt     time.Time
	Segments  int
	Seqs      []int32
}

// slotsWhere reads the slots the condition picks, by number, due time and id.
func slotsWhere(t testing.TB, d *db.DB, cond string, args ...any) []slotRow {
	t.Helper()
	var out []slotRow
	err := d.WithPgx(context.Background(), func(q db.PgxQuerier) error {
		rows, err := q.Query(context.Background(), `SELECT id, number_id, message_id, due_at, segments, seqs FROM messaging_slots
WHERE `+cond+` ORDER BY number_id, due_at, id`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r slotRow
			if err := rows.Scan(&r.ID, &r.NumberID, &r.MessageID, &r.DueAt, &r.Segments, &r.Seqs); err != nil {
				return err
			}
			r.DueAt = r.DueAt.UTC()
			out = append(out, r)
		}
		return rows.Err()
	})
	require.NoError(t, err)
	return out
}

// primary returns team's primary number, paced at pace.
func (b *bundle) primary(t testing.TB, team rosterapi.Team, pace float64) outbound.Number {
	t.Helper()
	ns, err := b.svc.Numbers(context.Background(), team.ID)
	require.NoError(t, err)
	n, err := b.svc.UpdateNumber(context.Background(), team.ID, ns[0].ID, outbound.NumberInput{Throughput: &pace})
	require.NoError(t, err)
	return n
}

func (b *bundle) estimated(t *testing.T, messageID string) time.Time {
	t.Helper()
	var at time.Time
	require.NoError(t, b.db.SQLDB.QueryRow(`SELECT estimated_completion FROM messaging_messages WHERE id = $1`, messageID).Scan(&at))
	return at.UTC()
}

// messageOf maps every delivery to its send.
func messageOf(t *testing.T, d *db.DB) map[string]string {
	t.Helper()
	rows, err := d.SQLDB.Query(`SELECT id, message_id FROM messaging_deliveries`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var dlv, msg string
		require.NoError(t, rows.Scan(&dlv, &msg))
		out[dlv] = msg
	}
	require.NoError(t, rows.Err())
	return out
}

// An urgent alert sent while the team's 3,000-text broadcast drains goes
// out ahead of what is left of it on every number it goes from: the
// broadcast's queued slots move later together, nothing of it is lost or
// sent twice, each number keeps its pace, a second alert queues behind the
// first, and another team's plan does not move.
func TestUrgentGoesAheadOfTheTeamsBroadcast(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	const pace = 5.0
	a1 := b.primary(t, b.team, pace)
	extra, p := "+13105550101", pace
	a2, err := b.svc.AddNumber(ctx, b.team.ID, outbound.NumberInput{Number: &extra, Throughput: &p})
	require.NoError(t, err)
	teamB := rosterapi.Team{ID: "team_2", Name: "Lions", Code: "lions", Number: "+13105550200", CreatedAt: t0}
	require.NoError(t, b.roster.AddTeam(ctx, teamB))
	bn := b.primary(t, teamB, pace)

	bcast, done := b.sendAs(t, b.team, phones(3000, 0), false)
	require.Equal(t, t0.Add(299*time.Second), done, "1,500 texts a number at 5/s: the last slot 299 s in")
	b.sendAs(t, teamB, phones(1000, 5000), false)

	// A minute in: some of the broadcast has gone, most is queued.
	b.pumpUntil(t, t0.Add(time.Minute), func(int) time.Duration { return 0 })
	before := len(b.carrier.all())
	require.Greater(t, before, 500)
	require.Greater(t, countRows(t, b.db, `SELECT count(*) FROM messaging_deliveries WHERE message_id = $1 AND status = 'queued'`, bcast), 2000)
	teamBSlots := slotsWhere(t, b.db, `number_id = $1`, bn.ID)
	require.NotEmpty(t, teamBSlots)
	teamBNumber, err := b.svc.Number(ctx, teamB.ID, bn.ID)
	require.NoError(t, err)
	estBefore := b.estimated(t, bcast)

	// Two of the first alert's recipients had the broadcast: they keep
	// their number. The alert takes two slots on each number.
	u1, _ := b.sendAs(t, b.team, append(phones(14, 9000), "+12025550007", "+12025552999"), true)
	u2, _ := b.sendAs(t, b.team, phones(3, 9100), true)

	// The plan.
	for _, n := range []outbound.Number{a1, a2} {
		num, err := b.svc.Number(ctx, b.team.ID, n.ID)
		require.NoError(t, err)
		slots := slotsWhere(t, b.db, `number_id = $1`, n.ID)
		var u1Last, u2First, urgentLast, bcastFirst time.Time
		u1Slots := 0
		perDue := map[time.Time]int{}
		var dues []time.Time
		for _, s := range slots {
			if perDue[s.DueAt] == 0 {
				dues = append(dues, s.DueAt)
			}
			perDue[s.DueAt] += s.Segments
			switch s.MessageID {
			case u1:
				u1Slots++
				u1Last, urgentLast = later(u1Last, s.DueAt), later(urgentLast, s.DueAt)
				require.False(t, s.DueAt.Before(num.Schedule.FreeAt), "not before the number's previous hand-over has passed")
			case u2:
				if u2First.IsZero() || s.DueAt.Before(u2First) {
					u2First = s.DueAt
				}
				urgentLast = later(urgentLast, s.DueAt)
			case bcast:
				if bcastFirst.IsZero() {
					bcastFirst = s.DueAt
				}
			}
		}
		require.False(t, u1Last.IsZero(), "the first alert goes from %s too", n.Number)
		require.Greater(t, u1Slots, 1, "the first alert spans two slots on %s", n.Number)
		require.False(t, bcastFirst.IsZero())
		if !u2First.IsZero() {
			require.False(t, u2First.Before(u1Last), "the second alert is behind the first on %s", n.Number)
		}
		require.GreaterOrEqual(t, bcastFirst.Sub(urgentLast), time.Second, "the broadcast resumes a window after the alerts on %s", n.Number)
		for i, at := range dues {
			require.LessOrEqual(t, perDue[at], int(pace), "a slot holds a second's worth")
			if i > 0 {
				require.GreaterOrEqual(t, at.Sub(dues[i-1]), time.Second, "slots a second apart on %s", n.Number)
			}
		}
		require.Equal(t, dues[len(dues)-1], num.Schedule.LastAt, "the number's latest slot is the broadcast's last, moved")
	}
	require.NotEmpty(t, slotsWhere(t, b.db, `message_id = $1`, u2))
	require.Equal(t, teamBSlots, slotsWhere(t, b.db, `number_id = $1`, bn.ID), "another team's slots do not move")
	after, err := b.svc.Number(ctx, teamB.ID, bn.ID)
	require.NoError(t, err)
	require.Equal(t, teamBNumber, after, "nor does its schedule")
	var planned int
	for _, s := range slotsWhere(t, b.db, `message_id = $1`, bcast) {
		planned += len(s.Seqs)
	}
	require.Equal(t, countRows(t, b.db, `SELECT count(*) FROM messaging_deliveries WHERE message_id = $1 AND status = 'queued'`, bcast), planned,
		"every queued text of the broadcast keeps a slot")
	last := slotsWhere(t, b.db, `message_id = $1`, bcast)
	var lastDue time.Time
	for _, s := range last {
		lastDue = later(lastDue, s.DueAt)
	}
	require.True(t, b.estimated(t, bcast).After(estBefore), "the broadcast's estimated completion moved")
	require.Equal(t, lastDue, b.estimated(t, bcast), "to its last slot")

	// The hand-over.
	b.pumpUntil(t, t0.Add(time.Hour), func(int) time.Duration { return 0 })
	sent := b.carrier.all()
	require.Len(t, sent, 3000+1000+16+3)
	msgOf := messageOf(t, b.db)
	seen := map[string]bool{}
	byFrom := map[string][]time.Time{}
	type span struct{ first, last time.Time }
	alerts := map[string]map[string]*span{u1: {}, u2: {}}
	rest := map[string]time.Time{} // per number, the first of the broadcast's texts that were queued at the alert
	for i, s := range sent {
		require.False(t, seen[s.m.DeliveryID], "delivery %s handed over twice", s.m.DeliveryID)
		seen[s.m.DeliveryID] = true
		byFrom[s.m.From] = append(byFrom[s.m.From], s.at)
		switch msg := msgOf[s.m.DeliveryID]; msg {
		case u1, u2:
			sp := alerts[msg][s.m.From]
			if sp == nil {
				sp = &span{first: s.at, last: s.at}
				alerts[msg][s.m.From] = sp
			}
			sp.last = later(sp.last, s.at)
			if s.at.Before(sp.first) {
				sp.first = s.at
			}
		case bcast:
			if i >= before {
				if f, ok := rest[s.m.From]; !ok || s.at.Before(f) {
					rest[s.m.From] = s.at
				}
			}
		}
	}
	require.Equal(t, 0, countRows(t, b.db, `SELECT count(*) FROM messaging_deliveries WHERE status <> 'sent'`))
	for _, from := range []string{a1.Number, a2.Number} {
		require.Contains(t, rest, from)
		for _, msg := range []string{u1, u2} {
			if sp := alerts[msg][from]; sp != nil {
				require.True(t, sp.last.Before(rest[from]), "every alert text from %s is handed over before the broadcast's queued ones", from)
			}
		}
		if sp1, sp2 := alerts[u1][from], alerts[u2][from]; sp2 != nil {
			require.False(t, sp2.first.Before(sp1.last), "the second alert goes after the first from %s", from)
		}
	}
	for from, ts := range byFrom {
		require.LessOrEqual(t, fakecarrier.BusiestSecond(ts), int(pace), "pace of %s", from)
	}
}

// A pass on another node holds the number while it hands its head slot
// over: the urgent send waits for it, then moves only what the pass left,
// after the pass's hand-over's occupancy. Nothing is sent twice or lost.
func TestUrgentWaitsForThePassHoldingTheNumber(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ctx := context.Background()
	d2, err := db.Open(ctx, a.db.Pool.Config().ConnString(), 10)
	require.NoError(t, err)
	t.Cleanup(d2.Close)
	node := build(t, d2)
	node.clock, node.svc.Clock = a.clock, a.clock

	bcast, _ := a.send(t, phones(3, 0)) // 1/s: due at t0, t0+1s, t0+2s
	hold := make(chan struct{})
	a.carrier.hold, a.carrier.held = hold, make(chan struct{}, 1)
	passed := make(chan error, 1)
	go func() {
		_, err := a.svc.Pass(ctx)
		passed <- err
	}()
	<-a.carrier.held // the pass handed the head slot to the carrier; it has not committed
	planned := make(chan string, 1)
	go func() {
		msg, _ := node.sendAs(t, node.team, phones(2, 9000), true)
		planned <- msg
	}()
	require.Eventually(t, func() bool {
		return countRows(t, a.db, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`) == 1
	}, 30*time.Second, 5*time.Millisecond, "the urgent send waits for the number")
	close(hold)
	require.NoError(t, <-passed)
	urgent := <-planned

	require.Len(t, a.carrier.all(), 1)
	num, err := a.svc.Numbers(ctx, a.team.ID)
	require.NoError(t, err)
	us := slotsWhere(t, a.db, `message_id = $1`, urgent)
	bs := slotsWhere(t, a.db, `message_id = $1`, bcast)
	require.Len(t, us, 2)
	require.Len(t, bs, 2, "the slot the pass handed over is gone, not moved")
	require.Equal(t, []int32{2}, bs[0].Seqs)
	require.Equal(t, []int32{3}, bs[1].Seqs)
	require.False(t, us[0].DueAt.Before(num[0].Schedule.FreeAt), "the alert waits for the pass's hand-over's occupancy")
	require.GreaterOrEqual(t, bs[0].DueAt.Sub(us[1].DueAt), time.Second)
	require.Equal(t, time.Second, bs[1].DueAt.Sub(bs[0].DueAt), "the broadcast keeps its pace")

	a.pumpUntil(t, t0.Add(time.Minute), func(int) time.Duration { return 0 })
	sent := a.carrier.all()
	require.Len(t, sent, 5)
	msgOf := messageOf(t, a.db)
	seen := map[string]bool{}
	var ts []time.Time
	var order []string
	for _, s := range sent {
		require.False(t, seen[s.m.DeliveryID])
		seen[s.m.DeliveryID] = true
		ts = append(ts, s.at)
		order = append(order, msgOf[s.m.DeliveryID])
	}
	require.Equal(t, []string{bcast, urgent, urgent, bcast, bcast}, order)
	require.LessOrEqual(t, fakecarrier.BusiestSecond(ts), 1)
}

var errRollback = errors.New("rolled back")

// BenchmarkUrgentPlan plans a 5-text urgent alert on a number with 5,000
// broadcast texts queued (5,000 slots at 1/s, the most rows one alert can
// move on a number for that broadcast): "plan" is the whole of it (the
// numbers' lock, the queue read, the one UPDATE that moves every queued
// slot and the broadcast's estimated completion, and the alert's own
// slots), "shift" that UPDATE alone. Each run rolls back, so each moves the
// same 5,000 rows.
func BenchmarkUrgentPlan(bm *testing.B) {
	b := setup(bm)
	ctx := context.Background()
	b.send(bm, phones(5000, 0))
	require.Equal(bm, 5000, countRows(bm, b.db, `SELECT count(*) FROM messaging_slots`))
	ns, err := b.svc.Numbers(ctx, b.team.ID)
	require.NoError(bm, err)
	store := postgres.NewOutboundStore(b.db, b.repo)
	alert := phones(5, 9000)
	run := func(bm *testing.B, fn func(ctx context.Context) error) {
		for i := 0; i < bm.N; i++ {
			err := b.db.Tx(ctx, func(ctx context.Context) error {
				if err := fn(ctx); err != nil {
					return err
				}
				return errRollback
			})
			if !errors.Is(err, errRollback) {
				bm.Fatal(err)
			}
		}
	}
	bm.Run("plan", func(bm *testing.B) {
		run(bm, func(ctx context.Context) error {
			_, err := b.svc.Plan(ctx, outbound.SendPlan{Team: b.team, MessageID: "msg_alert", Phones: alert, Segments: 1, Urgent: true})
			return err
		})
	})
	bm.Run("shift", func(bm *testing.B) {
		run(bm, func(ctx context.Context) error {
			return store.ShiftSlots(ctx, []outbound.Shift{{NumberID: ns[0].ID, By: time.Second}})
		})
	})
}
