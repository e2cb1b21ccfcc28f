// Package carrier is messaging's port to SMS carriers: the Carrier
// interface, the normalised status update every adapter produces, and the
// River job that ingests it.
package carrier

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// Message is one text handed to a carrier.
type Message struct {
	DeliveryID string // also the idempotency key: a carrier that supports one dedupes on it
	TeamID     string
	From, To   string // E.164
	Body       string
	Segments   int
}

// Receipt is the carrier's acceptance of a text.
type Receipt struct {
	ProviderMessageID string
	Status            string // the carrier's own status at acceptance (e.g. "queued")
	// At is when the carrier took the text by its own account, when it
	// says (the simulator does; Twilio's API does not). Pacing counts a
	// number's next window from it; without it, from the end of the call.
	At time.Time
}

// Carrier sends texts. Send must be safe to call again for the same
// DeliveryID after a crash: adapters that can, dedupe on it.
type Carrier interface {
	Name() string
	Send(ctx context.Context, m Message) (Receipt, error)
	// Paced reports whether the carrier sends each number's texts at the
	// number's throughput (every real carrier does), so that messaging must
	// plan them at that pace. The simulator's instant profile does not.
	Paced(ctx context.Context) (bool, error)
}

// BusyError is a carrier asking to slow down (HTTP 429, Twilio's 20429):
// nothing was sent, and the sending number should wait RetryAfter (zero:
// the carrier did not say) before its next hand-over.
type BusyError struct {
	RetryAfter time.Duration
	Err        error
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("carrier busy (retry after %s): %v", e.RetryAfter, e.Err)
}

func (e *BusyError) Unwrap() error { return e.Err }

// IsBusy returns the BusyError in err's chain, if any.
func IsBusy(err error) (*BusyError, bool) {
	var b *BusyError
	return b, errors.As(err, &b)
}

// ErrUnavailable is wrapped by the *BusyError a carrier router returns,
// without calling the carrier, while an account's carrier is known to be
// down (its breaker is open): the texts wait on their numbers' schedules,
// and the outage was logged once when it began.
var ErrUnavailable = errors.New("carrier account unavailable")

// PermanentError is a refusal that retrying cannot fix (an invalid or
// unreachable number): the delivery fails at once with this code.
type PermanentError struct {
	Code    string
	Message string
}

func (e *PermanentError) Error() string {
	return fmt.Sprintf("carrier refused: %s %s", e.Code, e.Message)
}

// IsPermanent returns the PermanentError in err's chain, if any.
func IsPermanent(err error) (*PermanentError, bool) {
	var p *PermanentError
	return p, errors.As(err, &p)
}

// StatusArgs is a normalised delivery status from any carrier: ingesting
// it updates the delivery (idempotently, order-safe) and publishes
// message.status on final statuses. A callback stages it for the status
// filers (ingest.Sink); as a River job of its own it is what builds before
// staging enqueued, still worked so that an upgrade loses none.
type StatusArgs struct {
	DeliveryID        string    `json:"delivery_id"`
	ProviderMessageID string    `json:"provider_message_id"`
	Status            string    `json:"status"`         // sent, delivered, failed
	CarrierStatus     string    `json:"carrier_status"` // the carrier's own word
	ErrorCode         string    `json:"error_code,omitempty"`
	ErrorMessage      string    `json:"error_message,omitempty"`
	At                time.Time `json:"at"`
}

// Kind names the ingestion job.
func (StatusArgs) Kind() string { return "messaging.delivery_status" }

// StatusQueue is the River queue of delivery-status ingestion, with slots
// of its own: reports are ingested at once, however long the send backlog.
const StatusQueue = "status"

// InsertOpts puts the job in StatusQueue.
func (StatusArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: StatusQueue} }

// StatusBatchArgs carries several normalised statuses in one ingestion job,
// for carriers that report in bulk (the simulator reports every text of a
// fan-out batch at once). It goes through the same ingestion as StatusArgs.
type StatusBatchArgs struct {
	Statuses []StatusArgs `json:"statuses"`
}

// Kind names the batch ingestion job.
func (StatusBatchArgs) Kind() string { return "messaging.delivery_statuses" }

// InsertOpts puts the job in StatusQueue.
func (StatusBatchArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: StatusQueue} }

// InboundText is a text someone sent to a team's number, as a carrier
// adapter received it.
type InboundText struct {
	From, To          string // E.164 where the carrier gave a US number
	Body              string
	ProviderMessageID string // the carrier's id: a retried callback carries the same
	ReceivedAt        time.Time
}

// Sink is how carrier adapters hand messaging what they receive, in both
// directions' callbacks: status reports about texts sent, and texts sent
// to a team's number. Each call only records the work (an ingestion job,
// in its own transaction) and returns, so the adapter can answer the
// carrier at once.
type Sink interface {
	Report(ctx context.Context, s StatusArgs) error
	Receive(ctx context.Context, t InboundText) error
}

// Result is a carrier's answer for one text of a batch: a receipt, or the
// error Send would have returned for it.
type Result struct {
	Receipt Receipt
	Err     error
}

// BatchSender is implemented by carriers that accept many texts in one
// call. SendMany answers one Result per message, in order; a returned error
// means the batch as a whole failed and may be retried (the same delivery
// ids are deduplicated, as for Send).
type BatchSender interface {
	SendMany(ctx context.Context, ms []Message) ([]Result, error)
}

// FaultClassifier is implemented by carriers whose failure codes can say
// that a recipient's number cannot take texts (a landline, no such number):
// messaging counts such failures toward marking the number undeliverable,
// and leaves them out of resends. Each adapter maps its own codes.
type FaultClassifier interface {
	NumberFault(code string) domain.NumberFault
}

// Classifier returns c's code mapping, or one that finds no number faults
// for a carrier without one.
func Classifier(c Carrier) domain.Classifier {
	if fc, ok := c.(FaultClassifier); ok {
		return fc.NumberFault
	}
	return domain.NoFaults
}
