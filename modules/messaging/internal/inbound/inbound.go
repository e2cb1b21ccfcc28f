// Package inbound holds messaging's inbound use cases: texts people send to
// a team's number, the STOP/START/HELP keywords, the staff inbox, replies
// to one person, held texts, and analytics.
//
// Ingestion. A carrier callback (the simulator's POST /simulator/inbound,
// or Twilio's inbound webhook) only stages the text (Enqueue) and answers
// at once. The filers (Filer) then file staged texts in batches, each in
// one transaction (File): for each text it finds the team by the number
// texted (an unknown number is logged and dropped), stores the text once
// per provider message id (a carrier retrying its callback creates no
// second text), matches the member, sets keyword, acts on the keyword, and
// publishes message.received; see file.go for the batch and its order.
//
// Member. Several roster entries may share a number (a parent of two
// athletes). member is the oldest active entry with the number; if none is
// active (all opted out, pending or blocked), the oldest entry; null when
// the number is not on the roster. The member is a snapshot taken when the
// text arrives, so later roster changes do not rewrite past texts.
//
// group_id is the group of the latest broadcast the team sent to the
// sender's number, when that broadcast went to a group; null otherwise
// (no broadcast yet, or the latest went to all, staff or families).
//
// Keywords: see MatchKeyword. Keyword texts are listed by GET
// /inbound-messages and announced like any text, but they are handled by the
// service and never appear in the staff inbox.
//
// Held texts. A text that arrives while the team's renewal payment is
// overdue is stored held: its keyword takes effect at once (opting out is
// never delayed), but it is not listed and message.received is not
// published until payment succeeds (Releaser.ReleaseHeld).
package inbound

import (
	"context"
	"log/slog"
	"time"

	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Queue is the River queue of one-to-one replies (and of the ingestion
// jobs of versions before staging), with slots of its own. Inbound texts
// are filed by the Filer's loops, outside River: a STOP is honoured at
// once, however long the send backlog.
const Queue = "inbound"

// Error codes of the inbound use cases (spec §7).
const (
	CodeOptedOut        = "opted_out"
	CodeNoSender        = "no_sender"
	CodePaymentRequired = "payment_required"
)

// Deps are the inbound use cases' collaborators: the one list of them,
// filled from the application graph (fx.In) or written out by a test.
type Deps struct {
	fx.In
	DB   *db.DB
	Repo *postgres.Repo
	// InboxStore keeps the staff inbox's read and reply state; Counters
	// sums the analytics counters (both postgres.Repo).
	InboxStore InboxStore
	Counters   Counters
	// ReplyStore keeps one-to-one replies and the team's HELP text (postgres.Repo).
	ReplyStore ReplyStore
	Jobs       *jobs.Jobs
	Clock      clock.Clock
	Teams      rosterapi.Teams
	Members    rosterapi.Members
	// Lookup finds a team by any of its sending numbers, its own or one
	// added to it (the module's "numbers" lookup, not roster's alone).
	Lookup  rosterapi.Lookup `name:"numbers"`
	OptOuts rosterapi.OptOuts
	Stats   rosterapi.Stats
	Billing billingapi.Accounts
	Events  events.Publisher
	Carrier carrier.Carrier
	Log     *slog.Logger
	// Deliverability clears a number's undeliverable mark when it texts
	// the team (issue 18); nil: not kept.
	Deliverability rosterapi.Deliverability

	// Keywords carries out STOP and START and keeps every keyword text in
	// the number's consent history (roster's consent record).
	Keywords rosterapi.Keywords
}

// InboxStore is where the inbox use cases read a team's visible texts and
// keep their read and reply state.
type InboxStore interface {
	InboundMessages(ctx context.Context, teamID string, limit, offset int) ([]postgres.Inbound, error)
	Inbox(ctx context.Context, teamID string, f postgres.InboxFilter, limit, offset int) ([]postgres.Inbound, error)
	InboxItem(ctx context.Context, teamID, id string, forUpdate bool) (*postgres.Inbound, error)
	UnreadCount(ctx context.Context, teamID string) (int, error)
	MarkRead(ctx context.Context, teamID, id string, at time.Time) (*postgres.Inbound, error)
	MarkAllRead(ctx context.Context, teamID string, at time.Time) (int, error)
	SetLatestReply(ctx context.Context, teamID, id string, rp *postgres.Reply) error
}

// ReplyStore is where replies to one person (staff replies, HELP answers)
// and the team's HELP text are kept.
type ReplyStore interface {
	InsertReply(ctx context.Context, rp *postgres.Reply) error
	ReplyForSend(ctx context.Context, teamID, id string) (*postgres.Reply, error)
	UpdateReply(ctx context.Context, rp *postgres.Reply) error
	HelpText(ctx context.Context, teamID string) (string, error)
	SetHelpText(ctx context.Context, teamID, text string, at time.Time) error
}

// Counters are the analytics counters GET /analytics sums (their writers
// are the send, status and filing paths, in their own transactions).
type Counters interface {
	SumStats(ctx context.Context, teamID string, from, to time.Time) (postgres.DailyStats, error)
}

// Service runs the inbound use cases. It holds its Deps by pointer: fx
// refuses a pointer to a struct that embeds fx.In by value, and the graph
// hands out *Service.
type Service struct{ *Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{Deps: &d} }

var errTextNotFound = fault.NotFoundf("inbound text not found in the inbox")
