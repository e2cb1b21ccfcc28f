package outbound

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// Per pass: how many numbers it takes, and how many slots per number
// while a stalled number catches up.
const (
	numbersPerRun = 200
	catchUpSlots  = 500
)

// PumpArgs is the perpetual pump job of versions before the Dispatcher
// (Slot named which). Its worker now runs one pass and ends the job, so a
// database upgraded under running pumps retires them.
type PumpArgs struct {
	Slot int `json:"slot"`
}

// Kind names the job.
func (PumpArgs) Kind() string { return "messaging.pump" }

// InsertOpts puts the job in the engine's queue.
func (PumpArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: Queue} }

// KickArgs runs one pass now: a send whose first slot is due kicks one,
// so its texts leave without waiting for a loop to wake, on whichever
// node River hands the job to.
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

// stagger spaces the loops' wake-ups: loop i wakes i × stagger after the
// instant a number is due. The first loop is on time; the next takes what
// the first left (numbers another pass held, or more than a pass takes).
const stagger = 25 * time.Millisecond

// Pump runs one pass for loop slot and says when it should run again: now
// if it left due numbers behind, else the earliest instant a number is due
// (staggered by slot), but no later than MaxWait from now.
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
	if next.IsZero() || next.After(now.Add(MaxWait)) {
		return now.Add(MaxWait), nil
	}
	return later(next.Add(-s.Lead), now).Add(offset), nil
}

// Pass hands over, in one transaction, what every due number may hand over
// now: it locks up to numbersPerRun numbers whose turn has come (skipping
// those another pump holds), releases their slots by their schedules,
// hands the texts over, and moves each schedule on. It reports whether
// more numbers were due than it took.
func (s *Service) Pass(ctx context.Context) (more bool, err error) {
	err = s.DB.Tx(ctx, func(ctx context.Context) error {
		pass := s.startPass()
		// Numbers due within the lead are taken now, their reads done
		// ahead, and each is handed over at its own turn (pass.turns): the
		// carrier never sees a text before its number's turn, and neither
		// the pass's own work nor another number's turn is added to the
		// wait.
		ns, err := s.Store.DueNumbers(ctx, pass.now.Add(s.Lead), numbersPerRun)
		if err != nil || len(ns) == 0 {
			return err
		}
		now := pass.now
		for _, n := range ns {
			now = later(now, n.NextAt)
		}
		pass.notBefore = now
		pass.turns = make(map[string]time.Time, len(ns))
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
				pass.turns[n.ID] = rel.Turn(n.NextAt, heads[n.ID], n.Schedule)
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
			sender = string(team.Number)
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
