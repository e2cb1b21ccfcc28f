package inbound

import (
	"context"
	"fmt"

	"github.com/teamtext/teamtext/platform/phone"
)

// heardFrom clears the undeliverable mark of a number that texted the team
// (issue 18): a number that sends texts takes them, whatever the carrier
// said before. Its streak of permanent failures starts again.
func (s *Service) heardFrom(ctx context.Context, teamID, from string) error {
	if s.Deliverability == nil {
		return nil
	}
	was, err := s.Deliverability.ClearUndeliverable(ctx, teamID, from)
	if err != nil {
		return fmt.Errorf("inbound: clear undeliverable: %w", err)
	}
	if was {
		s.Log.Info("undeliverable mark cleared: the number texted the team", "team_id", teamID, "from", phone.Mask(from))
	}
	return nil
}
