package domain

import (
	"math"
	"time"
)

// Pacing. Every sending number has a throughput in SMS segments per second
// (a 10DLC long code 1, a toll-free number 3, a short code 100, ...). Its
// texts are planned into slots: a slot is one hand-over to the carrier, due
// at an instant, holding at most a window's worth of segments. Slots of a
// number are at least a Window apart (longer when a slot holds more than a
// window's worth: one long text on a slow number), so no half-open window
// of Window ever holds more than one slot, and the number never gets more
// than its throughput in any window.
//
// The plan alone is exact only if every slot is handed over on time. Jobs
// run a little late, and unevenly, so the hand-over has a guard of its own
// (Schedule.FreeAt): a number hands over again only once its previous
// hand-over's occupancy has passed, measured from when that hand-over
// finished. A late slot therefore delays the ones after it instead of
// bunching up with them.
//
// A number that stalled (a node died, the carrier was unreachable, or the
// test clock was moved forward) would otherwise crawl through its overdue
// slots one window at a time. Once its head slot is StallAfter late and its
// carrier queue has been idle as long, every overdue slot is released at
// once and the carrier's own queue paces them; FreeAt then moves on by
// their whole occupancy, so nothing new is handed over until that queue has
// drained.

// Window is the span in which a number never gets more than its throughput.
const Window = time.Second

// JoinMargin is how far ahead a number's latest planned slot must still be
// for a new send's texts to join it: far enough that no pump on any node
// can have handed it over yet.
const JoinMargin = 500 * time.Millisecond

// StallAfter is how late a number's head slot must be, with its carrier
// queue idle as long, before the number counts as stalled (see above).
const StallAfter = 30 * time.Second

// Pace is a throughput in SMS segments per second.
type Pace float64

// Valid reports whether p is a usable throughput.
func (p Pace) Valid() bool { return p > 0 && p <= MaxPace && !math.IsNaN(float64(p)) }

// MaxPace is the highest throughput a number may have (segments per second).
const MaxPace = 1000

// capacity is the segments one slot may hold: a window's worth.
func (p Pace) capacity() float64 { return float64(p) * Window.Seconds() }

// Occupancy is how long a hand-over of segments keeps the number busy: a
// window, or longer when the segments are more than a window's worth.
func (p Pace) Occupancy(segments int) time.Duration {
	us := math.Ceil(float64(segments) / float64(p) * 1e6) // whole microseconds, rounded up
	return max(Window, time.Duration(us)*time.Microsecond)
}

// PerSlot is how many texts of segments each one slot holds (at least one:
// a text longer than a window's worth gets a slot of its own).
func (p Pace) PerSlot(segments int) int {
	segments = max(segments, 1)
	return max(1, int(math.Floor(p.capacity()/float64(segments)+1e-9)))
}

// Schedule is one sending number's pacing state, kept in Postgres and
// changed only under the number's row lock.
type Schedule struct {
	Pace Pace
	// LastAt is when the latest planned slot is due (zero: none yet), and
	// LastSegments how many segments it holds.
	LastAt       time.Time
	LastSegments int
	// FreeAt is when the number may next hand over (the guard): the end of
	// the previous hand-over's occupancy, counted from when it finished.
	FreeAt time.Time
	// CatchUpUntil is set while a stalled number releases its overdue
	// slots: every slot due at or before it goes without the guard.
	CatchUpUntil time.Time
}

// Slot is one planned hand-over: texts [First, First+Count) of a send,
// Segments in all, due At.
type Slot struct {
	At       time.Time
	First    int
	Count    int
	Segments int
}

// Plan places count texts of segments each, in order, into the number's
// next slots, none earlier than now, and returns the new schedule. The
// first texts fill the latest planned slot if it has room and is still at
// least JoinMargin ahead; every other slot starts at the earliest instant
// the pace allows, so a number with work is never idle.
func (s Schedule) Plan(now time.Time, count, segments int) (Schedule, []Slot) {
	segments = max(segments, 1)
	per := s.Pace.PerSlot(segments)
	var slots []Slot
	i := 0
	if count > 0 && !s.LastAt.IsZero() && s.LastAt.After(now.Add(JoinMargin)) {
		room := int(math.Floor((s.Pace.capacity()-float64(s.LastSegments))/float64(segments) + 1e-9))
		if n := min(max(room, 0), count); n > 0 {
			slots = append(slots, Slot{At: s.LastAt, First: 0, Count: n, Segments: n * segments})
			s.LastSegments += n * segments
			i = n
		}
	}
	for i < count {
		at := ceilMicro(now)
		if !s.LastAt.IsZero() {
			at = later(at, s.LastAt.Add(s.Pace.Occupancy(s.LastSegments)))
		}
		at = later(at, s.FreeAt)
		n := min(per, count-i)
		slots = append(slots, Slot{At: at, First: i, Count: n, Segments: n * segments})
		s.LastAt, s.LastSegments = at, n*segments
		i += n
	}
	return s, slots
}

// Release is what a number may hand over now: every slot due at or before
// Upto (none when Upto is zero).
type Release struct {
	Upto time.Time
	// CatchUp is true when the slots go without the guard (the number stalled).
	CatchUp bool
}

// Release decides, for a number whose earliest unsent slot is due at head
// (zero: none), what it may hand over now and returns the schedule with
// its catch-up horizon updated. Normally that is the head slot alone, once
// it is due and the guard allows; a stalled number releases every overdue
// slot (see the package comment).
func (s Schedule) Release(now, head time.Time) (Schedule, Release) {
	switch {
	case head.IsZero():
		s.CatchUpUntil = time.Time{}
		return s, Release{}
	case !s.CatchUpUntil.IsZero() && !head.After(s.CatchUpUntil):
		return s, Release{Upto: s.CatchUpUntil, CatchUp: true}
	case head.After(now) || now.Before(s.FreeAt):
		s.CatchUpUntil = time.Time{}
		return s, Release{}
	case now.Sub(head) >= StallAfter && now.Sub(s.FreeAt) >= StallAfter:
		s.CatchUpUntil = now
		return s, Release{Upto: now, CatchUp: true}
	}
	s.CatchUpUntil = time.Time{}
	return s, Release{Upto: head}
}

// Turn is the earliest instant a released hand-over may reach the
// carrier, for a number looked at for its turn due (its stored next look)
// whose head slot is due at head, under schedule s as it was before
// Release: the head's instant and the guard's, or at once for a catch-up.
// A pass that took several numbers hands each over at its own Turn.
func (r Release) Turn(due, head time.Time, s Schedule) time.Time {
	if r.CatchUp {
		return due
	}
	return later(later(due, head), s.FreeAt)
}

// HandedOver records a hand-over of segments that finished at done: the
// guard frees the number once their occupancy has passed (after whatever
// the number had handed over before, for catch-up hand-overs in a row).
func (s Schedule) HandedOver(done time.Time, segments int) Schedule {
	s.FreeAt = later(s.FreeAt, done).Add(s.Pace.Occupancy(segments))
	return s
}

// Backoff keeps the number from handing over before until (a carrier that
// asked to slow down, or could not be reached).
func (s Schedule) Backoff(until time.Time) Schedule {
	s.FreeAt = later(s.FreeAt, ceilMicro(until))
	return s
}

// NextAt is when a pump should next look at the number, given its earliest
// unsent slot head (zero: none, and NextAt is zero too).
func (s Schedule) NextAt(head time.Time) time.Time {
	if head.IsZero() {
		return time.Time{}
	}
	if !s.CatchUpUntil.IsZero() && !head.After(s.CatchUpUntil) {
		return head
	}
	return later(head, s.FreeAt)
}

// Finish is when the number's latest planned slot is due: the hand-over of
// its last planned text (zero when nothing was ever planned).
func (s Schedule) Finish() time.Time { return s.LastAt }

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// ceilMicro rounds t up to Postgres's precision, so an instant that went
// through the database is never earlier than the one computed.
func ceilMicro(t time.Time) time.Time {
	r := t.Truncate(time.Microsecond)
	if r.Before(t) {
		r = r.Add(time.Microsecond)
	}
	return r
}
