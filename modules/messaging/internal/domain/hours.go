package domain

import (
	"math"
	"sort"
	"time"
)

// Quiet hours. A team may keep routine texts out of its recipients'
// nights: a text is handed over only while its recipient's Hours allow,
// in the recipient's own time. Hours are the complement of the team's
// quiet window (21:00–08:00 by default, so 08:00–21:00), in each of the
// recipient's zones: one zone when the member set theirs, otherwise every
// zone of the number's area code (libphonenumber's map), whose windows
// must all allow — their intersection — falling back to the team's zone
// when they never overlap (a toll-free number spans the continent).
//
// The planner (Schedule.PlanHeld) walks the number's slots forward in
// time as Plan does, and fills each slot only with texts whose Hours
// allow its instant; when none does, it jumps to the earliest opening.
// So no text is planned inside its recipient's night, the pace holds at
// the window's opening as anywhere else, and texts whose window is open
// keep going while others wait.

// Hours is when routine texts may reach one recipient: every day from
// Open to Close (minutes after local midnight; Close < Open spans
// midnight), in every one of Zones.
type Hours struct {
	Open, Close int
	Zones       []*time.Location
	// Guard keeps the plan this far from the window's close: a slot is
	// handed over a little late (a busy node, a slow carrier), and a text
	// planned at 20:59:59 must not reach the carrier at 21:00:02.
	Guard time.Duration
}

// QuietGuard is the Guard the planner keeps before a quiet window.
const QuietGuard = time.Minute

// plannable reports whether a text may be planned at t: the window allows
// t and still allows it Guard later.
func (h Hours) plannable(t time.Time) bool {
	return h.Allows(t) && (h.Guard == 0 || h.Allows(t.Add(h.Guard)))
}

// minutesOf is t's local time of day in loc, in minutes.
func minutesOf(t time.Time, loc *time.Location) int {
	l := t.In(loc)
	return l.Hour()*60 + l.Minute()
}

// allowsIn reports whether local time of day m is inside [Open, Close).
func (h Hours) allowsIn(m int) bool {
	if h.Open < h.Close {
		return m >= h.Open && m < h.Close
	}
	return m >= h.Open || m < h.Close
}

// Allows reports whether a text may be handed over at t.
func (h Hours) Allows(t time.Time) bool {
	for _, z := range h.Zones {
		if !h.allowsIn(minutesOf(t, z)) {
			return false
		}
	}
	return true
}

// edges are the instants around t at which the window opens (open) or
// closes (!open) in zone z: the local times Open or Close of the days
// before, of, and after t's local date. An edge inside the hour that
// spring's clock change skips is the first instant after the gap.
func (h Hours) edges(t time.Time, z *time.Location, open bool) []time.Time {
	at := h.Close
	if open {
		at = h.Open
	}
	l := t.In(z)
	out := make([]time.Time, 0, 4)
	for d := -1; d <= 2; d++ {
		e := time.Date(l.Year(), l.Month(), l.Day()+d, at/60, at%60, 0, 0, z)
		if minutesOf(e, z) != at {
			// The local time does not exist that day (the clocks went
			// forward over it): the edge is the first instant after the
			// gap, when the new offset starts.
			start, end := e.ZoneBounds()
			if minutesOf(e, z) < at && !end.IsZero() {
				e = end
			} else if !start.IsZero() {
				e = start
			}
		}
		out = append(out, e)
	}
	return out
}

// NextOpen is the earliest instant at or after t at which Hours allow a
// text (t itself when they do), and false when they never do in the next
// two days (zones whose windows never overlap).
func (h Hours) NextOpen(t time.Time) (time.Time, bool) {
	if h.Allows(t) {
		return t, true
	}
	var cands []time.Time
	for _, z := range h.Zones {
		for _, e := range h.edges(t, z, true) {
			if e.After(t) {
				cands = append(cands, e)
			}
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].Before(cands[j]) })
	for _, c := range cands {
		if h.Allows(c) {
			return c, true
		}
	}
	return time.Time{}, false
}

// OpenUntil is when the window that allows t closes (the earliest close
// after t in any zone); zero when Hours do not allow t.
func (h Hours) OpenUntil(t time.Time) time.Time {
	if !h.Allows(t) {
		return time.Time{}
	}
	var first time.Time
	for _, z := range h.Zones {
		for _, e := range h.edges(t, z, false) {
			if e.After(t) && (first.IsZero() || e.Before(first)) {
				first = e
			}
		}
	}
	return first
}

// Overlap reports whether Hours ever allow a text (their zones' windows
// overlap), looking one day ahead of t.
func (h Hours) Overlap(t time.Time) bool {
	_, ok := h.NextOpen(t)
	return ok
}

// Busy is a slot already planned on the number: due At, Segments in all
// (the slots of every send due then). PlanHeld keeps clear of them.
type Busy struct {
	At       time.Time
	Segments int
}

// HeldPlan is a plan under quiet hours: the slots over the texts in Order
// (Order[k] is the index, in the send's order, of the k-th text handed
// over; a slot's First and Count index Order), and when each held text
// (by index in the send's order) was held until; zero for texts not held.
type HeldPlan struct {
	Slots     []Slot
	Order     []int
	HeldUntil []time.Time
	Held      int
}

// PlanHeld places texts of segments each into the number's next slots, as
// Plan does, but a text goes only into a slot its recipient's Hours
// (hours[i] for text i; texts sharing Hours should share the pointer)
// allow, Guard before their close included. Texts keep their order among those whose windows are open; when
// no waiting text may go at a slot's instant, the plan jumps to the
// earliest opening among them. Texts whose Hours never allow (see
// Overlap: the caller resolves those to the team's zone) go at once.
//
// busy are the number's slots already planned from now on, earliest
// first: when given, the plan starts from now and places each slot where
// a full slot's span is clear of them (the pace kept on both sides), so
// a send whose recipients are awake goes before texts held for the
// morning; the number's LastAt stays its latest slot.
func (s Schedule) PlanHeld(now time.Time, hours []*Hours, segments int, busy []Busy) (Schedule, HeldPlan) {
	segments = max(segments, 1)
	per := s.Pace.PerSlot(segments)
	count := len(hours)
	hp := HeldPlan{Order: make([]int, 0, count), HeldUntil: make([]time.Time, count)}
	// Texts sharing Hours form a class, each a queue in send order.
	type class struct {
		h    *Hours
		idx  []int
		next int
		// The window at now: shut, or open until end. A text is held when
		// its window was shut at now, or closed between now and its slot.
		shut bool
		end  time.Time
	}
	var classes []*class
	byHours := map[*Hours]*class{}
	for i, h := range hours {
		c, ok := byHours[h]
		if !ok {
			c = &class{h: h}
			if h != nil && !h.Overlap(now) {
				c.h = nil // windows that never overlap do not hold
			}
			if c.h != nil {
				c.shut, c.end = !c.h.Allows(now), c.h.OpenUntil(now)
			}
			byHours[h] = c
			classes = append(classes, c)
		}
		c.idx = append(c.idx, i)
	}
	open := func(c *class, at time.Time) bool { return c.h == nil || c.h.plannable(at) }
	held := func(i int, at time.Time) bool {
		c := byHours[hours[i]]
		return c.h != nil && (c.shut || (!c.end.IsZero() && !at.Before(c.end)))
	}
	// fill takes up to n waiting texts open at at, in send order; each
	// class's window is asked once per slot, not once per text.
	isOpen := make([]bool, len(classes))
	fill := func(at time.Time, n int) []int {
		for k, c := range classes {
			isOpen[k] = c.next < len(c.idx) && open(c, at)
		}
		got := make([]int, 0, n)
		for len(got) < n {
			best := -1
			for k, c := range classes {
				if isOpen[k] && c.next < len(c.idx) && (best < 0 || c.idx[c.next] < classes[best].idx[classes[best].next]) {
					best = k
				}
			}
			if best < 0 {
				break
			}
			c := classes[best]
			got = append(got, c.idx[c.next])
			c.next++
		}
		return got
	}
	place := func(at time.Time, texts []int) {
		first := len(hp.Order)
		hp.Order = append(hp.Order, texts...)
		hp.Slots = append(hp.Slots, Slot{At: at, First: first, Count: len(texts), Segments: len(texts) * segments})
		for _, i := range texts {
			if held(i, at) {
				hp.HeldUntil[i] = at
				hp.Held++
			}
		}
	}
	// Without busy slots the plan goes after the number's latest slot, as
	// Plan does (joining it when it has room). With them, it starts from
	// now and fits between them: a text awake now need not wait behind
	// texts held for the morning.
	prevAt, prevSeg := s.LastAt, s.LastSegments
	if len(busy) > 0 {
		prevAt, prevSeg = time.Time{}, 0
	} else if count > 0 && !s.LastAt.IsZero() && s.LastAt.After(now.Add(JoinMargin)) {
		room := int(math.Floor((s.Pace.capacity()-float64(s.LastSegments))/float64(segments) + 1e-9))
		if texts := fill(s.LastAt, min(max(room, 0), count)); len(texts) > 0 {
			place(s.LastAt, texts)
			s.LastSegments += len(texts) * segments
			prevSeg = s.LastSegments
		}
	}
	need := s.Pace.Occupancy(per * segments) // a full slot's span, kept clear of busy ones
	k := 0                                   // busy slots before k end by the current instant
	clear := func(at time.Time) time.Time {
		for ; k < len(busy); k++ {
			b := busy[k]
			end := b.At.Add(s.Pace.Occupancy(b.Segments))
			if !end.After(at) {
				continue // over before at
			}
			if !at.Add(need).After(b.At) {
				break // at's slot ends before b starts
			}
			at = end
		}
		return at
	}
	for len(hp.Order) < count {
		at := ceilMicro(now)
		if !prevAt.IsZero() {
			at = later(at, prevAt.Add(s.Pace.Occupancy(prevSeg)))
		}
		at = later(at, s.FreeAt)
		var texts []int
		for {
			at = ceilMicro(clear(at))
			if texts = fill(at, per); len(texts) > 0 {
				break
			}
			// Nobody waiting may go now: on to the earliest opening.
			var next time.Time
			for _, c := range classes {
				if c.next == len(c.idx) {
					continue
				}
				o, ok := c.h.NextOpen(at)
				if ok && !c.h.plannable(o) { // inside the guard before a close: the next window
					if end := c.h.OpenUntil(o); !end.IsZero() {
						o, ok = c.h.NextOpen(end)
					}
				}
				if ok && (next.IsZero() || o.Before(next)) {
					next = o
				}
			}
			if !next.After(at) { // never: every waiting class opens later (the others are always open)
				for _, c := range classes {
					c.h = nil
				}
				continue
			}
			at = next
		}
		place(at, texts)
		prevAt, prevSeg = at, len(texts)*segments
		if !at.Before(s.LastAt) {
			s.LastAt, s.LastSegments = at, prevSeg
		}
	}
	return s, hp
}
