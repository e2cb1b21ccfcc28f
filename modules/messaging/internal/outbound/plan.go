package outbound

import (
	"context"
	"sort"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
)

// FanoutBatch is how many texts one fan-out job hands over, when the
// carrier does not pace.
const FanoutBatch = 100

// SendPlan is an accepted send to plan.
type SendPlan struct {
	Team      rosterapi.Team
	MessageID string
	Phones    []string // the recipients, by position: Phones[i] is position i+1
	Segments  int      // per text
	// Urgent plans the texts ahead of the team's queued texts that are not
	// urgent, on the numbers they go from (an urgent alert: see Plan).
	Urgent bool
}

// Planned is what Plan planned: when the last text reaches the carrier,
// and the texts held for their recipients' quiet hours.
type Planned struct {
	Finish time.Time
	Held   []Hold
}

// Hold is a text held for quiet hours: its position in the send and the
// instant its slot is due.
type Hold struct {
	Seq   int32
	Until time.Time
}

// Plan plans an accepted send, in the caller's transaction, and returns
// when its last text is planned to reach the carrier. On a pacing carrier
// each number's texts go into its next slots (see the package comment); a
// slot due now kicks a pump. On a carrier that does not pace, the send is
// cut into fan-out jobs that run at once.
//
// With the team's quiet hours on, a routine (not urgent) send's texts are
// planned by Schedule.PlanHeld: each only at an instant its recipient's
// Hours allow (hoursOf), the others held for the first slot after their
// window opens.
//
// An urgent send's texts go into each number's earliest slots instead:
// behind the urgent slots already queued there (urgent sends go in the
// order they were accepted), ahead of every other queued slot, which move
// later, together, by as much as the urgent texts need (planUrgent).
func (s *Service) Plan(ctx context.Context, p SendPlan) (Planned, error) {
	now := s.Clock.Now().UTC()
	if len(p.Phones) == 0 {
		return Planned{Finish: now}, nil
	}
	numbers, err := s.teamNumbers(ctx, p.Team, true)
	if err != nil {
		return Planned{}, err
	}
	if len(numbers) == 0 {
		return Planned{}, errNoSender
	}
	paced, err := s.Carrier.Paced(ctx)
	if err != nil {
		return Planned{}, err
	}
	var hours []*domain.Hours
	if paced && !p.Urgent {
		if hours, err = s.hoursOf(ctx, p.Team.ID, p.Team.TimeZone, p.Phones, now); err != nil {
			return Planned{}, err
		}
	}
	var queued map[string]Queued
	var busy map[string][]domain.Busy
	if paced {
		ids := make([]string, len(numbers))
		for i, n := range numbers {
			ids[i] = n.ID
		}
		if numbers, err = s.Store.LockNumbers(ctx, ids); err != nil {
			return Planned{}, err
		}
		s.withPace(numbers)
		if p.Urgent {
			if queued, err = s.Store.Queues(ctx, ids); err != nil {
				return Planned{}, err
			}
		}
		if hours != nil {
			if busy, err = s.Store.Busy(ctx, ids, now); err != nil {
				return Planned{}, err
			}
		}
	}
	// An urgent send's recipients are spread by when each number's urgent
	// queue ends, not its whole backlog.
	view := numbers
	if queued != nil {
		view = make([]Number, len(numbers))
		for i, n := range numbers {
			view[i] = n
			view[i].Schedule = urgentSchedule(n, queued[n.ID])
		}
	}
	seqs, err := s.assign(ctx, p.Team.ID, view, p.Phones, p.Segments, now)
	if err != nil {
		return Planned{}, err
	}
	if !paced {
		return Planned{Finish: now}, s.fanout(ctx, p.MessageID, numbers, seqs)
	}
	var slots []NewSlot
	var updates []ScheduleUpdate
	var shifts []Shift
	var out Planned
	kick := false
	for _, n := range numbers {
		mine := seqs[n.ID]
		if len(mine) == 0 {
			continue
		}
		var sched domain.Schedule
		var planned []domain.Slot
		switch {
		case p.Urgent:
			var by time.Duration
			sched, planned, by = planUrgent(n, queued[n.ID], now, len(mine), p.Segments)
			if by > 0 {
				shifts = append(shifts, Shift{NumberID: n.ID, By: by})
			}
		case hours != nil:
			var hp domain.HeldPlan
			sched, hp = n.Schedule.PlanHeld(now, hoursFor(hours, mine), p.Segments, busy[n.ID])
			planned = hp.Slots
			ordered := make([]int32, len(mine))
			for k, i := range hp.Order {
				ordered[k] = mine[i]
				if until := hp.HeldUntil[i]; !until.IsZero() {
					out.Held = append(out.Held, Hold{Seq: mine[i], Until: until})
					if s.HoldDuration != nil {
						s.HoldDuration.Observe(until.Sub(now).Seconds())
					}
				}
			}
			mine = ordered
		default:
			sched, planned = n.Schedule.Plan(now, len(mine), p.Segments)
		}
		for _, sl := range planned {
			slots = append(slots, NewSlot{NumberID: n.ID, MessageID: p.MessageID, DueAt: sl.At,
				Seqs: mine[sl.First : sl.First+sl.Count], Segments: sl.Segments, Urgent: p.Urgent})
			kick = kick || !sl.At.After(now.Add(domain.JoinMargin))
		}
		next := sched.NextAt(planned[0].At)
		if !n.NextAt.IsZero() && n.NextAt.Before(next) {
			next = n.NextAt // an earlier look finds nothing due and looks again when the head is
		}
		updates = append(updates, ScheduleUpdate{NumberID: n.ID, Schedule: sched, NextAt: next,
			BacklogDelta: int64(len(mine) * p.Segments)})
		out.Finish = later(out.Finish, planned[len(planned)-1].At)
	}
	if err := s.Store.ShiftSlots(ctx, shifts); err != nil {
		return Planned{}, err
	}
	if err := s.Store.InsertSlots(ctx, slots); err != nil {
		return Planned{}, err
	}
	if err := s.Store.SaveSchedules(ctx, updates); err != nil {
		return Planned{}, err
	}
	if kick {
		if _, err := s.Jobs.Insert(ctx, KickArgs{}, nil); err != nil {
			return Planned{}, err
		}
	}
	return out, nil
}

// hoursFor are the Hours of a number's texts, by their positions (1-based).
func hoursFor(hours []*domain.Hours, seqs []int32) []*domain.Hours {
	out := make([]*domain.Hours, len(seqs))
	for k, seq := range seqs {
		out[k] = hours[seq-1]
	}
	return out
}

// urgentSchedule is the schedule an urgent send is planned on, for a
// number with queue q: its latest slot is the latest urgent one (none when
// only other texts are queued), so the send goes right behind the urgent
// sends before it. Every slot that is not urgent moves out of the way
// (planUrgent). With nothing but urgent slots queued, it is the number's
// own schedule. Either way the guard (FreeAt) keeps the send from the
// number's previous hand-over's occupancy.
func urgentSchedule(n Number, q Queued) domain.Schedule {
	u := n.Schedule
	if !q.FirstAt.IsZero() {
		u.LastAt, u.LastSegments = q.UrgentLastAt, q.UrgentLastSegments
	}
	return u
}

// planUrgent plans count urgent texts on number n, whose queue is q, and
// returns the number's new schedule, the urgent slots, and how much later
// its queued slots that are not urgent must go: as a block, so they keep
// their pace among themselves, the first one a whole occupancy after the
// last urgent slot. The number's latest slot is then the last of those,
// moved.
//
// Nothing handed over moves: the caller holds the number's lock, which a
// pass holds from choosing the number's slots until it has deleted them,
// so every slot still there is one no pass has taken.
func planUrgent(n Number, q Queued, now time.Time, count, segments int) (domain.Schedule, []domain.Slot, time.Duration) {
	sched, planned := urgentSchedule(n, q).Plan(now, count, segments)
	if q.FirstAt.IsZero() {
		return sched, planned, 0
	}
	end := sched.LastAt.Add(sched.Pace.Occupancy(sched.LastSegments))
	by := max(end.Sub(q.FirstAt), 0)
	sched.LastAt, sched.LastSegments = n.Schedule.LastAt.Add(by), n.Schedule.LastSegments
	return sched, planned, by
}

var errNoSender = fault.New(fault.Conflict, domain.CodeNoSender, "the team has no phone number to send from")

// Completion estimates, without planning anything, when the last of a
// send's texts would reach the carrier if it were sent now, given the
// numbers' backlogs and pace, and (unless urgent) quiet hours.
func (s *Service) Completion(ctx context.Context, team rosterapi.Team, phones []string, segments int, urgent bool) (Estimate, error) {
	now := s.Clock.Now().UTC()
	if len(phones) == 0 {
		return Estimate{Finish: now}, nil
	}
	numbers, err := s.teamNumbers(ctx, team, false)
	if err != nil {
		return Estimate{}, err
	}
	if len(numbers) == 0 {
		return Estimate{}, errNoSender
	}
	if paced, err := s.Carrier.Paced(ctx); err != nil || !paced {
		return Estimate{Finish: now}, err
	}
	var hours []*domain.Hours
	var busy map[string][]domain.Busy
	if !urgent {
		if hours, err = s.hoursOf(ctx, team.ID, team.TimeZone, phones, now); err != nil {
			return Estimate{}, err
		}
	}
	if hours != nil {
		ids := make([]string, len(numbers))
		for i, n := range numbers {
			ids[i] = n.ID
		}
		if busy, err = s.Store.Busy(ctx, ids, now); err != nil {
			return Estimate{}, err
		}
	}
	seqs, err := s.assign(ctx, team.ID, numbers, phones, segments, now)
	if err != nil {
		return Estimate{}, err
	}
	var est Estimate
	for _, n := range numbers {
		mine := seqs[n.ID]
		if len(mine) == 0 {
			continue
		}
		var sched domain.Schedule
		if hours != nil {
			var hp domain.HeldPlan
			sched, hp = n.Schedule.PlanHeld(now, hoursFor(hours, mine), segments, busy[n.ID])
			est.Held += hp.Held
		} else {
			sched, _ = n.Schedule.Plan(now, len(mine), segments)
		}
		est.Finish = later(est.Finish, sched.Finish())
	}
	return est, nil
}

// Estimate is what Completion estimates: when the last text would reach
// the carrier, and how many texts quiet hours would hold.
type Estimate struct {
	Finish time.Time
	Held   int
}

// assign gives each recipient a sending number and returns each number's
// positions, in order. With one number it sends everything. With several,
// a recipient keeps the number that texted them before (so replies land in
// the same thread), and a new recipient gets the number that would finish
// its share soonest, given its backlog and pace.
func (s *Service) assign(ctx context.Context, teamID string, numbers []Number, phones []string, segments int, now time.Time) (map[string][]int32, error) {
	out := make(map[string][]int32, len(numbers))
	if len(numbers) == 1 {
		all := make([]int32, len(phones))
		for i := range all {
			all[i] = int32(i + 1)
		}
		out[numbers[0].ID] = all
		return out, nil
	}
	sticky, err := s.Store.Senders(ctx, teamID, phones)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]int, len(numbers))
	finish := make([]time.Time, len(numbers)) // when each number's planned work would end
	for i, n := range numbers {
		byID[n.ID] = i
		finish[i] = now
		if !n.Schedule.LastAt.IsZero() {
			finish[i] = later(finish[i], n.Schedule.LastAt.Add(n.Schedule.Pace.Occupancy(n.Schedule.LastSegments)))
		}
		finish[i] = later(finish[i], n.Schedule.FreeAt)
	}
	chosen := make([]string, len(phones))
	for i, ph := range phones {
		k, ok := byID[sticky[ph]]
		if !ok {
			k = 0
			for j := range numbers {
				if finish[j].Before(finish[k]) {
					k = j
				}
			}
		}
		n := numbers[k]
		finish[k] = finish[k].Add(time.Duration(float64(segments) / float64(n.Schedule.Pace) * float64(time.Second)))
		out[n.ID] = append(out[n.ID], int32(i+1))
		chosen[i] = n.ID
	}
	return out, s.Store.SetSenders(ctx, teamID, phones, chosen)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// fanout cuts an unpaced send into jobs of FanoutBatch texts per number.
func (s *Service) fanout(ctx context.Context, messageID string, numbers []Number, seqs map[string][]int32) error {
	var params []river.InsertManyParams
	sort.Slice(numbers, func(i, j int) bool { return numbers[i].ID < numbers[j].ID })
	for _, n := range numbers {
		mine := seqs[n.ID]
		for i := 0; i < len(mine); i += FanoutBatch {
			part := mine[i:min(i+FanoutBatch, len(mine))]
			a := FanoutArgs{MessageID: messageID, Sender: n.Number}
			if int(part[len(part)-1]-part[0]) == len(part)-1 { // contiguous positions
				a.From, a.To = int(part[0]), int(part[len(part)-1])
			} else {
				a.Seqs = part
			}
			params = append(params, river.InsertManyParams{Args: a})
		}
	}
	return s.Jobs.InsertMany(ctx, params)
}
