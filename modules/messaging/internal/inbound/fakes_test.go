package inbound_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
)

// In-memory stores for the inbox and reply use cases: they keep domain
// values and apply the domain's rules, as the Postgres store's SQL does.

// memInbox is an inbound.InboxStore over a slice of texts.
type memInbox struct {
	mu    sync.Mutex
	texts []domain.Inbound // any order; lists sort newest first
}

var _ inbound.InboxStore = (*memInbox)(nil)

func (m *memInbox) sorted(keep func(*domain.Inbound) bool, limit, offset int) []domain.Inbound {
	var out []domain.Inbound
	for i := range m.texts {
		if keep(&m.texts[i]) {
			out = append(out, m.texts[i])
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].ReceivedAt.Equal(out[j].ReceivedAt) {
			return out[i].ReceivedAt.After(out[j].ReceivedAt)
		}
		return out[i].ID > out[j].ID
	})
	out = out[min(offset, len(out)):]
	return out[:min(limit+1, len(out))]
}

func (m *memInbox) InboundMessages(_ context.Context, teamID string, limit, offset int) ([]domain.Inbound, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sorted(func(in *domain.Inbound) bool { return in.TeamID == teamID && in.Visible() }, limit, offset), nil
}

func (m *memInbox) Inbox(_ context.Context, teamID string, f domain.InboxFilter, limit, offset int) ([]domain.Inbound, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sorted(func(in *domain.Inbound) bool { return in.TeamID == teamID && in.InInbox() && f.Matches(in) }, limit, offset), nil
}

// item is the team's inbox item id (locked by the caller).
func (m *memInbox) item(teamID, id string) (*domain.Inbound, error) {
	for i := range m.texts {
		if in := &m.texts[i]; in.TeamID == teamID && in.ID == id && in.InInbox() {
			return in, nil
		}
	}
	return nil, fmt.Errorf("select inbox item: %w", domain.ErrNotFound)
}

// LockInboxItem is InboxItem: the fake has one writer at a time.
func (m *memInbox) LockInboxItem(ctx context.Context, teamID, id string) (*domain.Inbound, error) {
	return m.InboxItem(ctx, teamID, id)
}

func (m *memInbox) InboxItem(_ context.Context, teamID, id string) (*domain.Inbound, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	in, err := m.item(teamID, id)
	if err != nil {
		return nil, err
	}
	out := *in
	return &out, nil
}

func (m *memInbox) UnreadCount(_ context.Context, teamID string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sorted(func(in *domain.Inbound) bool { return in.TeamID == teamID && in.InInbox() && in.Unread() }, len(m.texts), 0)), nil
}

func (m *memInbox) MarkRead(_ context.Context, teamID, id string, at time.Time) (*domain.Inbound, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	in, err := m.item(teamID, id)
	if err != nil {
		return nil, err
	}
	in.MarkRead(at)
	out := *in
	return &out, nil
}

func (m *memInbox) MarkAllRead(_ context.Context, teamID string, at time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for i := range m.texts {
		if in := &m.texts[i]; in.TeamID == teamID && in.InInbox() && in.Unread() {
			in.MarkRead(at)
			n++
		}
	}
	return n, nil
}

func (m *memInbox) SetLatestReply(_ context.Context, teamID, id string, rp *domain.Reply) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.texts {
		if in := &m.texts[i]; in.TeamID == teamID && in.ID == id {
			in.Replied(rp)
		}
	}
	return nil
}

// memReplies is an inbound.ReplyStore.
type memReplies struct {
	mu      sync.Mutex
	replies map[string]domain.Reply
	help    map[string]string // team → its own HELP text
}

var _ inbound.ReplyStore = (*memReplies)(nil)

func newMemReplies() *memReplies {
	return &memReplies{replies: map[string]domain.Reply{}, help: map[string]string{}}
}

func (m *memReplies) InsertReply(_ context.Context, rp *domain.Reply) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies[rp.ID] = *rp
	return nil
}

func (m *memReplies) ReplyForSend(_ context.Context, teamID, id string) (*domain.Reply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rp, ok := m.replies[id]
	if !ok || rp.TeamID != teamID {
		return nil, fmt.Errorf("select reply: %w", domain.ErrNotFound)
	}
	return &rp, nil
}

func (m *memReplies) UpdateReply(_ context.Context, rp *domain.Reply) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies[rp.ID] = *rp
	return nil
}

func (m *memReplies) get(id string) domain.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.replies[id]
}

func (m *memReplies) all() []domain.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []domain.Reply
	for _, rp := range m.replies {
		out = append(out, rp)
	}
	return out
}

func (m *memReplies) HelpText(_ context.Context, teamID string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.help[teamID], nil
}

func (m *memReplies) SetHelpText(_ context.Context, teamID, text string, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.help[teamID] = text
	return nil
}

// inline is an inbound.Transactor without a database: fn runs once.
type inline struct{}

func (inline) Tx(ctx context.Context, fn func(ctx context.Context) error) error { return fn(ctx) }

// queued records the jobs inserted (an inbound.Inserter).
type queued struct {
	mu   sync.Mutex
	args []river.JobArgs
}

func (q *queued) Insert(_ context.Context, args river.JobArgs, _ *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.args = append(q.args, args)
	return &rivertype.JobInsertResult{}, nil
}

func (q *queued) jobs() []river.JobArgs {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]river.JobArgs(nil), q.args...)
}

// refusing is a carrier that refuses every text for good.
type refusing struct {
	*texts
	code string
}

func (c refusing) Send(context.Context, carrier.Message) (carrier.Receipt, error) {
	return carrier.Receipt{}, &carrier.PermanentError{Code: c.code, Message: "refused"}
}
