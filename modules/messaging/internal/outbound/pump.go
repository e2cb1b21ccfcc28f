package outbound

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// Pumps is how many pumps share the hand-over work. Several, so that a
// node that dies while running one leaves the others working: the dead
// pump's transaction rolls back, its numbers are free again, and River
// rescues its job after JOB_RESCUE_AFTER.
const Pumps = 4

// MaxSnooze is the longest a pump waits before looking again, even with
// nothing planned; it bounds how long a send whose kick was lost waits.
const MaxSnooze = time.Second

// Per pump run: how many numbers it takes, and how many slots per number
// while a stalled number catches up.
const (
	numbersPerRun = 200
	catchUpSlots  = 500
)

// PumpArgs is one of the Pumps perpetual pumps; Slot names which.
type PumpArgs struct {
	Slot int `json:"slot"`
}

// Kind names the job.
func (PumpArgs) Kind() string { return "messaging.pump" }

// InsertOpts keeps one job per pump slot alive (a pump never completes: it
// snoozes), in the engine's queue.
func (PumpArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable, rivertype.JobStateRunning,
		rivertype.JobStateScheduled,
	}}}
}

// KickArgs runs one pump pass now: a send whose first slot is due kicks
// one, so its texts leave without waiting for a pump to wake.
type KickArgs struct{}

// Kind names the job.
func (KickArgs) Kind() string { return "messaging.pump_kick" }

// InsertOpts puts the job in the engine's queue.
func (KickArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: Queue} }

// FanoutArgs hands a batch of a send's deliveries to a carrier that does
// not pace: positions From..To (inclusive), or Seqs when given, from
// Sender (empty in jobs from before sending numbers: the team's number).
type FanoutArgs struct {
	MessageID string  `json:"message_id"`
	From      int     `json:"from"`
	To        int     `json:"to"`
	Seqs      []int32 `json:"seqs,omitempty"`
	Sender    string  `json:"sender,omitempty"`
}

// Kind names the job.
func (FanoutArgs) Kind() string { return "messaging.fanout" }

// InsertOpts puts the job in the engine's queue.
func (FanoutArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: Queue} }

// EnsurePumps inserts the pumps that are missing (each is unique). Every
// node calls it at start, and the leader every minute.
func (s *Service) EnsurePumps(ctx context.Context) error {
	params := make([]river.InsertManyParams, Pumps)
	for i := range params {
		params[i] = river.InsertManyParams{Args: PumpArgs{Slot: i}}
	}
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		for _, p := range params { // one at a time: unique inserts skip the pumps that exist
			if _, err := s.Jobs.Insert(ctx, p.Args, nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// stagger spaces the pumps' wake-ups: pump i wakes i × stagger after the
// instant a number is due. The first pump is on time; the others, woken
// one by one, are fetched by whichever node polls first, so the pumps do
// not all end up running on one node (whose death would leave none).
const stagger = 25 * time.Millisecond

// Pump runs one pass for pump slot and says when it should run again: now
// if it left due numbers behind, else the earliest instant a number is due
// (staggered by slot), but no later than MaxSnooze from now.
func (s *Service) Pump(ctx context.Context, slot int) (time.Time, error) {
	more, err := s.Pass(ctx)
	if err != nil {
		return time.Time{}, err
	}
	now := s.Clock.Now()
	if more {
		return now, nil
	}
	next, err := s.Store.NextWake(ctx)
	if err != nil {
		return time.Time{}, err
	}
	offset := time.Duration(slot) * stagger
	if next.IsZero() || next.After(now.Add(MaxSnooze)) {
		return now.Add(MaxSnooze + offset), nil
	}
	return later(next, now).Add(offset), nil
}

// Pass hands over, in one transaction, what every due number may hand over
// now: it locks up to numbersPerRun numbers whose turn has come (skipping
// those another pump holds), releases their slots by their schedules,
// hands the texts over, and moves each schedule on. It reports whether
// more numbers were due than it took.
func (s *Service) Pass(ctx context.Context) (more bool, err error) {
	err = s.DB.Tx(ctx, func(ctx context.Context) error {
		pass := s.startPass()
		now := pass.now
		ns, err := s.Store.DueNumbers(ctx, now, numbersPerRun)
		if err != nil || len(ns) == 0 {
			return err
		}
		more = len(ns) == numbersPerRun
		s.withPace(ns)
		ids := make([]string, len(ns))
		for i, n := range ns {
			ids[i] = n.ID
		}
		heads, err := s.Store.Heads(ctx, ids)
		if err != nil {
			return err
		}
		scheds := make(map[string]domain.Schedule, len(ns))
		var dues []Due
		for _, n := range ns {
			sched, rel := n.Schedule.Release(now, heads[n.ID])
			scheds[n.ID] = sched
			if !rel.Upto.IsZero() {
				dues = append(dues, Due{NumberID: n.ID, Upto: rel.Upto, Limit: catchUpSlots})
			}
		}
		slots, err := s.Store.DueSlots(ctx, dues)
		if err != nil {
			return err
		}
		res, err := s.handOverSlots(ctx, ns, slots, pass)
		if err != nil {
			return err
		}
		var done []int64
		handedBy := map[string]int64{}
		for _, sl := range slots {
			if !res.retry[sl.ID] {
				done = append(done, sl.ID)
				handedBy[sl.NumberID] += int64(sl.Segments)
			}
		}
		if err := s.Store.DeleteSlots(ctx, done); err != nil {
			return err
		}
		if heads, err = s.Store.Heads(ctx, ids); err != nil {
			return err
		}
		updates := make([]ScheduleUpdate, len(ns))
		for i, n := range ns {
			sched := scheds[n.ID]
			if segs := res.segments[n.ID]; segs > 0 {
				sched = sched.HandedOver(res.done[n.ID], segs)
			}
			if until, ok := res.busy[n.ID]; ok {
				sched = sched.Backoff(until)
			}
			head := heads[n.ID]
			if head.IsZero() || (!sched.CatchUpUntil.IsZero() && head.After(sched.CatchUpUntil)) {
				sched.CatchUpUntil = time.Time{}
			}
			updates[i] = ScheduleUpdate{NumberID: n.ID, Schedule: sched, NextAt: sched.NextAt(head), BacklogDelta: -handedBy[n.ID]}
		}
		return s.Store.SaveSchedules(ctx, updates)
	})
	return more, err
}

// handOverSlots hands over the texts of slots, each from its number.
func (s *Service) handOverSlots(ctx context.Context, ns []Number, slots []Slot, pass passClock) (handedOver, error) {
	if len(slots) == 0 {
		return handedOver{}, nil
	}
	from := make(map[string]string, len(ns))
	for _, n := range ns {
		from[n.ID] = n.Number
	}
	var refs []TextRef
	numberOf := make(map[int64]string, len(slots))
	for _, sl := range slots {
		numberOf[sl.ID] = sl.NumberID
		for _, q := range sl.Seqs {
			refs = append(refs, TextRef{SlotID: sl.ID, MessageID: sl.MessageID, Seq: q})
		}
	}
	texts, err := s.Store.QueuedTexts(ctx, refs)
	if err != nil {
		return handedOver{}, err
	}
	out := make([]outgoing, len(texts))
	for i, t := range texts {
		num := numberOf[t.SlotID]
		out[i] = outgoing{Text: t, NumberID: num, From: from[num]}
	}
	return s.handOver(ctx, out, pass)
}

// Fanout is an unpaced send's batch job: it hands the batch over at once
// and commits what the carrier took; texts it could not take make the job
// fail, for River to retry (those already taken are not sent again).
func (s *Service) Fanout(ctx context.Context, a FanoutArgs) error {
	refs := make([]TextRef, 0, max(len(a.Seqs), a.To-a.From+1))
	for _, q := range a.Seqs {
		refs = append(refs, TextRef{MessageID: a.MessageID, Seq: q})
	}
	if len(a.Seqs) == 0 {
		for q := a.From; q <= a.To; q++ {
			refs = append(refs, TextRef{MessageID: a.MessageID, Seq: int32(q)})
		}
	}
	var transient error
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		pass := s.startPass()
		texts, err := s.Store.QueuedTexts(ctx, refs)
		if err != nil || len(texts) == 0 {
			return err
		}
		sender := a.Sender
		if sender == "" {
			team, err := s.Teams.Team(ctx, texts[0].TeamID)
			if err != nil {
				return err
			}
			sender = team.Number
		}
		out := make([]outgoing, len(texts))
		for i, t := range texts {
			out[i] = outgoing{Text: t, From: sender}
		}
		res, err := s.handOver(ctx, out, pass)
		transient = res.transient
		return err
	})
	if err != nil {
		return err
	}
	if transient != nil {
		return fmt.Errorf("fan-out of %s: %w", a.MessageID, transient)
	}
	return nil
}
