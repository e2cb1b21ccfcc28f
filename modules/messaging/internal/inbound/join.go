package inbound

import (
	"context"
	"fmt"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// joins is the sign-up-by-text step: the roster's Joining acts
// on the texts that may be a step of a sign-up — every join keyword
// (JOIN, ATHLETE, PARENT, the team's code) and every text from a number
// not on the roster (a name a conversation asked for) — and says which it
// claimed and what to answer. Each answer is queued as a one-to-one text
// from the number texted, like a HELP answer: not charged, sent while the
// renewal is overdue.
//
// Cost: nothing for a batch of texts from members that are not join
// keywords (no statement at all); otherwise the roster's fixed lookups for
// the batch, plus the writes of each step it acts on.
func (s *Service) joins(ctx context.Context, teams map[string]rosterapi.Team, ins []*domain.Inbound) (map[string]bool, error) {
	if s.Joining == nil || s.Answers == nil {
		return nil, nil
	}
	var texts []rosterapi.JoinText
	var of []*domain.Inbound
	for _, in := range ins {
		team, ok := teams[in.ToPhone]
		if !ok {
			continue
		}
		if in.Member.ID != "" {
			if _, _, kw := rosterapi.MatchJoinKeyword(in.Body, team.Code); !kw {
				continue
			}
		}
		texts = append(texts, rosterapi.JoinText{Team: team, Phone: phone.Number(in.FromPhone), MessageID: in.ID, Body: in.Body, MemberID: in.Member.ID,
			At: in.ReceivedAt})
		of = append(of, in)
	}
	if len(texts) == 0 {
		return nil, nil
	}
	answers, err := s.Joining.Join(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("inbound joining: %w", err)
	}
	if len(answers) != len(texts) {
		return nil, fmt.Errorf("inbound joining: %d answers for %d texts", len(answers), len(texts))
	}
	claimed := map[string]bool{}
	for i, a := range answers {
		if !a.Claimed {
			continue
		}
		claimed[of[i].ID] = true
		if a.Reply == "" {
			continue
		}
		if err := s.Answers.QueueAnswer(ctx, of[i], domain.ReplyJoin, a.Reply); err != nil {
			return nil, err
		}
	}
	return claimed, nil
}
