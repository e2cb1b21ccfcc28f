package domain

import (
	"errors"
	"time"

	"github.com/teamtext/teamtext/platform/fault"
)

// ErrNotFound means no message, template, scheduled send, inbound text or
// reply has that id for the team asked about (another team's id included).
// The stores return it.
var ErrNotFound = errors.New("messaging: not found")

// Message is a broadcast: one text to an audience, one delivery per
// distinct phone. It waits for approval (pending_approval, then rejected,
// expired or queued) or is queued at once; queued becomes sent when every
// text is handed to the carrier. Its delivery counts are kept by the
// statements that move deliveries, never written from a loaded message.
type Message struct {
	ID          string
	TeamID      string
	KeyID       string
	MemberID    string
	Source      Source
	Audience    string
	GroupID     string
	TemplateID  string
	ScheduledID string
	Text        string
	Rendered    string
	Encoding    string
	Segments    int
	Recipients  int
	Status      string
	Urgent      bool
	CreatedAt   time.Time
	DecidedAt   *time.Time
	DecidedBy   string
	SentAt      *time.Time
	// EstimatedCompletion is when the last text was planned to reach the
	// carrier (nil until the send is dispatched).
	EstimatedCompletion *time.Time
	// SkippedUndeliverable counts the audience's numbers left out because
	// they are marked undeliverable; ResendOf is the message this one
	// resends to its failed recipients.
	SkippedUndeliverable int
	ResendOf             string
	// Credits is the exact cost of a send whose texts differ per
	// recipient (merge tags); 0 means Recipients × Segments.
	Credits int
	// Delivery counts by status; Skipped are the failed deliveries never
	// handed over (the recipient opted out before the text's turn).
	QueuedCount, SentCount, DeliveredCount, FailedCount, UnconfirmedCount, SkippedCount int
	// HeldForQuietHours counts the texts quiet hours held when the send was
	// planned; HeldNow those still held (read with the message, not stored).
	HeldForQuietHours, HeldNow int
	// ReplyOptions make the message a poll (upper-case; nil: not a poll),
	// open until ReplyUntil (poll.go).
	ReplyOptions []string
	ReplyUntil   *time.Time
}

// Poll reports whether the message is a poll (it has reply options).
func (m *Message) Poll() bool { return len(m.ReplyOptions) > 0 }

// Cost is the message's credits: one per segment of each recipient's text.
func (m *Message) Cost() int {
	if m.Credits > 0 {
		return m.Credits
	}
	return m.Recipients * m.Segments
}

// Text is one recipient's own text, when a send's texts differ (merge
// tags): what the carrier is handed, and its segments.
type Text struct {
	Body     string
	Segments int
}

// NewMessage is an accepted send of recipients distinct phones: awaiting
// approval when approval is required, else queued. A send with no one to
// text is refused unless it waits for approval (the audience is resolved
// again when it is approved).
func NewMessage(m Message, recipients int, approvalRequired bool) (Message, error) {
	if recipients == 0 && !approvalRequired {
		return Message{}, fault.New(fault.Conflict, fault.CodeConflict, "the audience has no one to text (no active, opted-in members)")
	}
	m.Recipients, m.Status = recipients, StatusQueued
	if approvalRequired {
		m.Status = StatusPendingApproval
	}
	return m, nil
}

// Counts are a message's deliveries by status; Skipped are the failed
// ones never handed over.
type Counts struct {
	Total, Queued, Sent, Delivered, Failed, Unconfirmed, Skipped int
}

// Counts are the message's delivery counts.
func (m *Message) Counts() Counts {
	return Counts{Total: m.QueuedCount + m.SentCount + m.DeliveredCount + m.FailedCount + m.UnconfirmedCount,
		Queued: m.QueuedCount, Sent: m.SentCount, Delivered: m.DeliveredCount, Failed: m.FailedCount, Unconfirmed: m.UnconfirmedCount,
		Skipped: m.SkippedCount}
}

// Decide records an approver's decision on a message awaiting approval:
// rejected, it is never sent; approved, it goes to the recipients resolved
// now (Approved). Any other status is a conflict.
func (m *Message) Decide(approverID string, approve bool, now time.Time) error {
	if m.Status != StatusPendingApproval {
		return fault.Newf(fault.Conflict, fault.CodeConflict, "the message is %s, not pending_approval", m.Status)
	}
	m.DecidedAt, m.DecidedBy = &now, approverID
	if !approve {
		m.Status = StatusRejected
	}
	return nil
}

// Approved sets what an approved message goes out to: recipients distinct
// phones, skipped numbers marked undeliverable. With no one left to text
// it is sent at once (nothing to hand over); else queued.
func (m *Message) Approved(recipients, skipped int) {
	m.Recipients, m.SkippedUndeliverable, m.Status = recipients, skipped, StatusQueued
	if recipients == 0 {
		m.Status = StatusSent
	}
}

// CheckResend checks that the message can be resent to its failed
// recipients: it was sent (not pending approval, rejected or expired) and
// every text has a final status. A live earlier resend is the caller's to
// check (ResentAlready).
func (m *Message) CheckResend() error {
	switch m.Status {
	case StatusPendingApproval, StatusRejected, StatusExpired:
		return fault.Newf(fault.Conflict, fault.CodeConflict, "the message is %s: it was never sent, so nothing failed", m.Status)
	}
	if c := m.Counts(); c.Queued+c.Sent > 0 {
		return fault.Newf(fault.Conflict, fault.CodeConflict, "the message is still going out: %d of its texts have no final status yet", c.Queued+c.Sent)
	}
	return nil
}

// ResentAlready is the refusal of a second resend while prior (a resend of
// the message that is sent or on its way) exists; nil when prior is "".
func ResentAlready(prior string) error {
	if prior == "" {
		return nil
	}
	return fault.Newf(fault.Conflict, fault.CodeConflict, "the message was resent already (%s); resend that message to try its failures again", prior)
}

// FailedDelivery is a failed delivery's number and error code.
type FailedDelivery struct {
	Phone     string
	ErrorCode string
}

// ResendPhones are the numbers of failed deliveries that a resend goes to:
// those whose code says nothing permanent about the number (Resendable).
func ResendPhones(fs []FailedDelivery, classify Classifier) map[string]bool {
	out := map[string]bool{}
	for _, f := range fs {
		if Resendable(DeliveryFailed, f.ErrorCode, classify) {
			out[f.Phone] = true
		}
	}
	return out
}
