package twilio

import "github.com/teamtext/teamtext/modules/messaging/internal/domain"

// numberFaults are the Twilio error codes that say the recipient's number
// cannot take texts (https://www.twilio.com/docs/api/errors), whether
// Twilio refused the text at once or reported it undelivered later. A
// number that fails with them UNDELIVERABLE_AFTER times in a row is marked
// undeliverable.
//
// Left out on purpose: codes about the text or the campaign (30007
// filtered, 21617 too long, 30032/30034 registration), the sender or the
// account (21212, 21606, 21608, 21659, 21660, 30002, 21408), the carrier's
// own state (30001 queue overflow, 30008 unknown, 30009, 30010), and the
// recipient's opt-out (21610, handled as an opt-out): none of them says the
// number itself is bad, so they neither mark it nor keep it out of a resend.
var numberFaults = map[string]domain.NumberFault{
	"30003": domain.FaultUnreachable, // unreachable destination handset
	"21612": domain.FaultUnreachable, // the 'To' number is not currently reachable via SMS
	"21214": domain.FaultUnreachable, // the 'To' number cannot be reached
	"30005": domain.FaultInvalid,     // unknown destination handset (no such number)
	"21211": domain.FaultInvalid,     // invalid 'To' number
	"21217": domain.FaultInvalid,     // the number does not appear to be valid
	"21401": domain.FaultInvalid,     // invalid phone number
	"21421": domain.FaultInvalid,     // the number is invalid
	"30006": domain.FaultLandline,    // landline or unreachable carrier
	"21614": domain.FaultLandline,    // the 'To' number is not a mobile number
	"21635": domain.FaultLandline,    // the 'To' number is a landline
	"21407": domain.FaultLandline,    // the number type does not support SMS
	"30004": domain.FaultBlocked,     // message blocked (the number is blocked from receiving it)
}

// NumberFault maps a Twilio error code to what it says about the
// recipient's number ("" for every code that says nothing about it).
func NumberFault(code string) domain.NumberFault { return numberFaults[code] }

// NumberFault implements carrier.FaultClassifier.
func (c *Carrier) NumberFault(code string) domain.NumberFault { return NumberFault(code) }
