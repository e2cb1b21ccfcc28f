package inbound

import (
	"context"
	"fmt"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// heardFrom clears the undeliverable mark of the numbers that texted their
// teams: a number that sends texts takes them, whatever the
// carrier said before. Their streaks of permanent failures start again.
// One roster call for a whole batch of stored texts (a reset outcome per
// number, written in one statement).
func (s *Service) heardFrom(ctx context.Context, ins []domain.Inbound) error {
	if s.Deliverability == nil || len(ins) == 0 {
		return nil
	}
	outs := make([]rosterapi.NumberOutcome, len(ins))
	for i := range ins {
		outs[i] = rosterapi.NumberOutcome{TeamID: ins[i].TeamID, Phone: phone.Number(ins[i].FromPhone), Reset: true, At: ins[i].ReceivedAt}
	}
	if _, err := s.Deliverability.NoteOutcomes(ctx, outs, 0); err != nil {
		return fmt.Errorf("inbound: clear undeliverable: %w", err)
	}
	return nil
}
