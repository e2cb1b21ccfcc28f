package twilio

import (
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
)

// MapStatus maps a Twilio MessageStatus to the spec's delivery status.
// ok is false for statuses the ingestion job has no use for: the ones
// before Twilio hands the text to the carrier (queued, accepted, scheduled,
// sending; the delivery is already "sent" from our side once Twilio
// accepted it, and Twilio's word is kept as carrier_status on the next
// update), inbound statuses, and statuses Twilio may add later.
//
//	sent                           → sent
//	delivered, read                → delivered (read implies delivered)
//	partially_delivered            → delivered (some segments arrived; carrier_status keeps the detail)
//	undelivered, failed, canceled  → failed
func MapStatus(twilioStatus string) (status string, ok bool) {
	switch twilioStatus {
	case "sent":
		return "sent", true
	case "delivered", "read", "partially_delivered":
		return "delivered", true
	case "undelivered", "failed", "canceled":
		return "failed", true
	}
	return "", false
}

// Callback is the part of a Twilio status callback the adapter reads.
// Twilio sends ErrorCode, never an error message: the message comes from
// ErrorMessage.
type Callback struct {
	DeliveryID    string // the d query parameter of our StatusCallback URL
	MessageSid    string
	MessageStatus string
	ErrorCode     string
}

// StatusArgs normalises the callback for the ingestion job; ok is false
// when MapStatus ignores its status. Error fields are kept on failures only.
func (c Callback) StatusArgs(at time.Time) (carrier.StatusArgs, bool) {
	st, ok := MapStatus(c.MessageStatus)
	if !ok {
		return carrier.StatusArgs{}, false
	}
	a := carrier.StatusArgs{DeliveryID: c.DeliveryID, ProviderMessageID: c.MessageSid, Status: st,
		CarrierStatus: c.MessageStatus, At: at.UTC()}
	if st == "failed" {
		a.ErrorCode = c.ErrorCode
		a.ErrorMessage = ErrorMessage(c.ErrorCode)
		if a.ErrorMessage == "" && c.MessageStatus == "canceled" {
			a.ErrorMessage = "canceled before it was sent"
		}
	}
	return a, true
}

// ErrorMessage describes the Twilio error codes a text can end with, in the
// spec's error_message; "" for codes it does not know (the code alone is
// reported then). See https://www.twilio.com/docs/api/errors.
func ErrorMessage(code string) string {
	switch code {
	case "":
		return ""
	case "21211":
		return "invalid 'To' phone number"
	case "21212":
		return "invalid 'From' phone number"
	case "21214", "21612":
		return "the 'To' number cannot be reached by SMS"
	case "21217", "21401", "21421":
		return "the phone number is not valid"
	case "21265":
		return "the 'To' number cannot be a short code"
	case "21266":
		return "'To' and 'From' cannot be the same number"
	case "21407":
		return "the number type does not support SMS"
	case "21408":
		return "sending to this region is not enabled on the Twilio account"
	case "21602":
		return "the message body is empty"
	case "21604":
		return "the 'To' number is missing"
	case "21606", "21659", "21660":
		return "the 'From' number cannot send SMS from this Twilio account"
	case "21608":
		return "a trial account can text verified numbers only"
	case "21610":
		return "the recipient unsubscribed (replied STOP)"
	case "21611":
		return "the sending number's queue is full"
	case "21614":
		return "the 'To' number is not a mobile number"
	case "21617":
		return "the message body exceeds 1600 characters"
	case "21635":
		return "the 'To' number is a landline"
	case "30001":
		return "queue overflow"
	case "30002":
		return "the Twilio account is suspended"
	case "30003":
		return "unreachable destination handset"
	case "30004":
		return "message blocked"
	case "30005":
		return "unknown destination handset"
	case "30006":
		return "landline or unreachable carrier"
	case "30007":
		return "message filtered by the carrier"
	case "30008":
		return "unknown error"
	case "30009":
		return "missing inbound segment"
	case "30010":
		return "message price exceeds max price"
	case "30032":
		return "toll-free number not verified"
	case "30034":
		return "sending number not registered for A2P 10DLC"
	}
	return ""
}
