package domain

import (
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// event is a hand-over: segments reaching the carrier at an instant.
type event struct {
	at       time.Time
	segments int
}

// maxInWindow is the most segments any half-open window [t, t+w) holds
// (it is enough to try windows starting at each event).
func maxInWindow(es []event, w time.Duration) int {
	sort.Slice(es, func(i, j int) bool { return es[i].at.Before(es[j].at) })
	best, sum, lo := 0, 0, 0
	for hi := range es {
		sum += es[hi].segments
		for es[lo].at.Add(w).Compare(es[hi].at) <= 0 {
			sum -= es[lo].segments
			lo++
		}
		best = max(best, sum)
	}
	return best
}

// allowed is the most segments a window may hold on a number of pace p
// whose longest text has longest segments: a window's worth, or one text.
func allowed(p Pace, longest int) int {
	return max(int(p.capacity()+1e-9), longest)
}

var paces = []Pace{0.25, 0.5, 1, 1.5, 3, 10, 30, 100}

func TestPaceArithmetic(t *testing.T) {
	t.Parallel()
	require.Equal(t, time.Second, Pace(1).Occupancy(1))
	require.Equal(t, time.Second, Pace(100).Occupancy(40), "less than a window's worth still takes the window")
	require.Equal(t, 3*time.Second, Pace(1).Occupancy(3), "a 3-segment text at 1/s")
	require.Equal(t, 4*time.Second, Pace(0.25).Occupancy(1))
	require.Equal(t, 1, Pace(1).PerSlot(1))
	require.Equal(t, 1, Pace(1).PerSlot(3), "a long text still gets a slot of its own")
	require.Equal(t, 33, Pace(100).PerSlot(3))
	require.Equal(t, 3, Pace(3).PerSlot(1))
	require.True(t, Pace(1).Valid())
	require.False(t, Pace(0).Valid())
	require.False(t, Pace(1001).Valid())
}

// A single send on an idle number: one slot per window, from now.
func TestPlanIdleNumber(t *testing.T) {
	t.Parallel()
	s, slots := Schedule{Pace: 2}.Plan(t0, 5, 1)
	require.Equal(t, []Slot{
		{At: t0, First: 0, Count: 2, Segments: 2},
		{At: t0.Add(time.Second), First: 2, Count: 2, Segments: 2},
		{At: t0.Add(2 * time.Second), First: 4, Count: 1, Segments: 1},
	}, slots)
	require.Equal(t, t0.Add(2*time.Second), s.Finish())

	// A second send 100 ms later fills the last slot's room, then goes on.
	_, more := s.Plan(t0.Add(100*time.Millisecond), 2, 1)
	require.Equal(t, []Slot{
		{At: t0.Add(2 * time.Second), First: 0, Count: 1, Segments: 1},
		{At: t0.Add(3 * time.Second), First: 1, Count: 1, Segments: 1},
	}, more)
}

// A slot about to be handed over is not joined: its pump may already be at work.
func TestPlanDoesNotJoinADueSlot(t *testing.T) {
	t.Parallel()
	s, _ := Schedule{Pace: 10}.Plan(t0, 1, 1)
	_, slots := s.Plan(t0.Add(100*time.Millisecond), 1, 1)
	require.Equal(t, t0.Add(time.Second), slots[0].At, "the next window, not the slot due now")
}

// The plan never puts more than a window's worth of segments (or one long
// text) in any window, whatever sends arrive when; every text is planned,
// in order; and a number with work is never idle: each slot is at the
// earliest instant the pace allows.
func TestPlanProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom(paces).Draw(t, "pace")
		s := Schedule{Pace: p}
		now := t0
		var es []event
		longest := 1
		sends := rapid.IntRange(1, 8).Draw(t, "sends")
		for i := range sends {
			now = now.Add(time.Duration(rapid.Int64Range(0, int64(20*time.Second)).Draw(t, "gap")))
			count := rapid.IntRange(0, 60).Draw(t, "count")
			segs := rapid.IntRange(1, 4).Draw(t, "segments")
			longest = max(longest, segs)
			before := s
			var slots []Slot
			s, slots = s.Plan(now, count, segs)

			next := 0
			for j, sl := range slots {
				require.Equal(t, next, sl.First, "send %d slot %d: texts in order, none skipped", i, j)
				require.Positive(t, sl.Count)
				require.Equal(t, sl.Count*segs, sl.Segments)
				require.False(t, sl.At.Before(now.Truncate(time.Microsecond)), "never before now")
				next += sl.Count
				es = append(es, event{sl.At, sl.Segments})
			}
			require.Equal(t, count, next, "every text planned")
			if len(slots) > 0 && slots[0].At != before.LastAt {
				want := ceilMicro(now)
				if !before.LastAt.IsZero() {
					want = later(want, before.LastAt.Add(p.Occupancy(before.LastSegments)))
				}
				require.Equal(t, want, slots[0].At, "a new slot starts at the earliest instant the pace allows")
			}
			for j := 1; j < len(slots); j++ {
				require.Equal(t, slots[j-1].At.Add(p.Occupancy(slots[j-1].Segments)), slots[j].At, "slots back to back")
			}
		}
		require.LessOrEqual(t, maxInWindow(es, Window), allowed(p, longest))
	})
}

// Two planners that take turns on the number's schedule (as two nodes do
// under its row lock) never overbook it, however their sends interleave.
func TestPlanSharedScheduleNeverOverbooks(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom(paces).Draw(t, "pace")
		shared := Schedule{Pace: p}
		var es []event
		now := t0
		for range rapid.IntRange(2, 20).Draw(t, "turns") {
			// Each node reads the clock itself; they may disagree by a little.
			now = now.Add(time.Duration(rapid.Int64Range(0, int64(1500*time.Millisecond)).Draw(t, "gap")))
			skew := time.Duration(rapid.Int64Range(-int64(5*time.Millisecond), int64(5*time.Millisecond)).Draw(t, "skew"))
			var slots []Slot
			shared, slots = shared.Plan(now.Add(skew), rapid.IntRange(1, 40).Draw(t, "count"), 1)
			for _, sl := range slots {
				es = append(es, event{sl.At, sl.Segments})
			}
		}
		require.LessOrEqual(t, maxInWindow(es, Window), allowed(p, 1))
	})
}

// pump simulates the hand-over side: it wakes late by a random amount,
// releases what the schedule allows, and each hand-over takes a random
// time, the carrier stamping the texts at some instant within it.
type pump struct {
	s       Schedule
	pending []Slot // planned, not yet handed over, in due order
	stamps  []event
	order   []time.Time // due instants in the order they were handed over
}

func (p *pump) head() time.Time {
	if len(p.pending) == 0 {
		return time.Time{}
	}
	return p.pending[0].At
}

// run works until nothing is left or the clock passes until; it returns the clock.
func (p *pump) run(t *rapid.T, now, until time.Time, maxLate time.Duration) time.Time {
	for len(p.pending) > 0 && now.Before(until) {
		next := p.s.NextAt(p.head())
		now = later(now, next).Add(time.Duration(rapid.Int64Range(0, int64(maxLate)).Draw(t, "late")))
		var r Release
		p.s, r = p.s.Release(now, p.head())
		if r.Upto.IsZero() {
			now = now.Add(time.Millisecond)
			continue
		}
		segs := 0
		for len(p.pending) > 0 && !p.pending[0].At.After(r.Upto) {
			segs += p.pending[0].Segments
			p.order = append(p.order, p.pending[0].At)
			p.pending = p.pending[1:]
		}
		took := time.Duration(rapid.Int64Range(0, int64(30*time.Millisecond)).Draw(t, "took"))
		stamp := now.Add(time.Duration(rapid.Int64Range(0, int64(took)).Draw(t, "stamp")))
		p.stamps = append(p.stamps, event{stamp, segs})
		now = now.Add(took)
		p.s = p.s.HandedOver(now, segs)
	}
	return now
}

// Handed over by a pump that runs late and unevenly, the texts still never
// exceed the pace in any window at the carrier, go in plan order, and all go.
func TestGuardedHandOverIsExact(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		pace := rapid.SampledFrom(paces).Draw(t, "pace")
		p := &pump{s: Schedule{Pace: pace}}
		now := t0
		var slots []Slot
		p.s, slots = p.s.Plan(now, rapid.IntRange(1, 80).Draw(t, "count"), 1)
		p.pending = slots
		now = p.run(t, now, now.Add(time.Hour), 80*time.Millisecond)
		require.Empty(t, p.pending, "every slot handed over")
		require.True(t, slices.IsSortedFunc(p.order, func(a, b time.Time) int { return a.Compare(b) }), "in plan order")
		require.LessOrEqual(t, maxInWindow(p.stamps, Window), allowed(pace, 1))
	})
}

// A number that stalled (here: nothing ran for a minute) releases all its
// overdue slots at once, then holds back for their occupancy.
func TestStalledNumberCatchesUp(t *testing.T) {
	t.Parallel()
	s, slots := Schedule{Pace: 1}.Plan(t0, 100, 1)
	now := t0.Add(time.Minute)
	s2, r := s.Release(now, slots[0].At)
	require.True(t, r.CatchUp)
	require.Equal(t, now, r.Upto, "everything due by now goes")
	require.Equal(t, now, s2.CatchUpUntil)
	// A later run (the first chunk done) keeps catching up to the same horizon, guard or not.
	s3 := s2.HandedOver(now.Add(10*time.Millisecond), 30)
	s4, r2 := s3.Release(now.Add(20*time.Millisecond), slots[30].At)
	require.Equal(t, Release{Upto: now, CatchUp: true}, r2)
	// Once past the horizon, the guard is back: 61 segments keep the number busy for 61 s.
	s5 := s4.HandedOver(now.Add(30*time.Millisecond), 31)
	_, r3 := s5.Release(now.Add(40*time.Millisecond), slots[61].At)
	require.Zero(t, r3.Upto)
	require.Equal(t, now.Add(10*time.Millisecond).Add(61*time.Second), s5.FreeAt)
	require.Equal(t, s5.FreeAt, s5.NextAt(slots[61].At))
}

// A number that is merely running late (a busy machine) is not stalled:
// its carrier queue is not idle, so it keeps to the guard.
func TestLateButBusyIsNotStalled(t *testing.T) {
	t.Parallel()
	s, slots := Schedule{Pace: 1}.Plan(t0, 100, 1)
	now := t0.Add(40 * time.Second) // the head is 40 s late...
	s = s.HandedOver(now.Add(-2*time.Second), 1)
	_, r := s.Release(now, slots[0].At) // ...but the last hand-over was 2 s ago
	require.Equal(t, Release{Upto: slots[0].At}, r, "the head slot alone")
}

func TestBackoffAndNextAt(t *testing.T) {
	t.Parallel()
	s := Schedule{Pace: 1}
	require.Zero(t, s.NextAt(time.Time{}), "no work: no wake-up")
	require.Equal(t, t0, s.NextAt(t0))
	s = s.Backoff(t0.Add(5 * time.Second))
	require.Equal(t, t0.Add(5*time.Second), s.NextAt(t0), "a carrier that asked to wait")
	_, r := s.Release(t0.Add(time.Second), t0)
	require.Zero(t, r.Upto)
}

// A released hand-over's turn is its head slot's instant or the guard's,
// whichever is later, and never earlier than the look it was due for; a
// catch-up goes at once.
func TestReleaseTurn(t *testing.T) {
	t.Parallel()
	s := Schedule{Pace: 1}.HandedOver(t0, 1) // free from t0+1s
	pass := t0.Add(1100 * time.Millisecond)  // a pass that took a later number too
	_, r := s.Release(pass, t0.Add(900*time.Millisecond))
	require.Equal(t, Release{Upto: t0.Add(900 * time.Millisecond)}, r)
	require.Equal(t, s.FreeAt, r.Turn(t0.Add(800*time.Millisecond), t0.Add(900*time.Millisecond), s), "the guard, not the head")
	require.Equal(t, t0.Add(1050*time.Millisecond), r.Turn(t0.Add(1050*time.Millisecond), t0.Add(900*time.Millisecond), s), "the look's own due")
	require.False(t, r.Turn(t0, t0, s).After(pass), "never later than the pass's latest number")
	require.Equal(t, t0.Add(3*time.Second), Release{Upto: pass, CatchUp: true}.Turn(t0.Add(3*time.Second), t0, s))
}
