package domain

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	require.NoError(t, err)
	return l
}

// day is 08:00–21:00, the default quiet hours' complement.
func day(zs ...*time.Location) *Hours { return &Hours{Open: 8 * 60, Close: 21 * 60, Zones: zs} }

func TestHoursAllowsAndOpens(t *testing.T) {
	ny, la := zone(t, "America/New_York"), zone(t, "America/Los_Angeles")
	h := day(ny)
	at := func(s string, l *time.Location) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, l)
		require.NoError(t, err)
		return v
	}
	require.True(t, h.Allows(at("2026-12-07 08:00", ny)))
	require.True(t, h.Allows(at("2026-12-07 20:59", ny)))
	require.False(t, h.Allows(at("2026-12-07 21:00", ny)))
	require.False(t, h.Allows(at("2026-12-08 07:59", ny)))
	o, ok := h.NextOpen(at("2026-12-07 23:10", ny))
	require.True(t, ok)
	require.True(t, o.Equal(at("2026-12-08 08:00", ny)), o)
	require.True(t, h.OpenUntil(at("2026-12-07 20:55", ny)).Equal(at("2026-12-07 21:00", ny)))

	// The intersection of two zones' windows: 08:00 Pacific is 11:00
	// Eastern, 21:00 Eastern is 18:00 Pacific.
	both := day(ny, la)
	require.False(t, both.Allows(at("2026-12-07 10:30", ny)))
	require.True(t, both.Allows(at("2026-12-07 11:00", ny)))
	require.False(t, both.Allows(at("2026-12-07 21:00", ny)))
	o, _ = both.NextOpen(at("2026-12-07 21:30", ny))
	require.True(t, o.Equal(at("2026-12-08 11:00", ny)), o.In(ny))
	// Zones whose windows never overlap: two hours a day, 15 hours apart
	// (13-hour windows, the default's, always overlap somewhere).
	short := func(zs ...*time.Location) *Hours { return &Hours{Open: 8 * 60, Close: 10 * 60, Zones: zs} }
	require.False(t, short(zone(t, "Pacific/Guam"), ny).Overlap(at("2026-12-07 12:00", ny)))
	require.True(t, short(zone(t, "America/Chicago"), ny).Overlap(at("2026-12-07 12:00", ny)))

	// A window that does not cross midnight: quiet 13:00–14:00.
	lunch := &Hours{Open: 14 * 60, Close: 13 * 60, Zones: []*time.Location{ny}}
	require.True(t, lunch.Allows(at("2026-12-07 02:00", ny)))
	require.False(t, lunch.Allows(at("2026-12-07 13:30", ny)))
	o, _ = lunch.NextOpen(at("2026-12-07 13:30", ny))
	require.True(t, o.Equal(at("2026-12-07 14:00", ny)))
}

// DST: the window opens at 08:00 local on the days the clocks change, in
// spring and autumn, and a quiet window edge inside the skipped hour moves
// to the first instant after it.
func TestHoursDST(t *testing.T) {
	ny := zone(t, "America/New_York")
	h := day(ny)
	for _, d := range []string{"2027-03-14", "2026-11-01"} { // spring forward, fall back
		night, err := time.ParseInLocation("2006-01-02 15:04", d+" 01:30", ny)
		require.NoError(t, err)
		o, ok := h.NextOpen(night)
		require.True(t, ok)
		require.Equal(t, "08:00", o.In(ny).Format("15:04"), d)
		require.Equal(t, d, o.In(ny).Format("2006-01-02"))
	}
	skipped := &Hours{Open: 2*60 + 30, Close: 22 * 60, Zones: []*time.Location{ny}} // opens at 02:30, which 2027-03-14 skips
	before, _ := time.ParseInLocation("2006-01-02 15:04", "2027-03-14 01:59", ny)
	o, ok := skipped.NextOpen(before)
	require.True(t, ok)
	require.Equal(t, "2027-03-14 03:00", o.In(ny).Format("2006-01-02 15:04"), "02:30 does not exist that day: the window opens when the clocks jump")
	require.True(t, skipped.Allows(o))
}

// The properties of PlanHeld over random sends: no text is planned at an
// instant its recipient's Hours forbid; slots never come closer than the
// pace allows (at the windows' opening too) nor hold more than a window's
// worth; every text is planned once; texts of one recipient class keep
// their order; a held text is marked with its slot's instant.
func TestPlanHeldProperties(t *testing.T) {
	names := []string{"America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "Pacific/Honolulu"}
	var classes []*Hours
	for _, n := range names {
		classes = append(classes, day(zone(t, n)))
	}
	classes = append(classes, day(zone(t, "America/Adak"), zone(t, "America/Anchorage")),
		&Hours{Open: 14 * 60, Close: 13 * 60, Zones: []*time.Location{zone(t, "America/New_York")}},
		&Hours{Open: 8 * 60, Close: 21 * 60, Zones: []*time.Location{zone(t, "America/Chicago")}, Guard: QuietGuard})
	rng := rand.New(rand.NewPCG(29, 2026))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for run := range 300 {
		now := start.Add(time.Duration(rng.Int64N(int64(365 * 24 * time.Hour))))
		pace := Pace([]float64{1, 3, 10}[rng.IntN(3)])
		segments := 1 + rng.IntN(2)
		count := 1 + rng.IntN(400)
		hours := make([]*Hours, count)
		for i := range hours {
			if rng.IntN(10) > 0 {
				hours[i] = classes[rng.IntN(len(classes))]
			}
		}
		sched := Schedule{Pace: pace}
		if rng.IntN(2) == 0 { // a number with work planned already
			sched.LastAt, sched.LastSegments = now.Add(time.Duration(rng.IntN(5000))*time.Millisecond), segments
		}
		var busy []Busy
		if run%3 == 0 { // slots already planned: scattered over the next day
			at := now
			for range rng.IntN(200) {
				at = at.Add(time.Duration(1+rng.IntN(600)) * time.Second)
				busy = append(busy, Busy{At: at, Segments: segments})
			}
		}
		_, hp := sched.PlanHeld(now, hours, segments, busy)
		require.Len(t, hp.Order, count, "run %d: every text once", run)
		for _, sl := range hp.Slots {
			for _, b := range busy {
				clash := sl.At.Before(b.At.Add(pace.Occupancy(b.Segments))) && b.At.Before(sl.At.Add(pace.Occupancy(sl.Segments)))
				require.False(t, clash, "run %d: slot %s within busy %s", run, sl.At, b.At)
			}
		}
		if busy != nil {
			sched.LastAt, sched.LastSegments = time.Time{}, 0 // the plan started from now
		}
		seen := make([]bool, count)
		last := map[*Hours]int{}
		prev := sched.LastAt
		prevSeg := sched.LastSegments
		held := 0
		for k, sl := range hp.Slots {
			require.LessOrEqual(t, sl.Segments, max(segments, int(float64(pace)*Window.Seconds())), "run %d slot %d: a window's worth", run, k)
			if k > 0 || sl.At != sched.LastAt {
				if !prev.IsZero() {
					require.False(t, sl.At.Before(prev.Add(pace.Occupancy(prevSeg))), "run %d slot %d: pace", run, k)
				}
			}
			require.False(t, sl.At.Before(now), "run %d slot %d: not before now", run, k)
			for _, i := range hp.Order[sl.First : sl.First+sl.Count] {
				require.False(t, seen[i], "run %d: text %d twice", run, i)
				seen[i] = true
				if h := hours[i]; h != nil {
					require.True(t, h.Allows(sl.At), "run %d: text %d planned at %s inside its quiet hours", run, i, sl.At)
					require.True(t, h.Allows(sl.At.Add(h.Guard)), "run %d: text %d planned at %s within its guard of the close", run, i, sl.At)
					require.Greater(t, i, last[h]-1, "run %d: order kept within a class", run)
					last[h] = i + 1
				}
				if !hp.HeldUntil[i].IsZero() {
					require.True(t, hp.HeldUntil[i].Equal(sl.At))
					held++
				}
			}
			if k > 0 || sl.At != sched.LastAt {
				prev, prevSeg = sl.At, sl.Segments
			} else {
				prevSeg += sl.Segments
			}
		}
		require.Equal(t, held, hp.Held)
	}
}

// A broadcast at 20:55 Eastern that needs far more than five minutes at
// 1 text a second: what fits before 21:00 goes, the Eastern rest from
// 08:00 at pace, never all at once, and Pacific recipients keep going
// until 21:00 Pacific.
func TestPlanHeldEveningBroadcast(t *testing.T) {
	ny, la := zone(t, "America/New_York"), zone(t, "America/Los_Angeles")
	east, west := day(ny), day(la)
	now, _ := time.ParseInLocation("2006-01-02 15:04", "2026-12-07 20:55", ny)
	hours := make([]*Hours, 2000)
	for i := range hours {
		hours[i] = east
		if i%2 == 1 {
			hours[i] = west
		}
	}
	_, hp := Schedule{Pace: 1}.PlanHeld(now, hours, 1, nil)
	nine, _ := time.ParseInLocation("2006-01-02 15:04", "2026-12-07 21:00", ny)
	eight, _ := time.ParseInLocation("2006-01-02 15:04", "2026-12-08 08:00", ny)
	var eastBefore, eastAfter, westBefore int
	for _, sl := range hp.Slots {
		for _, i := range hp.Order[sl.First : sl.First+sl.Count] {
			switch {
			case hours[i] == east && sl.At.Before(nine):
				eastBefore++
			case hours[i] == east:
				require.False(t, sl.At.Before(eight))
				eastAfter++
			case sl.At.Before(eight):
				westBefore++
			}
		}
	}
	require.InDelta(t, 150, eastBefore, 2, "before 21:00 the two coasts share the 300 slots of five minutes")
	require.Equal(t, 1000, westBefore, "Pacific recipients all go the same evening (until 21:00 Pacific)")
	require.Equal(t, 1000-eastBefore, eastAfter)
	require.Equal(t, 1000-eastBefore, hp.Held, "the Eastern texts held overnight")
	// From 08:00 the held texts go at pace, one a second, not all at once.
	var at08 []time.Time
	for _, sl := range hp.Slots {
		if !sl.At.Before(eight) {
			at08 = append(at08, sl.At)
		}
	}
	require.True(t, at08[0].Equal(eight))
	for k := 1; k < len(at08); k++ {
		require.Equal(t, time.Second, at08[k].Sub(at08[k-1]))
	}
}

// BenchmarkPlan10k: planning 10,000 one-segment texts on a number at 100
// a second, with quiet hours (four zones, at 20:55 Eastern, so most are
// held) and without; the goal is the first at most 1.3 times the
// second. Run: go test ./modules/messaging/internal/domain/ -run '^$' -bench Plan10k
func BenchmarkPlan10k(b *testing.B) {
	ny := zone(b, "America/New_York")
	classes := []*Hours{day(ny), day(zone(b, "America/Chicago")), day(zone(b, "America/Los_Angeles")), day(zone(b, "Pacific/Honolulu"))}
	for _, c := range classes {
		c.Guard = QuietGuard
	}
	hours := make([]*Hours, 10000)
	for i := range hours {
		hours[i] = classes[i%len(classes)]
	}
	now, _ := time.ParseInLocation("2006-01-02 15:04", "2026-12-07 20:55", ny)
	s := Schedule{Pace: 100}
	b.Run("quiet-off", func(b *testing.B) {
		for b.Loop() {
			s.Plan(now, len(hours), 1)
		}
	})
	b.Run("quiet-on", func(b *testing.B) {
		for b.Loop() {
			s.PlanHeld(now, hours, 1, nil)
		}
	})
}

// With busy slots (texts held for the morning), a later send whose
// recipients are awake goes now, between and before them, never within
// their occupancy nor closer than the pace to one another; the number's
// latest slot stays the latest.
func TestPlanHeldAroundBusySlots(t *testing.T) {
	ny, la := zone(t, "America/New_York"), zone(t, "America/Los_Angeles")
	now, _ := time.ParseInLocation("2006-01-02 15:04", "2026-12-07 22:00", ny)
	eight, _ := time.ParseInLocation("2006-01-02 15:04", "2026-12-08 08:00", ny)
	// 600 Eastern texts held from 08:00, one a second, and a few scattered
	// slots this evening.
	var busy []Busy
	for _, d := range []time.Duration{3 * time.Second, 10 * time.Second, 11 * time.Second, 40 * time.Second} {
		busy = append(busy, Busy{At: now.Add(d), Segments: 1})
	}
	for i := range 600 {
		busy = append(busy, Busy{At: eight.Add(time.Duration(i) * time.Second), Segments: 1})
	}
	s := Schedule{Pace: 1, LastAt: busy[len(busy)-1].At, LastSegments: 1}
	west := day(la)
	hours := make([]*Hours, 100)
	for i := range hours {
		hours[i] = west
	}
	got, hp := s.PlanHeld(now, hours, 1, busy)
	require.Len(t, hp.Order, 100)
	require.Zero(t, hp.Held, "Pacific is awake at 19:00")
	require.True(t, got.LastAt.Equal(s.LastAt), "the held block stays the number's latest")
	prev := time.Time{}
	for _, sl := range hp.Slots {
		require.True(t, sl.At.Before(eight), "this evening, not behind the morning's block: %s", sl.At)
		for _, b := range busy {
			clash := sl.At.Before(b.At.Add(time.Second)) && b.At.Before(sl.At.Add(time.Second))
			require.False(t, clash, "slot %s within busy %s", sl.At, b.At)
		}
		if !prev.IsZero() {
			require.GreaterOrEqual(t, sl.At.Sub(prev), time.Second, "pace")
		}
		prev = sl.At
	}
	require.True(t, hp.Slots[0].At.Equal(now), "the first goes at once")
}
