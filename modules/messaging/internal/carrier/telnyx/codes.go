package telnyx

import "github.com/teamtext/teamtext/modules/messaging/internal/domain"

// MapStatus maps a recipient's status in a Telnyx webhook
// (https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks,
// "to[].status") to the spec's delivery status. ok is false for statuses
// the ingestion job has no use for: before the carrier has the text
// (queued, sending), and delivery_unconfirmed, which is Telnyx saying it
// will never know (the delivery then ends unconfirmed by messaging's own
// timeout, as with any carrier that stays silent).
//
//	sent                            → sent
//	delivered                       → delivered
//	delivery_failed, sending_failed → failed
func MapStatus(status string) (string, bool) {
	switch status {
	case "sent":
		return "sent", true
	case "delivered":
		return "delivered", true
	case "delivery_failed", "sending_failed":
		return "failed", true
	}
	return "", false
}

// Permanent reports whether a create-time error code (an HTTP 4xx) is about
// this text, its recipient or its sender, so that asking again cannot
// succeed. Authentication, profile and unknown codes are transient: nothing
// was sent, and an operator's fix lets the delivery through.
// Codes: https://developers.telnyx.com/docs/messaging/messages/error-codes.
func Permanent(code string) bool {
	switch code {
	case "40001", "40003", "40008", "40009", "40012", "40013", "40300", "40305", "40310", "40311", "40312", "10002", "10016":
		return true
	}
	return false
}

// ErrorMessage describes the Telnyx error codes a text can end with, for
// the spec's error_message; "" for codes it does not know.
func ErrorMessage(code string) string {
	switch code {
	case "40001":
		return "not routable: a landline or non-routable number"
	case "40002":
		return "blocked as spam (temporary)"
	case "40003":
		return "blocked as spam (permanent)"
	case "40004":
		return "rejected by the destination carrier"
	case "40005":
		return "the message expired before delivery"
	case "40006":
		return "the recipient's carrier is unavailable"
	case "40008":
		return "undeliverable"
	case "40009":
		return "invalid message body"
	case "40012":
		return "invalid destination number"
	case "40013":
		return "invalid source number"
	case "40300":
		return "the recipient unsubscribed (replied STOP)"
	case "40305", "40311":
		return "invalid 'from' address"
	case "40310", "40312":
		return "invalid 'to' address"
	case "10002", "10016":
		return "the phone number is not valid"
	}
	return ""
}

// numberFaults are the Telnyx codes that say the recipient's number cannot
// take texts; the opt-out (40300) is handled as an opt-out, and spam or
// carrier-state codes say nothing about the number.
var numberFaults = map[string]domain.NumberFault{
	"40001": domain.FaultLandline,    // not routable: landline or non-routable
	"40008": domain.FaultUnreachable, // undeliverable
	"40012": domain.FaultInvalid,     // invalid destination number
	"40310": domain.FaultInvalid,     // invalid 'to' address
	"40312": domain.FaultInvalid,
	"10002": domain.FaultInvalid,
}

// NumberFault maps a Telnyx error code to what it says about the
// recipient's number ("" for every code that says nothing about it).
func NumberFault(code string) domain.NumberFault { return numberFaults[code] }
