package inbound

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/phone"
)

// Answers to polls (RSVP by reply): the last two-way step.
//
// A text answers a poll when its first word (domain.MatchOption) is an
// option of the sender number's latest open poll from the team: the
// latest, by dispatch, of the team's polls whose text was handed over to
// the number before the text arrived and whose reply_until is after its
// arrival. The answer is recorded for every roster entry with the number
// that the poll's delivery reached and that is still on the roster (a
// parent of two athletes answers for both), the latest answer winning;
// each answer recorded publishes message.response. The text is claimed,
// its response_to set, and it stays a text like any other (listed,
// announced, in the inbox). A text matching no option is not claimed.
//
// Statements per batch, whatever its size: the open polls of the batch's
// texts (one), and when some text answers one, the senders' roster
// entries, the answers, the texts' response_to and the events (one each).

// Response is the data of the message.response event: one roster entry's
// answer to a poll.
type Response struct {
	MessageID  string                 `json:"message_id"`
	Option     string                 `json:"option"`
	Member     rosterapi.MemberObject `json:"member"` // the roster entry as member.* events show it
	ReceivedAt string                 `json:"received_at"`
}

// ResponseFrom renders a recorded answer as message.response data.
func ResponseFrom(r *domain.Response) Response {
	m := r.Member
	return Response{MessageID: r.MessageID, Option: r.Option, ReceivedAt: r.ReceivedAt.UTC().Format(time.RFC3339Nano),
		Member: rosterapi.MemberObject{ID: m.ID, Name: m.Name, Phone: m.Phone, Email: m.Email, Role: m.Role, Status: m.Status, IsBlocked: m.IsBlocked,
			CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339Nano)}}
}

// responses is the poll-answer step (see above).
func (s *Service) responses(ctx context.Context, _ map[string]rosterapi.Team, ins []*domain.Inbound) (map[string]bool, error) {
	var cands []*domain.Inbound // texts whose first word could be an option
	for _, in := range ins {
		if domain.MayAnswer(in.Body) {
			cands = append(cands, in)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	n := len(cands)
	teams, phones, ats := make([]string, n), make([]string, n), make([]time.Time, n)
	for i, in := range cands {
		teams[i], phones[i], ats[i] = in.TeamID, in.FromPhone, in.ReceivedAt
	}
	polls, err := s.Store.OpenPolls(ctx, teams, phones, ats)
	if err != nil {
		return nil, err
	}
	type answer struct {
		in     *domain.Inbound
		poll   *domain.OpenPoll
		option string
	}
	var answers []answer
	var pairs []rosterapi.TeamPhone
	seen := map[rosterapi.TeamPhone]bool{}
	for i, in := range cands {
		if polls[i] == nil {
			continue
		}
		opt, ok := domain.MatchOption(in.Body, polls[i].Options)
		if !ok {
			continue
		}
		answers = append(answers, answer{in: in, poll: polls[i], option: opt})
		if k := (rosterapi.TeamPhone{TeamID: in.TeamID, Phone: phone.Number(in.FromPhone)}); !seen[k] {
			seen[k] = true
			pairs = append(pairs, k)
		}
	}
	if len(answers) == 0 {
		return nil, nil
	}
	entries, err := s.Lookup.MembersByTeamPhones(ctx, pairs)
	if err != nil {
		return nil, fmt.Errorf("poll answers' members: %w", err)
	}
	claimed := make(map[string]bool, len(answers))
	var rs []domain.Response
	at := map[[2]string]int{} // (poll, entry) → its answer in rs: one per entry, the newest
	var ids, answered []string
	for _, a := range answers {
		recipient := make(map[string]bool, len(a.poll.MemberIDs))
		for _, id := range a.poll.MemberIDs {
			recipient[id] = true
		}
		any := false
		for _, e := range entries[rosterapi.TeamPhone{TeamID: a.in.TeamID, Phone: phone.Number(a.in.FromPhone)}] {
			if !recipient[e.ID] {
				continue
			}
			any = true
			r := domain.Response{MessageID: a.poll.MessageID, TeamID: a.in.TeamID, Option: a.option, InboundID: a.in.ID, ReceivedAt: a.in.ReceivedAt,
				Member: domain.ResponseMember{ID: e.ID, Name: e.Name, Phone: string(e.Phone), Email: e.Email, Role: string(e.Role), Status: e.Status,
					IsBlocked: e.IsBlocked, CreatedAt: e.CreatedAt}}
			k := [2]string{r.MessageID, e.ID}
			if j, ok := at[k]; ok {
				if r.Newer(&rs[j]) {
					rs[j] = r
				}
				continue
			}
			at[k] = len(rs)
			rs = append(rs, r)
		}
		if !any {
			continue // none of the poll's recipients has the number any more
		}
		claimed[a.in.ID] = true
		a.in.ResponseTo = a.poll.MessageID
		ids, answered = append(ids, a.in.ID), append(answered, a.poll.MessageID)
	}
	if len(rs) == 0 {
		return nil, nil
	}
	recorded, err := s.Store.RecordResponses(ctx, rs)
	if err != nil {
		return nil, err
	}
	if err := s.Store.SetResponseTo(ctx, ids, answered); err != nil {
		return nil, err
	}
	sort.Ints(recorded)
	evs := make([]events.Event, len(recorded))
	for i, j := range recorded {
		evs[i] = events.Event{TeamID: rs[j].TeamID, Type: events.MessageResponse, Data: ResponseFrom(&rs[j])}
	}
	if err := events.PublishAcross(ctx, s.Events, evs); err != nil {
		return nil, fmt.Errorf("publish %d message.response: %w", len(evs), err)
	}
	return claimed, nil
}
