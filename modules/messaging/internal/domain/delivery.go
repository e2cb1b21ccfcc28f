package domain

import (
	"time"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// Delivery is one recipient's text as the status rules see it. Its status
// moves only forward, through Apply: queued → sent → a final status
// (delivered, failed, delivery_unconfirmed), and the first final status
// wins. Carriers report late, twice and out of order; every such report
// that would move a delivery backwards or sideways changes nothing.
type Delivery struct {
	ID                string
	TeamID            string
	MessageID         string
	Phone             string   // E.164
	MemberIDs         []string // the roster entries the text reached (one phone, several entries)
	Seq               int      // position in the message, 1..n
	Status            string
	CarrierStatus     string
	ProviderMessageID string
	ErrorCode         string
	ErrorMessage      string
	SentAt            *time.Time
	UpdatedAt         time.Time
	// HeldUntil is when a text held for its recipient's quiet hours was
	// planned to go (nil: not held).
	HeldUntil *time.Time
}

// Report is a word about a delivery: a carrier's status callback, the
// carrier's refusal at hand-over, an opt-out that stopped it, or the
// unconfirmed timeout.
type Report struct {
	Status            string
	CarrierStatus     string
	ProviderMessageID string
	ErrorCode         string
	ErrorMessage      string
	At                time.Time
}

// Not handed over: why a queued delivery ended without reaching the carrier.
const (
	// CodeOptedOut is the error_code of a delivery whose recipient opted out
	// (STOP, or an opt-out recorded through the API) after the send was
	// accepted and before the text's turn to be handed to the carrier.
	CodeOptedOut = rosterapi.CodeOptedOut
	// CarrierNotSent is the carrier_status of such a delivery: the carrier
	// never saw it.
	CarrierNotSent = "not_sent"
)

// OptedOutReport ends a queued delivery whose recipient opted out before
// its turn: failed, never handed to the carrier.
func OptedOutReport(at time.Time) Report {
	return Report{Status: DeliveryFailed, CarrierStatus: CarrierNotSent, ErrorCode: CodeOptedOut,
		ErrorMessage: "the recipient opted out before this text was handed to the carrier; it was not sent", At: at}
}

// Rank orders delivery statuses: queued 0, sent 1, every final status 2.
func Rank(status string) int {
	switch status {
	case DeliveryQueued:
		return 0
	case DeliverySent:
		return 1
	}
	return 2
}

// Apply moves d forward by r and reports whether anything changed. A
// report whose status does not rank above d's is ignored whole. The error
// fields are kept for failures only; a provider id, once known, is kept
// unless the report carries one.
func (d *Delivery) Apply(r Report) bool {
	if Rank(r.Status) <= Rank(d.Status) {
		return false
	}
	d.Status, d.CarrierStatus, d.UpdatedAt = r.Status, r.CarrierStatus, r.At.UTC()
	if r.ProviderMessageID != "" {
		d.ProviderMessageID = r.ProviderMessageID
	}
	if r.Status == DeliveryFailed {
		d.ErrorCode, d.ErrorMessage = r.ErrorCode, r.ErrorMessage
	}
	if d.SentAt == nil && r.CarrierStatus != CarrierNotSent {
		at := d.UpdatedAt
		d.SentAt = &at
	}
	return true
}
