// Package outbound is messaging's delivery engine: a team's sending
// numbers, the plan that paces each number's texts, and the hand-over of
// texts to the carrier.
//
// Accepting a send plans it (Plan, in the send's transaction): each
// recipient gets a sending number (the one that texted them before, when
// the team has several), and each number's texts are placed into its next
// slots by its schedule (domain.Schedule), which lives on the number's row
// and is advanced under that row's lock, so two nodes never overbook a
// number. Each slot is a row naming the send's deliveries by position.
//
// An urgent send (an urgent alert) is planned ahead: on each number it
// goes from, its texts take the earliest slots the pace allows after the
// urgent sends queued before it, and the number's other queued slots move
// later together, by as much as the urgent texts need, in the same
// transaction and under the same locks. A pass holds a number's lock from
// choosing its slots to deleting them, so what moves was never handed
// over; other numbers, and other teams, are not touched.
//
// Loops hand slots over (Dispatcher). Every node runs a few; each runs a
// pass over every number whose next slot is due (selected with SKIP
// LOCKED, so loops on any number of nodes share the work and never hand
// one number over twice), then waits on a timer until the earliest instant
// any number is due again. No worker sleeps for pace, and one team's
// backlog never holds the slots or the turn of another team's texts: a
// pass takes every due number, and a send whose first slot is due now
// kicks a pass at once (a River job, KickArgs).
//
// When the carrier does not pace (the simulator's instant profile), a send
// is not planned: it is cut into batches handed over at once by parallel
// jobs (FanoutArgs).
//
// Just before texts are handed over, their recipients are checked against
// the opt-outs: a STOP that arrived after the send was accepted ends the
// delivery failed (error_code opted_out), never handed to the carrier.
package outbound

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/fault"
)

// Queue is the River queue of the engine's jobs (kicks, fan-outs),
// with slots of its own.
const Queue = "outbound"

// Errors the store returns.
var (
	ErrNotFound    = errors.New("outbound: not found")
	ErrNumberTaken = errors.New("outbound: number belongs to a team already")
)

// Number is one of a team's sending numbers with its pacing state.
type Number struct {
	ID     string
	TeamID string
	Number string // E.164, or a short code's digits
	Kind   domain.NumberKind
	// Throughput is the number's own setting; nil means the default.
	Throughput *float64
	Primary    bool
	Schedule   domain.Schedule // Pace is filled in by the service
	NextAt     time.Time       // when a pass should look at it; zero: nothing planned
	Backlog    int64           // segments planned and not yet handed over
	// CarrierAccountID is the carrier account the number sends through
	// (domain.DefaultAccountID, the environment's, unless set).
	CarrierAccountID string
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// AccountID is the number's carrier account, the default when unset.
func (n Number) AccountID() string {
	if n.CarrierAccountID == "" {
		return domain.DefaultAccountID
	}
	return n.CarrierAccountID
}

// ScheduleUpdate is a number's new pacing state after planning or a hand-over.
type ScheduleUpdate struct {
	NumberID     string
	Schedule     domain.Schedule
	NextAt       time.Time // zero: nothing left to hand over
	BacklogDelta int64
}

// NewSlot is a planned hand-over to write.
type NewSlot struct {
	NumberID  string
	MessageID string
	DueAt     time.Time
	Seqs      []int32 // positions of the send's deliveries
	Segments  int
	Urgent    bool // an urgent send's: planned ahead of the number's other queued slots
}

// Slot is a planned hand-over read back.
type Slot struct {
	ID        int64
	NumberID  string
	MessageID string
	DueAt     time.Time
	Seqs      []int32
	Segments  int
}

// Queued is what a number has planned and not yet handed over, as an
// urgent send is planned: its latest urgent slot (zero: none) with the
// segments due then, and its earliest other slot (zero: none).
type Queued struct {
	UrgentLastAt       time.Time
	UrgentLastSegments int
	FirstAt            time.Time
}

// Shift moves a number's queued slots that are not urgent By later.
type Shift struct {
	NumberID string
	By       time.Duration
}

// Due asks for a number's slots due at or before Upto, at most Limit of them.
type Due struct {
	NumberID string
	Upto     time.Time
	Limit    int
}

// TextRef names a delivery by its send and position, and the slot (0: none)
// that planned it.
type TextRef struct {
	SlotID    int64
	MessageID string
	Seq       int32
}

// Text is a queued delivery ready to hand over, with what its message says.
type Text struct {
	SlotID           int64
	DeliveryID       string
	MessageID        string
	TeamID           string
	Phone            string
	Body             string
	Segments         int
	GroupID          string
	MessageCreatedAt time.Time
}

// Sent is the carrier's acceptance of one delivery.
type Sent struct {
	DeliveryID, ProviderMessageID, CarrierStatus string
}

// Broadcast records that a send reached a number (inbound replies are
// filed under the latest one).
type Broadcast struct {
	TeamID, Phone, MessageID, GroupID string
	MessageCreatedAt                  time.Time
}

// Store is what the engine needs of the database. Writers run in the
// caller's transaction.
type Store interface {
	// Numbers lists a team's numbers, primary first, then oldest first.
	Numbers(ctx context.Context, teamID string) ([]Number, error)
	// Number loads one of a team's numbers (ErrNotFound).
	Number(ctx context.Context, teamID, id string) (Number, error)
	// NumberByValue finds the number with this value, of any team (ErrNotFound).
	NumberByValue(ctx context.Context, value string) (Number, error)
	// NumbersByValue loads the numbers among values, of any teams.
	NumbersByValue(ctx context.Context, values []string) ([]Number, error)
	// InsertNumber stores a number (ErrNumberTaken if any team has it).
	InsertNumber(ctx context.Context, n Number) error
	// UpdateNumber writes a number's kind, throughput and updated_at.
	UpdateNumber(ctx context.Context, n Number) error
	// DeleteNumber removes a number and the senders that point at it.
	DeleteNumber(ctx context.Context, teamID, id string) error
	// LockNumbers loads numbers by id, locked, in id order.
	LockNumbers(ctx context.Context, ids []string) ([]Number, error)
	// SaveSchedules writes numbers' pacing state.
	SaveSchedules(ctx context.Context, us []ScheduleUpdate) error

	// Senders returns, for those of phones that have one, the number they
	// were last planned from; SetSenders records it.
	Senders(ctx context.Context, teamID string, phones []string) (map[string]string, error)
	SetSenders(ctx context.Context, teamID string, phones, numberIDs []string) error

	// InsertSlots writes planned hand-overs.
	InsertSlots(ctx context.Context, ss []NewSlot) error
	// Queues returns the queues of those of numberIDs with slots planned.
	Queues(ctx context.Context, numberIDs []string) (map[string]Queued, error)
	// Busy returns each number's slots due from on, earliest first, with
	// the segments due at each instant (quiet hours plan around them).
	Busy(ctx context.Context, numberIDs []string, from time.Time) (map[string][]domain.Busy, error)
	// ShiftSlots moves each number's queued slots that are not urgent later
	// by its shift, and the estimated completion of the sends they hold
	// with them.
	ShiftSlots(ctx context.Context, ss []Shift) error
	// DueNumbers locks, skipping those locked by others, up to limit
	// numbers whose next_at has come, earliest first.
	DueNumbers(ctx context.Context, now time.Time, limit int) ([]Number, error)
	// Heads returns each number's earliest planned slot (absent: none).
	Heads(ctx context.Context, numberIDs []string) (map[string]time.Time, error)
	// DueSlots returns, for each request, the number's slots due by Upto,
	// earliest first, at most Limit.
	DueSlots(ctx context.Context, ds []Due) ([]Slot, error)
	// DeleteSlots removes slots that were handed over.
	DeleteSlots(ctx context.Context, ids []int64) error
	// NextWake is the earliest next_at of any number (zero: none).
	NextWake(ctx context.Context) (time.Time, error)

	// LockMessages locks messages in id order (a hand-over touching several).
	LockMessages(ctx context.Context, ids []string) error
	// QueuedTexts returns the deliveries refs name that are still queued, in
	// refs' order, with their messages' text.
	QueuedTexts(ctx context.Context, refs []TextRef) ([]Text, error)
	// RecordSenders records the number each delivery (by id) is handed
	// over from.
	RecordSenders(ctx context.Context, from map[string]string) error
	// MarkSent records the carrier's acceptance of deliveries still queued.
	MarkSent(ctx context.Context, ss []Sent, at time.Time) error
	// AddSkipped counts deliveries never handed over, per message.
	AddSkipped(ctx context.Context, perMessage map[string]int) error
	// RecordBroadcasts makes each send the latest to its number, unless a newer one is.
	RecordBroadcasts(ctx context.Context, bs []Broadcast) error
	// CompleteMessages marks sent the messages, of those given, with nothing left queued.
	CompleteMessages(ctx context.Context, ids []string, at time.Time) error
	// Backlogs lists numbers with planned segments, for the backlog gauge.
	Backlogs(ctx context.Context) (map[string]int64, error)
}

// Inserter inserts River jobs in the transaction carried by ctx.
type Inserter interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertMany(ctx context.Context, params []river.InsertManyParams) error
}

// Ingester applies statuses to deliveries (package ingest).
type Ingester interface {
	Apply(ctx context.Context, as []carrier.StatusArgs) error
}

// Deps are the engine's collaborators.
type Deps struct {
	DB      *db.DB
	Store   Store
	Jobs    Inserter
	Clock   clock.Clock
	Carrier carrier.Carrier
	Teams   rosterapi.Teams
	Lookup  rosterapi.Lookup
	OptOuts rosterapi.OptOuts
	Ingest  Ingester
	Log     *slog.Logger
	// DefaultPace is a number's throughput unless set (TWILIO_RATE).
	DefaultPace domain.Pace
	// HandoverDelay observes seconds from a send's acceptance to each of
	// its texts' hand-over; nil: not measured.
	HandoverDelay prometheus.Observer
	// Lead is how far ahead of a number's turn a pass may take it: its
	// reads are done by then and its texts wait for the turn. 0 with a
	// test clock (which does not move by itself).
	Lead time.Duration
	// HandedOver counts the texts this node handed to the carrier.
	HandedOver prometheus.Counter
	// Quiet are the teams' quiet hours and Zones the members' own zones;
	// nil Quiet: no team holds texts at night.
	Quiet QuietRules
	Zones MemberZones
	// HoldDuration observes how long quiet hours hold each held text; nil:
	// not measured.
	HoldDuration prometheus.Observer
	// Accounts checks a carrier account a number is moved to; nil: numbers
	// stay on the default account.
	Accounts AccountChecker
	// Failovers moves queued texts off carrier accounts that are down
	// (Failover); a nil Store: never.
	Failovers FailoverDeps
}

// AccountChecker checks that a carrier account exists and can send.
type AccountChecker interface {
	// Usable answers a 400 invalid_request naming carrier_account_id when
	// the account does not exist or is deleted.
	Usable(ctx context.Context, accountID string) error
}

// Service is the engine.
type Service struct{ Deps }

// New returns the engine.
func New(d Deps) *Service { return &Service{Deps: d} }

var errNumberNotFound = fault.NotFoundf("sending number not found")

func mapNotFound(err error, nf *fault.Error) error {
	if errors.Is(err, ErrNotFound) {
		return nf
	}
	return err
}

// pace is a number's effective throughput.
func (s *Service) pace(n Number) domain.Pace {
	if n.Throughput != nil {
		return domain.Pace(*n.Throughput)
	}
	return s.DefaultPace
}

// withPace fills in the numbers' schedules' pace.
func (s *Service) withPace(ns []Number) []Number {
	for i := range ns {
		ns[i].Schedule.Pace = s.pace(ns[i])
	}
	return ns
}
