package inbound

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/loops"
	"github.com/teamtext/teamtext/platform/phone"
)

// Ingestion in batches. A callback stages its text (Enqueue:
// one insert, and a notification after its commit, coalesced with the
// node's other callbacks' while one is in flight); the filers (Filer) take a
// lane's staged texts in batches and file each batch in one transaction
// (File), with a fixed number of statements whatever its size: the teams
// by number, their hold locks and accounts, the members by phone and the
// latest broadcasts, the texts, the analytics counters and the
// message.received events. Keyword texts (STOP, START, HELP) are carried
// out one by one in the same transaction, in arrival order.
//
// Order. The lane of a text is a hash of its sender's number and one filer
// at a time works a lane, taking each number's oldest texts, so a number's
// texts are filed, acted on and announced in the order they came.
// Keywords go first: a batch takes every number that sent a keyword with
// its texts up to that keyword before the lane's oldest texts, so a STOP
// waits for at most the batch in progress, however long the backlog.

// Lanes is how many lanes staged texts are spread over: how many filers,
// across every node, can file at once (domain.InboundLane).
const Lanes = domain.InboundLanes

// BatchSize is the most texts one filing transaction takes.
const BatchSize = 500

// Enqueue stages a text a carrier received, in the transaction carried by
// ctx or in its own statement, and wakes the filers when that commits.
// Carrier adapters call it from their inbound callback and answer the
// carrier as soon as it returns. A provider id already staged (a carrier
// retrying its callback) stages nothing; one already filed is skipped when
// filed again.
func Enqueue(ctx context.Context, st Stager, a Args) error {
	p, err := domain.StageInbound(a.ProviderMessageID, e164(a.From), e164(a.To), a.Body, a.ReceivedAt)
	if err != nil {
		return err
	}
	return st.StageInbound(ctx, p)
}

// Enqueue stages a text with the service's store (see Enqueue).
func (s *Service) Enqueue(ctx context.Context, a Args) error { return Enqueue(ctx, s.Store, a) }

// FileNext files one batch of a lane's staged texts in one transaction,
// trying the lanes from first on. It returns when each text it took had
// arrived (none: no lane had texts that another filer did not hold). A
// batch that fails is filed again text by text (loops.FileNext); a text
// that fails on its own domain.InboundMaxAttempts times is set aside
// (logged, kept staged for an operator, no longer taken).
func (s *Service) FileNext(ctx context.Context, first int) ([]time.Time, error) {
	return loops.FileNext(ctx, first, BatchSize, s.fileBatch, func(ctx context.Context, p domain.PendingInbound, err error) error {
		s.Log.Error("inbound text not filed", "provider_message_id", p.ProviderMessageID, "from", phone.Mask(p.FromPhone),
			"staged_id", p.ID, "err", err)
		return s.Store.NoteInboundFailure(ctx, p.ID, err.Error())
	}, s.Log)
}

// fileBatch takes up to limit texts of a lane and files them in one
// transaction; it returns what it took even when filing failed (and the
// transaction rolled back).
func (s *Service) fileBatch(ctx context.Context, first, limit int) ([]time.Time, []domain.PendingInbound, error) {
	var received []time.Time
	var taken []domain.PendingInbound
	err := s.Tx.Tx(ctx, func(ctx context.Context) error {
		lane, err := s.Store.LockInboundLane(ctx, Lanes, first)
		if err != nil || lane < 0 {
			return err
		}
		ps, err := s.Store.TakeInbound(ctx, lane, limit)
		if err != nil {
			return err
		}
		taken = ps
		as := make([]Args, len(ps))
		received = make([]time.Time, len(ps))
		for i, p := range ps {
			as[i] = Args{From: p.FromPhone, To: p.ToPhone, Body: p.Body, ProviderMessageID: p.ProviderMessageID, ReceivedAt: p.ReceivedAt}
			received[i] = p.ReceivedAt
		}
		return s.File(ctx, as)
	})
	if err != nil {
		return nil, taken, err
	}
	return received, taken, nil
}

// File files texts, in arrival order, in one transaction (the caller's, if
// ctx carries one): see the package documentation for what filing a text
// does and decides, and Ingestion above for how a batch is written.
func (s *Service) File(ctx context.Context, as []Args) error {
	if len(as) == 0 {
		return nil
	}
	return s.Tx.Tx(ctx, func(ctx context.Context) error {
		// Normalised, and once per provider id (a retry staged after the
		// first was taken may share a batch with it).
		seen := make(map[string]bool, len(as))
		texts := make([]Args, 0, len(as))
		var numbers []string
		for _, a := range as {
			if seen[a.ProviderMessageID] {
				continue
			}
			seen[a.ProviderMessageID] = true
			a.From, a.To = e164(a.From), e164(a.To)
			texts = append(texts, a)
			numbers = append(numbers, a.To)
		}
		teams, err := s.Lookup.TeamsByNumbers(ctx, unique(numbers))
		if err != nil {
			return fmt.Errorf("inbound teams: %w", err)
		}
		var known []Args
		var teamIDs []string
		var pairs []rosterapi.TeamPhone
		for _, a := range texts {
			t, ok := teams[a.To]
			if !ok {
				s.Log.Warn("inbound text to an unknown number dropped", "to", phone.Mask(a.To), "from", phone.Mask(a.From),
					"provider_message_id", a.ProviderMessageID)
				continue
			}
			known = append(known, a)
			teamIDs = append(teamIDs, t.ID)
			pairs = append(pairs, rosterapi.TeamPhone{TeamID: t.ID, Phone: phone.Number(a.From)})
		}
		if len(known) == 0 {
			return nil
		}
		teamIDs = unique(teamIDs)
		// Shared with other texts of the teams, exclusive with a release:
		// a text is either seen held by the release or sees the paid account.
		if err := s.Store.LockHolds(ctx, teamIDs); err != nil {
			return err
		}
		accs, err := s.Billing.Statuses(ctx, teamIDs)
		if err != nil {
			return fmt.Errorf("inbound billing: %w", err)
		}
		entries, err := s.Lookup.MembersByTeamPhones(ctx, pairs)
		if err != nil {
			return fmt.Errorf("inbound members: %w", err)
		}
		groups, err := s.Store.LatestGroupsTo(ctx, pairs)
		if err != nil {
			return err
		}
		now := s.Clock.Now().UTC()
		ins := make([]domain.Inbound, len(known))
		for i, a := range known {
			team := teams[a.To]
			at := a.ReceivedAt
			if at.IsZero() {
				at = now
			}
			ins[i] = domain.Inbound{ID: id.New("inb"), TeamID: team.ID, ProviderMessageID: a.ProviderMessageID, FromPhone: a.From, ToPhone: a.To,
				Body: a.Body, Keyword: domain.MatchKeyword(a.Body), GroupID: groups[pairs[i]], ReceivedAt: at.UTC().Truncate(time.Microsecond),
				Held: accs[team.ID].PaymentState == billingapi.PaymentOverdue, CreatedAt: now}
			if m := chooseMember(entries[pairs[i]]); m != nil {
				ins[i].Member = domain.InboundMember{ID: m.ID, Name: m.Name, Role: string(m.Role)}
			}
		}
		stored, err := s.Store.InsertInbounds(ctx, ins)
		if err != nil {
			return err
		}
		var fresh []domain.Inbound
		for i := range ins {
			if stored[ins[i].ID] {
				fresh = append(fresh, ins[i])
			}
		}
		if err := s.heardFrom(ctx, fresh); err != nil {
			return err
		}
		var routed []*domain.Inbound
		for i := range ins {
			in := &ins[i]
			if !stored[in.ID] {
				s.Log.Info("inbound text already received; retry ignored", "provider_message_id", in.ProviderMessageID)
				continue
			}
			if err := s.act(ctx, teams[in.ToPhone], in); err != nil {
				return err
			}
			routed = append(routed, in)
		}
		if err := s.route(ctx, teams, routed); err != nil {
			return err
		}
		var visible []domain.Inbound
		for _, in := range routed {
			if in.Held {
				s.Log.Info("inbound text held: renewal payment overdue", "team_id", in.TeamID, "message_id", in.ID)
				continue
			}
			visible = append(visible, *in)
		}
		return s.announceMany(ctx, visible)
	})
}

// announceMany makes visible texts count in analytics and publishes their
// message.received events, in order, in the caller's transaction: one
// counter statement and one batch of events.
func (s *Service) announceMany(ctx context.Context, ins []domain.Inbound) error {
	if len(ins) == 0 {
		return nil
	}
	if err := s.Store.CountReceivedMany(ctx, ins); err != nil {
		return err
	}
	evs := make([]events.Event, len(ins))
	for i := range ins {
		evs[i] = events.Event{TeamID: ins[i].TeamID, Type: events.MessageReceived, Data: ReceivedFrom(&ins[i])}
	}
	if err := events.PublishAcross(ctx, s.Events, evs); err != nil {
		return fmt.Errorf("publish %d message.received: %w", len(evs), err)
	}
	return nil
}

// unique returns ss without repeats, sorted.
func unique(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	n := 0
	for i, s := range out {
		if i == 0 || s != out[n-1] {
			out[n] = s
			n++
		}
	}
	return out[:n]
}
