package simulator

import "github.com/teamtext/teamtext/modules/messaging/internal/domain"

// numberFaults are the simulated carrier's codes that say a number cannot
// take texts. The simulator speaks Twilio's codes, so these are the same
// as Twilio's (twilio.NumberFault), listed here for the codes its outcomes
// produce (landline 30006, unreachable and failed 30003, refused 21211)
// and the ones an admin may set as error_code.
//
// Not permanent: 30007 (filtered: about the text), 30001 (the queue
// overflowed), 30008 (unknown) and 21610 (the recipient's STOP).
var numberFaults = map[string]domain.NumberFault{
	"30003": domain.FaultUnreachable,
	"21612": domain.FaultUnreachable,
	"21214": domain.FaultUnreachable,
	"30005": domain.FaultInvalid,
	"21211": domain.FaultInvalid,
	"21217": domain.FaultInvalid,
	"21401": domain.FaultInvalid,
	"21421": domain.FaultInvalid,
	"30006": domain.FaultLandline,
	"21614": domain.FaultLandline,
	"21635": domain.FaultLandline,
	"21407": domain.FaultLandline,
	"30004": domain.FaultBlocked,
}

// NumberFault maps a simulated failure code to what it says about the
// recipient's number ("" when nothing).
func NumberFault(code string) domain.NumberFault { return numberFaults[code] }

// NumberFault implements carrier.FaultClassifier.
func (s *Simulator) NumberFault(code string) domain.NumberFault { return NumberFault(code) }
