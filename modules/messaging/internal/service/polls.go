package service

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// PollResults are a poll's answers (GET /messages/{id}/responses): the
// tallies per option (every option, in order), the roster entries the
// poll reached that have not answered, and a page of answers (limit+1).
// A message without reply options has no tallies and no answers.
type PollResults struct {
	Message    *domain.Message
	Tallies    []domain.Tally
	NoResponse int
	Responses  []domain.Response
}

// PollResponses reads a team's poll's answers; another team's message, or
// none, is 404.
func (s *Service) PollResponses(ctx context.Context, teamID, messageID string, limit, offset int) (*PollResults, error) {
	m, err := s.MessageStore.Message(ctx, teamID, messageID)
	if err != nil {
		return nil, mapNotFound(err, errMessageNotFound)
	}
	out := &PollResults{Message: m, Tallies: []domain.Tally{}}
	if !m.Poll() {
		return out, nil
	}
	counts, recipients, err := s.MessageStore.PollTallies(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	out.Tallies = domain.Tallies(m.ReplyOptions, counts)
	answered := 0
	for _, n := range counts {
		answered += n
	}
	out.NoResponse = max(recipients-answered, 0)
	if out.Responses, err = s.MessageStore.Responses(ctx, m.ID, answered, limit, offset); err != nil {
		return nil, err
	}
	return out, nil
}
