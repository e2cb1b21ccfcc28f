package inbound

import (
	"context"
	"errors"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
)

// The inbox is what staff triage: the team's visible texts (not held)
// that are not keywords (STOP, START and HELP are handled by the service):
// domain.Inbound.InInbox. GET /inbound-messages lists every visible text,
// keywords included.

// InboxDeps are the inbox's collaborators.
type InboxDeps struct {
	Store InboxStore
	Clock clock.Clock
}

// Inbox runs the inbox use cases: listing, unread counts, marking read.
type Inbox struct{ InboxDeps }

// NewInbox returns the inbox.
func NewInbox(d InboxDeps) *Inbox { return &Inbox{InboxDeps: d} }

// InboundMessages lists a team's visible texts, newest first (limit+1 rows).
func (b *Inbox) InboundMessages(ctx context.Context, teamID string, limit, offset int) ([]domain.Inbound, error) {
	return b.Store.InboundMessages(ctx, teamID, limit, offset)
}

// List lists a team's inbox items that pass filter ("" means all, see
// domain.ParseInboxFilter), newest first (limit+1 rows).
func (b *Inbox) List(ctx context.Context, teamID, filter string, limit, offset int) ([]domain.Inbound, error) {
	f, err := domain.ParseInboxFilter(filter)
	if err != nil {
		return nil, err
	}
	return b.Store.Inbox(ctx, teamID, f, limit, offset)
}

// UnreadCount counts a team's unread inbox items.
func (b *Inbox) UnreadCount(ctx context.Context, teamID string) (int, error) {
	return b.Store.UnreadCount(ctx, teamID)
}

// MarkRead marks one inbox item read; marking it again keeps the first
// read_at. 404 not_found for texts that are not the team's inbox items.
func (b *Inbox) MarkRead(ctx context.Context, teamID, messageID string) (*domain.Inbound, error) {
	in, err := b.Store.MarkRead(ctx, teamID, messageID, b.Clock.Now().UTC())
	if errors.Is(err, domain.ErrNotFound) {
		return nil, errTextNotFound
	}
	return in, err
}

// MarkAllRead marks every unread inbox item of the team read and returns
// how many it marked.
func (b *Inbox) MarkAllRead(ctx context.Context, teamID string) (int, error) {
	return b.Store.MarkAllRead(ctx, teamID, b.Clock.Now().UTC())
}
