package inbound

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// Two-way texts. After its keyword (STOP, START, HELP) is carried out, a
// batch's newly stored texts that are not keywords go through the two-way
// steps in this order, each in the batch's transaction: joining the team
// by text (a join keyword, or the name asked for in a sign-up
// conversation), a team keyword (its automatic answer and group), and an
// answer to a poll (a broadcast with reply options). A step claims the
// texts it acts on, and a claimed text goes to no later step. Each step
// costs a fixed number of statements per batch whatever its size, and none
// when no text of the batch can concern it.

// routeStep is one two-way step: it acts on the texts it recognises among
// ins (fresh, not keywords, in arrival order) and returns their ids.
type routeStep func(ctx context.Context, teams map[string]rosterapi.Team, ins []*domain.Inbound) (claimed map[string]bool, err error)

// route runs the two-way steps over a batch's fresh texts.
func (s *Service) route(ctx context.Context, teams map[string]rosterapi.Team, fresh []*domain.Inbound) error {
	var open []*domain.Inbound
	for _, in := range fresh {
		if in.Keyword == "" {
			open = append(open, in)
		}
	}
	for _, step := range []routeStep{s.joins, s.teamKeywords, s.responses} {
		if len(open) == 0 {
			return nil
		}
		claimed, err := step(ctx, teams, open)
		if err != nil {
			return err
		}
		rest := open[:0:0]
		for _, in := range open {
			if !claimed[in.ID] {
				rest = append(rest, in)
			}
		}
		open = rest
	}
	return nil
}
