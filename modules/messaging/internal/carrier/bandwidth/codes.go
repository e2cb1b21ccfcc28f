package bandwidth

import "github.com/teamtext/teamtext/modules/messaging/internal/domain"

// MapStatus maps a callback's type
// (https://dev.bandwidth.com/docs/messaging/webhooks/) to the spec's
// delivery status; ok is false for types that are not about a sent text's
// progress (message-received is an incoming text).
//
//	message-sending   → sent
//	message-delivered → delivered
//	message-failed    → failed
func MapStatus(eventType string) (string, bool) {
	switch eventType {
	case "message-sending":
		return "sent", true
	case "message-delivered":
		return "delivered", true
	case "message-failed":
		return "failed", true
	}
	return "", false
}

// ErrorMessage describes the Bandwidth error codes a text can end with
// (https://dev.bandwidth.com/docs/messaging/errors/); "" for codes it
// does not know (the callback's own description is kept then).
func ErrorMessage(code string) string {
	switch code {
	case "4301":
		return "malformed destination address"
	case "4405":
		return "unsupported destination"
	case "4470":
		return "rejected as spam by the carrier"
	case "4720":
		return "the destination number is not valid"
	case "4721":
		return "the destination number cannot take texts (e.g. a landline)"
	case "4750":
		return "rejected by the destination carrier"
	case "4770":
		return "the destination carrier's queue is full"
	case "5600", "5610", "5620", "5630", "5650":
		return "the destination carrier is unavailable"
	case "9902":
		return "timed out waiting for a delivery receipt"
	}
	return ""
}

// numberFaults are the codes that say the recipient's number cannot take
// texts; spam, queue and carrier-state codes say nothing about it.
var numberFaults = map[string]domain.NumberFault{
	"4301": domain.FaultInvalid,  // malformed destination address
	"4720": domain.FaultInvalid,  // invalid destination address
	"4721": domain.FaultLandline, // invalid service type: a landline
}

// NumberFault maps a Bandwidth error code to what it says about the
// recipient's number ("" for every code that says nothing about it).
func NumberFault(code string) domain.NumberFault { return numberFaults[code] }
