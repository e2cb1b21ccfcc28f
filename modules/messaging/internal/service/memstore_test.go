package service_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/service/storetest"
	"github.com/teamtext/teamtext/platform/id"
)

// memStore is an in-memory TemplateStore, ScheduledStore and MessageStore,
// held to the Postgres repository by storetest's suite
// (TestMemStoreContract). It hands out and keeps copies, so a change the
// service does not write back is lost, as with Postgres; memTx rolls it
// back when a use case fails. Tests seed and read its maps directly;
// failed deliveries, which only status ingestion writes, are seeded in
// failed.
type memStore struct {
	templates  map[string]domain.Template
	scheduled  map[string]domain.Scheduled
	locks      []string // teams whose templates lock was taken, in order
	messages   map[string]domain.Message
	deliveries map[string][]domain.Delivery       // by message id, in position order
	texts      map[string][]domain.Text           // recipients' own texts, by message id
	failed     map[string][]domain.FailedDelivery // by message id
	polls      map[string]int                     // the roster entries a poll reached, by message id
}

func newMemStore() *memStore {
	return &memStore{templates: map[string]domain.Template{}, scheduled: map[string]domain.Scheduled{}, messages: map[string]domain.Message{},
		deliveries: map[string][]domain.Delivery{}, texts: map[string][]domain.Text{}, failed: map[string][]domain.FailedDelivery{},
		polls: map[string]int{}}
}

// TestMemStoreContract holds the in-memory store to the suite the
// repository is held to.
func TestMemStoreContract(t *testing.T) {
	t.Parallel()
	storetest.Exercise(t, func(*testing.T) storetest.Harness {
		s := newMemStore()
		return storetest.Harness{Stores: storetest.Stores{TemplateStore: s, ScheduledStore: s, MessageStore: s}, Tx: memTx{s}}
	})
}

func (m *memStore) snapshot() (map[string]domain.Template, map[string]domain.Scheduled) {
	return maps.Clone(m.templates), maps.Clone(m.scheduled)
}

// memTx is the service's Transactor over a memStore: a failed use case
// leaves the store as it found it.
type memTx struct{ store *memStore }

type inTx struct{}

// Tx runs fn; a nested call joins the outer transaction, as db.DB's does
// (no savepoint: only the outermost failure rolls back).
func (tx memTx) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	if ctx.Value(inTx{}) != nil {
		return fn(ctx)
	}
	return tx.undoOnError(context.WithValue(ctx, inTx{}, true), fn)
}

// Savepoint undoes fn's changes when fn fails, as db.Savepoint does, and
// like it refuses to run outside a transaction.
func (tx memTx) Savepoint(ctx context.Context, name string, fn func(ctx context.Context) error) error {
	if ctx.Value(inTx{}) == nil {
		return fmt.Errorf("savepoint %s: no transaction", name)
	}
	return tx.undoOnError(ctx, fn)
}

func (tx memTx) undoOnError(ctx context.Context, fn func(ctx context.Context) error) error {
	s := tx.store
	ts, ss := s.snapshot()
	ms, ds, xs, ps := maps.Clone(s.messages), maps.Clone(s.deliveries), maps.Clone(s.texts), maps.Clone(s.polls)
	if err := fn(ctx); err != nil {
		s.templates, s.scheduled, s.messages, s.deliveries, s.texts, s.polls = ts, ss, ms, ds, xs, ps
		return err
	}
	return nil
}

// page is items[offset:] cut to limit+1, as the repository's pages are.
func page[T any](items []T, limit, offset int) []T {
	items = items[min(offset, len(items)):]
	return items[:min(limit+1, len(items))]
}

func (m *memStore) Templates(_ context.Context, teamID string, limit, offset int) ([]domain.Template, error) {
	var out []domain.Template
	for _, t := range m.templates {
		if t.TeamID == teamID && t.Live() {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b domain.Template) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return page(out, limit, offset), nil
}

func (m *memStore) CountTemplates(_ context.Context, teamID string) (int, error) {
	n := 0
	for _, t := range m.templates {
		if t.TeamID == teamID && t.Live() {
			n++
		}
	}
	return n, nil
}

func (m *memStore) Template(_ context.Context, teamID, id string) (*domain.Template, error) {
	t, ok := m.templates[id]
	if !ok || t.TeamID != teamID || !t.Live() {
		return nil, domain.ErrNotFound
	}
	return &t, nil
}

// UpdateTemplate changes a copy of a live template and writes it back
// only when change succeeds.
func (m *memStore) UpdateTemplate(ctx context.Context, teamID, id string, change func(*domain.Template) error) (*domain.Template, error) {
	t, err := m.Template(ctx, teamID, id)
	if err != nil {
		return nil, err
	}
	if err := change(t); err != nil {
		return nil, err
	}
	if err := m.WriteTemplate(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

func (m *memStore) TemplateByName(_ context.Context, teamID, name string) (*domain.Template, error) {
	for _, t := range m.templates {
		if t.TeamID == teamID && strings.EqualFold(t.Name, name) {
			return &t, nil
		}
	}
	return nil, domain.ErrNotFound
}

// nameTaken reports whether another template of t's team has t's name
// (the table's unique index, deleted templates included).
func (m *memStore) nameTaken(t *domain.Template) bool {
	for _, o := range m.templates {
		if o.ID != t.ID && o.TeamID == t.TeamID && strings.EqualFold(o.Name, t.Name) {
			return true
		}
	}
	return false
}

func (m *memStore) InsertTemplate(_ context.Context, t *domain.Template) error {
	if _, ok := m.templates[t.ID]; ok || m.nameTaken(t) {
		return fmt.Errorf("insert template %s: taken", t.ID)
	}
	m.templates[t.ID] = *t
	return nil
}

func (m *memStore) WriteTemplate(_ context.Context, t *domain.Template) error {
	if m.nameTaken(t) {
		return fmt.Errorf("update template %s: name taken", t.ID)
	}
	if _, ok := m.templates[t.ID]; ok {
		m.templates[t.ID] = *t
	}
	return nil
}

func (m *memStore) LockTemplates(_ context.Context, teamID string) error {
	m.locks = append(m.locks, teamID)
	return nil
}

// asStored is s as its row keeps it: repeat_until is a date.
func asStored(s domain.Scheduled) domain.Scheduled {
	if s.RepeatUntil != nil {
		y, mo, d := s.RepeatUntil.UTC().Date()
		day := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
		s.RepeatUntil = &day
	}
	return s
}

func (m *memStore) InsertScheduled(_ context.Context, s *domain.Scheduled) error {
	if _, ok := m.scheduled[s.ID]; ok {
		return fmt.Errorf("insert scheduled %s: taken", s.ID)
	}
	m.scheduled[s.ID] = asStored(*s)
	return nil
}

func (m *memStore) Scheduled(_ context.Context, teamID, id string) (*domain.Scheduled, error) {
	s, ok := m.scheduled[id]
	if !ok || teamID != "" && s.TeamID != teamID {
		return nil, domain.ErrNotFound
	}
	return &s, nil
}

// UpdateScheduled changes a copy of a scheduled send and writes it back
// only when change succeeds.
func (m *memStore) UpdateScheduled(ctx context.Context, teamID, id string, change func(*domain.Scheduled) error) (*domain.Scheduled, error) {
	s, err := m.Scheduled(ctx, teamID, id)
	if err != nil {
		return nil, err
	}
	if err := change(s); err != nil {
		return nil, err
	}
	m.scheduled[s.ID] = asStored(*s)
	return s, nil
}

func (m *memStore) PendingScheduled(_ context.Context, teamID string, limit, offset int) ([]domain.Scheduled, error) {
	var out []domain.Scheduled
	for _, s := range m.scheduled {
		if s.TeamID == teamID && s.Status == domain.ScheduledPending {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b domain.Scheduled) int {
		if c := a.ScheduledFor.Compare(b.ScheduledFor); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return page(out, limit, offset), nil
}

func (m *memStore) CountPendingScheduled(ctx context.Context, teamID string) (int, error) {
	ss, _ := m.PendingScheduled(ctx, teamID, 1<<30, 0)
	return len(ss), nil
}

func (m *memStore) InsertMessage(_ context.Context, msg *domain.Message) error {
	if _, ok := m.messages[msg.ID]; ok {
		return fmt.Errorf("insert message %s: taken", msg.ID)
	}
	stored := *msg
	stored.HeldNow = 0 // read with the message, never kept
	m.messages[msg.ID] = stored
	return nil
}

func (m *memStore) Message(_ context.Context, teamID, id string) (*domain.Message, error) {
	msg, ok := m.messages[id]
	if !ok || msg.TeamID != teamID {
		return nil, domain.ErrNotFound
	}
	return &msg, nil
}

// LockMessage is Message: the store has one writer at a time.
func (m *memStore) LockMessage(ctx context.Context, teamID, id string) (*domain.Message, error) {
	return m.Message(ctx, teamID, id)
}

// UpdateMessage changes a copy of a message and, only when change
// succeeds, writes every field back but the delivery counts, which only
// the statements that move deliveries keep.
func (m *memStore) UpdateMessage(ctx context.Context, teamID, id string, change func(*domain.Message) error) (*domain.Message, error) {
	msg, err := m.Message(ctx, teamID, id)
	if err != nil {
		return nil, err
	}
	old := *msg
	if err := change(msg); err != nil {
		return nil, err
	}
	stored := *msg
	stored.QueuedCount, stored.SentCount, stored.DeliveredCount = old.QueuedCount, old.SentCount, old.DeliveredCount
	stored.FailedCount, stored.UnconfirmedCount, stored.SkippedCount = old.FailedCount, old.UnconfirmedCount, old.SkippedCount
	stored.HeldNow = 0
	m.messages[msg.ID] = stored
	return msg, nil
}

// teamMessages are the team's messages that keep, ordered by cmp.
func (m *memStore) teamMessages(teamID string, keep func(domain.Message) bool, cmp func(a, b domain.Message) int) []domain.Message {
	var out []domain.Message
	for _, msg := range m.messages {
		if msg.TeamID == teamID && keep(msg) {
			out = append(out, msg)
		}
	}
	slices.SortFunc(out, cmp)
	return out
}

// oldestFirst orders messages by creation, then id.
func oldestFirst(a, b domain.Message) int {
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func (m *memStore) Messages(_ context.Context, teamID string, limit, offset int) ([]domain.Message, error) {
	all := m.teamMessages(teamID, func(domain.Message) bool { return true }, func(a, b domain.Message) int { return oldestFirst(b, a) })
	return page(all, limit, offset), nil
}

func (m *memStore) Approvals(_ context.Context, teamID string, limit, offset int) ([]domain.Message, error) {
	waiting := m.teamMessages(teamID, func(msg domain.Message) bool { return msg.Status == domain.StatusPendingApproval }, oldestFirst)
	return page(waiting, limit, offset), nil
}

func (m *memStore) ExpireApproval(_ context.Context, messageID string, at time.Time) error {
	if msg, ok := m.messages[messageID]; ok && msg.Status == domain.StatusPendingApproval {
		msg.Status, msg.DecidedAt = domain.StatusExpired, &at
		m.messages[messageID] = msg
	}
	return nil
}

func (m *memStore) LiveResend(_ context.Context, teamID, messageID string) (string, error) {
	live := m.teamMessages(teamID, func(msg domain.Message) bool {
		return msg.ResendOf == messageID && msg.Status != domain.StatusRejected && msg.Status != domain.StatusExpired
	}, oldestFirst)
	if len(live) == 0 {
		return "", nil
	}
	return live[0].ID, nil
}

// InsertQueued writes the deliveries, counts them on the message and keeps
// the recipients' own texts; like the statement, it needs a transaction.
func (m *memStore) InsertQueued(ctx context.Context, teamID, messageID string, at, done time.Time, ids id.Series, phones []string, memberIDs [][]string, texts []domain.Text, held []time.Time) error {
	if len(phones) == 0 {
		return nil
	}
	if ctx.Value(inTx{}) == nil {
		return fmt.Errorf("insert deliveries: no transaction")
	}
	ds := slices.Clone(m.deliveries[messageID])
	heldNow := 0
	for i, p := range phones {
		d := domain.Delivery{ID: ids.At(uint32(i + 1)), TeamID: teamID, MessageID: messageID, Phone: p, MemberIDs: slices.Clone(memberIDs[i]),
			Seq: i + 1, Status: domain.DeliveryQueued, UpdatedAt: at}
		if held != nil && !held[i].IsZero() {
			until := held[i]
			d.HeldUntil, heldNow = &until, heldNow+1
		}
		ds = append(ds, d)
	}
	m.deliveries[messageID] = ds
	if texts != nil {
		m.texts[messageID] = texts
	}
	if msg, ok := m.messages[messageID]; ok {
		msg.QueuedCount += len(phones)
		msg.EstimatedCompletion, msg.HeldForQuietHours = &done, heldNow
		m.messages[messageID] = msg
	}
	return nil
}

// CountBroadcast adds to the daily analytics, which no method of the
// store reads back: nothing to keep.
func (m *memStore) CountBroadcast(context.Context, *domain.Message, int, time.Time) error { return nil }

func (m *memStore) HeldQueued(_ context.Context, messageID string, now time.Time) (int, error) {
	n := 0
	for _, d := range m.deliveries[messageID] {
		if d.Status == domain.DeliveryQueued && d.HeldUntil != nil && d.HeldUntil.After(now) {
			n++
		}
	}
	return n, nil
}

func (m *memStore) Deliveries(_ context.Context, teamID, messageID, status string, limit, offset int) ([]domain.Delivery, error) {
	if msg, ok := m.messages[messageID]; !ok || msg.TeamID != teamID {
		return nil, domain.ErrNotFound
	}
	var out []domain.Delivery
	for _, d := range m.deliveries[messageID] {
		if status == "" || d.Status == status {
			out = append(out, d)
		}
	}
	return page(out, limit, offset), nil
}

func (m *memStore) FailedDeliveries(_ context.Context, messageID string) ([]domain.FailedDelivery, error) {
	return m.failed[messageID], nil
}

func (m *memStore) RecordPollRecipients(_ context.Context, _, messageID string, _, _ time.Time, entries int) error {
	m.polls[messageID] = entries
	return nil
}

// PollTallies has no answers to count: only inbound filing writes them.
func (m *memStore) PollTallies(_ context.Context, messageID string) (map[string]int, int, error) {
	return map[string]int{}, m.polls[messageID], nil
}

func (m *memStore) Responses(context.Context, string, int, int, int) ([]domain.Response, error) {
	return nil, nil
}
