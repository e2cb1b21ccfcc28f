// Package inbound holds messaging's inbound use cases: texts people send to
// a team's number, the STOP/START/HELP keywords, the staff inbox, replies
// to one person, held texts, and analytics. Each capability is its own
// type with its own Deps and store: Service (filing and keywords, with
// FilingStore), Releaser (held texts, HoldStore), Inbox (InboxStore),
// Replies (ReplyStore) and Analytics (Counters); the rules are on the
// domain types (domain.Inbound, domain.Reply, domain.InboxFilter).
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
// Keywords: see domain.MatchKeyword. Keyword texts are listed by GET
// /inbound-messages and announced like any text, but they are handled by the
// service and never appear in the staff inbox.
//
// Two-way texts (route.go): a text that is no STOP, START or HELP may be a
// join, one of the team's own keywords (teamkeyword.go: answered, and its
// group joined; it stays in the inbox) or a poll answer.
//
// Held texts. A text that arrives while the team's renewal payment is
// overdue is stored held: its keyword takes effect at once (opting out is
// never delayed), but it is not listed and message.received is not
// published until payment succeeds (Releaser.ReleaseHeld).
package inbound

import (
	"context"
	"log/slog"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
)

// Queue is the River queue of one-to-one replies (and of the ingestion
// jobs of versions before staging), with slots of its own. Inbound texts
// are filed by the Filer's loops, outside River: a STOP is honoured at
// once, however long the send backlog.
const Queue = "inbound"

// Error codes of the inbound use cases (spec §7).
const (
	CodeOptedOut        = domain.CodeOptedOut
	CodeNoSender        = domain.CodeNoSender
	CodePaymentRequired = domain.CodePaymentRequired
)

// Deps are filing's collaborators (ingestion and keywords): the one list
// of them, filled by the module's wiring or written out by a test. The
// inbox, replies, analytics and the releaser have their own.
type Deps struct {
	Tx    Transactor
	Store FilingStore
	// Help answers a HELP text (*Replies).
	Help  HelpReplier
	Clock clock.Clock
	// Lookup finds a team by any of its sending numbers, its own or one
	// added to it (outbound.NumberLookup, not roster's alone), and
	// the roster entries of a batch's senders.
	Lookup  rosterapi.Lookup
	Billing billingapi.Accounts
	Events  events.Publisher
	Log     *slog.Logger
	// Deliverability clears a number's undeliverable mark when it texts
	// the team; nil: not kept.
	Deliverability rosterapi.Deliverability
	// Keywords carries out STOP and START and keeps every keyword text in
	// the number's consent history (roster's consent record).
	Keywords rosterapi.Keywords
	// TeamKeywords answers the texts that are one of their team's own
	// keywords (*TeamKeywords; nil: none are).
	TeamKeywords KeywordAnswerer
	// Joining signs numbers up by text (roster); Answers queues its
	// answers (*Replies). Either nil: the step claims nothing.
	Joining rosterapi.Joining
	Answers Answerer
}

// Answerer queues the service's automatic answer to a text it acted on
// (*Replies).
type Answerer interface {
	QueueAnswer(ctx context.Context, in *domain.Inbound, kind, body string) error
}

// HelpReplier queues the answer to a HELP text (*Replies).
type HelpReplier interface {
	QueueHelp(ctx context.Context, team rosterapi.Team, in *domain.Inbound) error
}

// Service files inbound texts and carries out their keywords.
type Service struct{ Deps }

// New returns the filing service.
func New(d Deps) *Service { return &Service{Deps: d} }

var errTextNotFound = fault.NotFoundf("inbound text not found in the inbox")
