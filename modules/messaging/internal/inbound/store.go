package inbound

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// The stores the inbound capabilities need, declared here (the consumer's
// side), one per capability, each in domain types, and implemented by
// the module's postgres package (its Repo satisfies them all; module.go
// passes it as each). Every method joins the transaction carried by ctx; a read
// by id answers domain.ErrNotFound (wrapped) for another team's id.

// Transactor runs fn in a transaction carried by its ctx (*db.DB); a
// nested call joins the outer one.
type Transactor interface {
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Inserter enqueues a job in the transaction carried by ctx (*jobs.Jobs).
type Inserter interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// Stager stages a text a carrier received (Enqueue): one statement, and a
// notification to the filers when it commits.
type Stager interface {
	StageInbound(ctx context.Context, p domain.PendingInbound) error
}

// FilingStore is ingestion's: the staged texts of a lane, the hold locks,
// the latest broadcasts' groups, and the filed texts and their analytics
// counters, each written for a whole batch in one statement.
type FilingStore interface {
	Stager
	// LockInboundLane takes a lane with staged texts no other filer holds
	// (keyword lanes first, then from first on); -1 when there is none.
	LockInboundLane(ctx context.Context, lanes, first int) (int, error)
	// TakeInbound removes up to limit staged texts of a locked lane and
	// returns them in staging order.
	TakeInbound(ctx context.Context, lane, limit int) ([]domain.PendingInbound, error)
	// NoteInboundFailure counts a failed attempt to file a staged text.
	NoteInboundFailure(ctx context.Context, id int64, cause string) error
	// LockHolds takes the teams' hold locks, shared (HoldStore.LockHold).
	LockHolds(ctx context.Context, teamIDs []string) error
	// LatestGroupsTo returns the group of each number's latest broadcast
	// from its team, for those that went to a group.
	LatestGroupsTo(ctx context.Context, pairs []rosterapi.TeamPhone) (map[rosterapi.TeamPhone]string, error)
	// InsertInbounds stores texts, skipping provider ids stored already,
	// and returns the ids of those it stored.
	InsertInbounds(ctx context.Context, ins []domain.Inbound) (map[string]bool, error)
	// CountReceivedMany adds visible texts to the analytics of their days.
	CountReceivedMany(ctx context.Context, ins []domain.Inbound) error
	// OpenPolls returns, by position, the latest open poll each text
	// (team teams[i], from phones[i], arrived at ats[i]) can answer: its
	// team's, handed over to the number before the text arrived, open at
	// its arrival; nil where none.
	OpenPolls(ctx context.Context, teams, phones []string, ats []time.Time) ([]*domain.OpenPoll, error)
	// RecordResponses stores answers, one per (poll, roster entry), each
	// replacing an older one only (domain.Response.Newer), and returns the
	// positions of those it recorded.
	RecordResponses(ctx context.Context, rs []domain.Response) ([]int, error)
	// SetResponseTo records the poll each text answered (ids[i], polls[i]).
	SetResponseTo(ctx context.Context, ids, polls []string) error
}

// HoldStore is the releaser's: a team's held texts and their release.
type HoldStore interface {
	// LockHold takes the team's hold lock: shared while texts are filed,
	// exclusive while held texts are released.
	LockHold(ctx context.Context, teamID string, exclusive bool) error
	// HeldInbound returns the team's held texts in arrival order, locked.
	HeldInbound(ctx context.Context, teamID string) ([]domain.Inbound, error)
	// ReleaseInbound makes the team's held texts with ids visible.
	ReleaseInbound(ctx context.Context, teamID string, ids []string, at time.Time) error
	// CountReceived adds a visible text to the analytics of its day.
	CountReceived(ctx context.Context, in *domain.Inbound) error
}

// InboxStore is where the inbox reads a team's visible texts and keeps
// their read and reply state. Inbox items are the texts domain.Inbound.InInbox
// accepts; the filters are domain.InboxFilter's. Lists are newest first
// and return limit+1 rows.
type InboxStore interface {
	InboundMessages(ctx context.Context, teamID string, limit, offset int) ([]domain.Inbound, error)
	Inbox(ctx context.Context, teamID string, f domain.InboxFilter, limit, offset int) ([]domain.Inbound, error)
	InboxItem(ctx context.Context, teamID, id string) (*domain.Inbound, error)
	// LockInboxItem is InboxItem, locked for the rest of the transaction.
	LockInboxItem(ctx context.Context, teamID, id string) (*domain.Inbound, error)
	UnreadCount(ctx context.Context, teamID string) (int, error)
	// MarkRead marks an inbox item read (domain.Inbound.MarkRead) and returns it.
	MarkRead(ctx context.Context, teamID, id string, at time.Time) (*domain.Inbound, error)
	MarkAllRead(ctx context.Context, teamID string, at time.Time) (int, error)
	// SetLatestReply records a staff reply on its item (domain.Inbound.Replied).
	SetLatestReply(ctx context.Context, teamID, id string, rp *domain.Reply) error
}

// ReplyStore is where replies to one person (staff replies, HELP answers)
// and the team's HELP text are kept.
type ReplyStore interface {
	InsertReply(ctx context.Context, rp *domain.Reply) error
	// ReplyForSend loads a team's reply, locked.
	ReplyForSend(ctx context.Context, teamID, id string) (*domain.Reply, error)
	UpdateReply(ctx context.Context, rp *domain.Reply) error
	// HelpText is the team's own HELP text ("" when it uses the default).
	HelpText(ctx context.Context, teamID string) (string, error)
	SetHelpText(ctx context.Context, teamID, text string, at time.Time) error
}

// Counters are the analytics counters GET /analytics sums (their writers
// are the send, status and filing paths, in their own transactions).
type Counters interface {
	SumStats(ctx context.Context, teamID string, from, to time.Time) (domain.DailyStats, error)
	// DayStats are the same counters per UTC day, in day order (days
	// with nothing counted absent); they sum to SumStats's answer.
	DayStats(ctx context.Context, teamID string, from, to time.Time) ([]domain.DayStats, error)
}
