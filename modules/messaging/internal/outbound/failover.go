package outbound

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// Failover moves queued texts off a carrier account that is down.
//
// A carrier account whose breaker opened on some node has a row in
// Postgres (the carrier router writes it, and deletes it at the first
// successful call). Once an account has been down for FailoverAfter, each
// team that turned carrier_failover on and has a number on an account with
// no outage gets its queued texts on the down account's numbers moved to
// those healthy numbers: the slots are taken off the down numbers and
// planned again on the healthy ones, at their pace, none earlier than it
// was planned (a text held for quiet hours stays held), urgent texts
// first. The sticky sender is not rewritten, so once the account is back
// new sends go from the number each recipient knows; the delivery records
// the number that did send it.
//
// A pass runs about once a second on every node; one at a time across the
// nodes holds an advisory lock, and it takes the team's numbers' locks in
// id order, as planning does, so a hand-over pass never sees a slot move
// under it.

// FailoverEvery is how often each node looks for texts to move.
const FailoverEvery = time.Second

// OutageFresh is how recent an account's latest failure must be for its
// outage to count: a row that no node has confirmed for this long (its
// numbers had nothing left to try) is not acted on.
const OutageFresh = 30 * time.Second

// FailoverTeam is a team with texts to move: its numbers on an account
// that is down with texts queued, and its numbers on healthy accounts.
type FailoverTeam struct {
	TeamID  string
	Down    []string
	Healthy []string
}

// QueuedSlot is a planned hand-over taken off a number to plan again.
type QueuedSlot struct {
	ID        int64
	NumberID  string
	MessageID string
	DueAt     time.Time
	Seqs      []int32
	Segments  int
	Urgent    bool
	Head      bool // the number's earliest slot, which stays
}

// FailoverStore is what failover needs of the database, in the caller's
// transaction.
type FailoverStore interface {
	TryFailoverLock(ctx context.Context) (bool, error)
	FailoverTeams(ctx context.Context, after, fresh time.Duration) ([]FailoverTeam, error)
	// TakeSlots takes the numbers' slots but their heads, and returns
	// both.
	TakeSlots(ctx context.Context, numberIDs []string) (taken []QueuedSlot, heads map[string]QueuedSlot, err error)
	RefreshCompletion(ctx context.Context, messageIDs []string) error
}

// FailoverDeps are failover's collaborators beyond the engine's.
type FailoverDeps struct {
	Store FailoverStore
	After time.Duration // CARRIER_FAILOVER_AFTER
	// Moved counts the texts moved; nil: not counted.
	Moved prometheus.Counter
}

// Failover runs one failover pass and returns how many texts it moved.
func (s *Service) Failover(ctx context.Context) (int, error) {
	f := s.Failovers
	if f.Store == nil {
		return 0, nil
	}
	moved := 0
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		moved = 0
		ok, err := f.Store.TryFailoverLock(ctx)
		if err != nil || !ok {
			return err
		}
		teams, err := f.Store.FailoverTeams(ctx, f.After, OutageFresh)
		if err != nil {
			return err
		}
		for _, t := range teams {
			n, err := s.failoverTeam(ctx, t)
			if err != nil {
				return fmt.Errorf("team %s: %w", t.TeamID, err)
			}
			moved += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("failover: %w", err)
	}
	if moved > 0 && f.Moved != nil {
		f.Moved.Add(float64(moved))
	}
	return moved, nil
}

// failoverTeam moves one team's queued texts off its down numbers.
func (s *Service) failoverTeam(ctx context.Context, t FailoverTeam) (int, error) {
	ids := append(append([]string{}, t.Down...), t.Healthy...)
	locked, err := s.Store.LockNumbers(ctx, ids)
	if err != nil {
		return 0, err
	}
	s.withPace(locked)
	byID := make(map[string]Number, len(locked))
	for _, n := range locked {
		byID[n.ID] = n
	}
	var down, healthy []Number
	for _, id := range t.Down {
		down = append(down, byID[id])
	}
	for _, id := range t.Healthy {
		healthy = append(healthy, byID[id])
	}
	slots, heads, err := s.Failovers.Store.TakeSlots(ctx, t.Down)
	if err != nil || len(slots) == 0 {
		return 0, err
	}
	now := s.Clock.Now().UTC()
	plan := Refile(now, slots, healthy)
	if err := s.Store.InsertSlots(ctx, plan.Slots); err != nil {
		return 0, err
	}
	updates := plan.Updates
	for _, n := range down {
		// Only the head is left on the number: its schedule ends there, so
		// that new sends planned on it once the account is back are not
		// planned behind the texts that moved away.
		h := heads[n.ID]
		sched := n.Schedule
		sched.LastAt, sched.LastSegments = h.DueAt, h.Segments
		updates = append(updates, ScheduleUpdate{NumberID: n.ID, Schedule: sched, NextAt: n.NextAt, BacklogDelta: -plan.Taken[n.ID]})
	}
	if err := s.Store.SaveSchedules(ctx, updates); err != nil {
		return 0, err
	}
	if err := s.Failovers.Store.RefreshCompletion(ctx, plan.Messages); err != nil {
		return 0, err
	}
	if plan.Kick {
		if _, err := s.Jobs.Insert(ctx, KickArgs{}, nil); err != nil {
			return 0, err
		}
	}
	s.Log.Info("carrier account down: queued texts moved to the team's numbers on healthy accounts",
		"team_id", t.TeamID, "texts", plan.Texts, "from_numbers", len(down), "to_numbers", len(healthy))
	return plan.Texts, nil
}

// Refiled is a failover's new plan: the slots on the healthy numbers, their
// schedules, the segments taken off each down number, the sends touched,
// and whether a slot is due now.
type Refiled struct {
	Slots    []NewSlot
	Updates  []ScheduleUpdate
	Taken    map[string]int64
	Messages []string
	Texts    int
	Kick     bool
}

// Refile plans slots taken off down numbers onto healthy ones, in the
// slots' order: each slot's texts go to the healthy number that would
// finish its work soonest, at that number's pace, none earlier than the
// slot was due (nor than now).
func Refile(now time.Time, slots []QueuedSlot, healthy []Number) Refiled {
	out := Refiled{Taken: map[string]int64{}}
	if len(healthy) == 0 {
		return out
	}
	nums := append([]Number{}, healthy...)
	first := make([]time.Time, len(nums)) // each number's earliest new slot
	touched := make([]bool, len(nums))
	seen := map[string]bool{}
	for _, sl := range slots {
		out.Taken[sl.NumberID] += int64(sl.Segments)
		if len(sl.Seqs) == 0 {
			continue
		}
		if !seen[sl.MessageID] {
			seen[sl.MessageID] = true
			out.Messages = append(out.Messages, sl.MessageID)
		}
		k := 0
		for j := range nums {
			if finishOf(nums[j], now).Before(finishOf(nums[k], now)) {
				k = j
			}
		}
		per := max(sl.Segments/len(sl.Seqs), 1)
		sched, planned := nums[k].Schedule.Plan(later(now, sl.DueAt), len(sl.Seqs), per)
		nums[k].Schedule = sched
		for _, p := range planned {
			out.Slots = append(out.Slots, NewSlot{NumberID: nums[k].ID, MessageID: sl.MessageID, DueAt: p.At,
				Seqs: sl.Seqs[p.First : p.First+p.Count], Segments: p.Segments, Urgent: sl.Urgent})
			if !touched[k] || p.At.Before(first[k]) {
				first[k], touched[k] = p.At, true
			}
			out.Kick = out.Kick || !p.At.After(now.Add(domain.JoinMargin))
		}
		out.Texts += len(sl.Seqs)
		nums[k].Backlog += int64(sl.Segments)
	}
	for k, n := range nums {
		if !touched[k] {
			continue
		}
		next := n.Schedule.NextAt(first[k])
		if !healthy[k].NextAt.IsZero() && healthy[k].NextAt.Before(next) {
			next = healthy[k].NextAt
		}
		out.Updates = append(out.Updates, ScheduleUpdate{NumberID: n.ID, Schedule: n.Schedule, NextAt: next,
			BacklogDelta: n.Backlog - healthy[k].Backlog})
	}
	return out
}

// finishOf is when a number's planned work would end.
func finishOf(n Number, now time.Time) time.Time {
	f := later(now, n.Schedule.FreeAt)
	if !n.Schedule.LastAt.IsZero() {
		f = later(f, n.Schedule.LastAt.Add(n.Schedule.Pace.Occupancy(n.Schedule.LastSegments)))
	}
	return f
}
