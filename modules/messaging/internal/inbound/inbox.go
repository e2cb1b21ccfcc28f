package inbound

import (
	"context"
	"errors"

	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/fault"
)

// The inbox is what staff triage: the team's visible texts (not held)
// that are not keywords (STOP, START and HELP are handled by the service).
// GET /inbound-messages lists every visible text, keywords included.

// InboundMessages lists a team's visible texts, newest first (limit+1 rows).
func (s *Service) InboundMessages(ctx context.Context, teamID string, limit, offset int) ([]postgres.Inbound, error) {
	return s.InboxStore.InboundMessages(ctx, teamID, limit, offset)
}

// ParseInboxFilter checks GET /inbox's filter ("" means all).
func ParseInboxFilter(f string) (postgres.InboxFilter, error) {
	switch postgres.InboxFilter(f) {
	case "", postgres.InboxAll:
		return postgres.InboxAll, nil
	case postgres.InboxUnread, postgres.InboxReplied:
		return postgres.InboxFilter(f), nil
	}
	return "", fault.Invalidf("filter must be all, unread or replied")
}

// Inbox lists a team's inbox items, newest first (limit+1 rows).
func (s *Service) Inbox(ctx context.Context, teamID, filter string, limit, offset int) ([]postgres.Inbound, error) {
	f, err := ParseInboxFilter(filter)
	if err != nil {
		return nil, err
	}
	return s.InboxStore.Inbox(ctx, teamID, f, limit, offset)
}

// UnreadCount counts a team's unread inbox items.
func (s *Service) UnreadCount(ctx context.Context, teamID string) (int, error) {
	return s.InboxStore.UnreadCount(ctx, teamID)
}

// MarkRead marks one inbox item read; marking it again keeps the first
// read_at. 404 not_found for texts that are not the team's inbox items.
func (s *Service) MarkRead(ctx context.Context, teamID, messageID string) (*postgres.Inbound, error) {
	in, err := s.InboxStore.MarkRead(ctx, teamID, messageID, s.Clock.Now().UTC())
	if errors.Is(err, postgres.ErrNotFound) {
		return nil, errTextNotFound
	}
	return in, err
}

// MarkAllRead marks every unread inbox item of the team read and returns
// how many it marked.
func (s *Service) MarkAllRead(ctx context.Context, teamID string) (int, error) {
	return s.InboxStore.MarkAllRead(ctx, teamID, s.Clock.Now().UTC())
}
