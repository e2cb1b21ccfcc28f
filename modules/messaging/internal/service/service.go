// Package service holds messaging's use cases: templates, estimates and
// sends, approvals, scheduled and weekly sends, and delivery ingestion.
package service

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/idempotency"
)

// Deps are the service's collaborators: the one list of them, filled by
// the module's wiring or written out by a test.
type Deps struct {
	// DB runs use cases in one transaction (*db.DB).
	DB Transactor
	// MessageStore keeps messages and their deliveries (postgres.Repo).
	MessageStore MessageStore
	// IdempotencyStore keeps Idempotency-Key records (postgres.Repo).
	IdempotencyStore IdempotencyStore
	// TemplateStore keeps the team's saved templates (postgres.Repo).
	TemplateStore TemplateStore
	// ScheduledStore keeps scheduled sends and weekly series (postgres.Repo).
	ScheduledStore ScheduledStore
	Jobs           JobInserter
	Clock          clock.Clock
	Teams          rosterapi.Teams
	Members        rosterapi.Members
	Audience       rosterapi.Audience
	Lookup         rosterapi.Lookup
	// Merge reads custom fields' values for the dashboard's merge tags.
	Merge    rosterapi.MergeFields
	Billing  billingapi.Accounts
	Events   events.Publisher
	Outbound Planner
	Log      *slog.Logger
	// Classify is the carrier's code mapping: which failures are
	// permanent for the number, and so are not resent.
	Classify domain.Classifier
}

// JobInserter inserts River jobs in the caller's transaction (*jobs.Jobs).
type JobInserter interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// Transactor runs fn in a transaction carried by its ctx (*db.DB); a
// nested call joins the outer one. The stores' writes run in it. Savepoint
// runs fn in a savepoint of that transaction and rolls back to it when fn
// fails.
type Transactor interface {
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
	Savepoint(ctx context.Context, name string, fn func(ctx context.Context) error) error
}

// MessageStore is where sends keep their messages and deliveries; writes
// run inside the caller's transaction. Loads of a message take the team
// id and return domain.ErrNotFound for another team's message.
type MessageStore interface {
	InsertMessage(ctx context.Context, m *domain.Message) error
	Message(ctx context.Context, teamID, id string) (*domain.Message, error)
	// LockMessage reads a message locked for the rest of the transaction.
	LockMessage(ctx context.Context, teamID, id string) (*domain.Message, error)
	// UpdateMessage locks a message, lets change alter it and writes every
	// field back but its delivery counts (nothing when change fails).
	UpdateMessage(ctx context.Context, teamID, id string, change func(*domain.Message) error) (*domain.Message, error)
	// Messages and Approvals return limit+1 rows: newest first, and the
	// messages awaiting approval oldest first.
	Messages(ctx context.Context, teamID string, limit, offset int) ([]domain.Message, error)
	Approvals(ctx context.Context, teamID string, limit, offset int) ([]domain.Message, error)
	// ExpireApproval ends a message still awaiting approval (one decided
	// meanwhile is left as it is).
	ExpireApproval(ctx context.Context, messageID string, at time.Time) error
	// LiveResend is the id of a resend of messageID that is sent or on its
	// way, or "".
	LiveResend(ctx context.Context, teamID, messageID string) (string, error)
	// InsertQueued writes a message's queued deliveries (one per phone, in
	// order, ids from ids), counts them on the message and sets its
	// estimated completion to done.
	// texts are the recipients' own texts (merge tags), by position; nil
	// when every recipient gets the message's text.
	InsertQueued(ctx context.Context, teamID, messageID string, at, done time.Time, ids id.Series, phones []string, memberIDs [][]string, texts []domain.Text, held []time.Time) error
	// HeldQueued counts a message's texts still held at now.
	HeldQueued(ctx context.Context, messageID string, now time.Time) (int, error)
	// CountBroadcast adds a dispatched message to the daily analytics.
	CountBroadcast(ctx context.Context, m *domain.Message, deliveries int, at time.Time) error
	// Deliveries is a page of team teamID's message's deliveries, in
	// position order (limit+1 rows), or domain.ErrNotFound when the team
	// has no such message.
	Deliveries(ctx context.Context, teamID, messageID, status string, limit, offset int) ([]domain.Delivery, error)
	FailedDeliveries(ctx context.Context, messageID string) ([]domain.FailedDelivery, error)
	// RecordPollRecipients notes the numbers of a dispatched poll's
	// deliveries, sent at at and open until until, and the roster entries
	// they reached (one statement).
	RecordPollRecipients(ctx context.Context, teamID, messageID string, at, until time.Time, entries int) error
	// PollTallies counts a poll's answers per option, and its recipients:
	// the roster entries its deliveries reached.
	PollTallies(ctx context.Context, messageID string) (tallies map[string]int, recipients int, err error)
	// Responses is a page of a poll's answers, newest first (limit+1
	// rows), of the total answers its tallies count.
	Responses(ctx context.Context, messageID string, total, limit, offset int) ([]domain.Response, error)
}

// IdempotencyStore keeps the Idempotency-Key records of sends: the store
// of platform/idempotency's decorator (IdempotencyKeys).
type IdempotencyStore = idempotency.Store

// TemplateStore is where the templates use cases keep a team's templates.
// Changes run inside the caller's transaction; LockTemplates serialises a
// team's changes, so the limit and name checks see each other.
type TemplateStore interface {
	Templates(ctx context.Context, teamID string, limit, offset int) ([]domain.Template, error)
	CountTemplates(ctx context.Context, teamID string) (int, error)
	// Template reads a live template.
	Template(ctx context.Context, teamID, id string) (*domain.Template, error)
	// TemplateByName reads a template by name, deleted or not, locked.
	TemplateByName(ctx context.Context, teamID, name string) (*domain.Template, error)
	InsertTemplate(ctx context.Context, t *domain.Template) error
	// UpdateTemplate locks a live template, lets change alter it and
	// writes it back (nothing when change fails).
	UpdateTemplate(ctx context.Context, teamID, id string, change func(*domain.Template) error) (*domain.Template, error)
	// WriteTemplate writes every field of a template read with TemplateByName.
	WriteTemplate(ctx context.Context, t *domain.Template) error
	LockTemplates(ctx context.Context, teamID string) error
}

// ScheduledStore is where scheduled sends wait for their time; run, cancel
// and the pending limit read and change them in the caller's transaction.
type ScheduledStore interface {
	InsertScheduled(ctx context.Context, s *domain.Scheduled) error
	// Scheduled reads a scheduled send by id (and team, unless teamID is "").
	Scheduled(ctx context.Context, teamID, id string) (*domain.Scheduled, error)
	// UpdateScheduled locks a scheduled send (by id, and team unless
	// teamID is ""), lets change alter it and writes it back (nothing when
	// change fails).
	UpdateScheduled(ctx context.Context, teamID, id string, change func(*domain.Scheduled) error) (*domain.Scheduled, error)
	PendingScheduled(ctx context.Context, teamID string, limit, offset int) ([]domain.Scheduled, error)
	CountPendingScheduled(ctx context.Context, teamID string) (int, error)
}

// Planner plans accepted sends on the team's sending numbers (package outbound).
type Planner interface {
	Plan(ctx context.Context, p outbound.SendPlan) (outbound.Planned, error)
	Completion(ctx context.Context, team rosterapi.Team, phones []string, segments int, urgent bool) (outbound.Estimate, error)
}

// Service is messaging's application layer.
type Service struct{ Deps }

// New builds the service.
func New(d Deps) *Service { return &Service{Deps: d} }

var (
	errMessageNotFound   = fault.NotFoundf("message not found")
	errTemplateNotFound  = fault.NotFoundf("template not found")
	errScheduledNotFound = fault.NotFoundf("scheduled message not found")
)

func mapNotFound(err error, nf *fault.Error) error {
	if errors.Is(err, domain.ErrNotFound) {
		return nf
	}
	return err
}
