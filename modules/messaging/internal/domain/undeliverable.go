package domain

// Numbers that keep failing: a carrier's failure code can say
// that the recipient's number cannot take texts at all (a landline, a
// number that does not exist, one the carrier blocks). A number whose
// deliveries fail that way several times in a row is marked undeliverable
// on the roster, and sends skip it until it is cleared.

// NumberFault is what a carrier's failure code says about the recipient's
// number: nothing (""), or why it cannot take texts.
type NumberFault string

// The permanent number faults. Each carrier adapter maps its own codes to
// them (twilio.NumberFault, simulator.NumberFault).
const (
	FaultNone        NumberFault = ""
	FaultUnreachable NumberFault = "unreachable" // the handset cannot be reached (Twilio 30003, 21612, 21214)
	FaultLandline    NumberFault = "landline"    // not a mobile number (Twilio 30006, 21614, 21635, 21407)
	FaultInvalid     NumberFault = "invalid"     // no such number (Twilio 30005, 21211, 21217, 21401, 21421)
	FaultBlocked     NumberFault = "blocked"     // the carrier blocks texts to it (Twilio 30004)
)

// Permanent reports whether the fault says the number cannot take texts.
func (f NumberFault) Permanent() bool { return f != FaultNone }

// Classifier maps a carrier's error code to what it says about the number.
type Classifier func(code string) NumberFault

// NoFaults is the classifier of a carrier that says nothing about numbers.
func NoFaults(string) NumberFault { return FaultNone }

// DefaultUndeliverableAfter is how many permanent failures in a row mark a
// number undeliverable unless UNDELIVERABLE_AFTER says otherwise.
const DefaultUndeliverableAfter = 2

// NumberOutcome is what one final delivery says about its number.
type NumberOutcome int

// Outcomes of a final delivery for its number's streak.
const (
	// OutcomeNeutral says nothing: a failure about the text, the sender or
	// the carrier (queue overflow, filtered content, unknown error), an
	// opt-out, or no final word (delivery_unconfirmed). It neither extends
	// nor breaks the streak.
	OutcomeNeutral NumberOutcome = iota
	// OutcomeDelivered proves the number takes texts: the streak ends and
	// any undeliverable mark is cleared.
	OutcomeDelivered
	// OutcomePermanent is a failure with a permanent number fault: the
	// streak grows by one.
	OutcomePermanent
)

// OutcomeOf is what a delivery that reached status with errorCode says
// about its number, by the carrier's classifier.
func OutcomeOf(status, errorCode string, classify Classifier) NumberOutcome {
	switch status {
	case DeliveryDelivered:
		return OutcomeDelivered
	case DeliveryFailed:
		if errorCode != CodeOptedOut && classify != nil && classify(errorCode).Permanent() {
			return OutcomePermanent
		}
	}
	return OutcomeNeutral
}

// Streak is what a run of outcomes for one number does to its stored
// streak of permanent failures: when Reset, a delivery succeeded and the
// stored streak (and mark) is dropped before Failures are added; else
// Failures are added to it.
type Streak struct {
	Reset    bool
	Failures int
	LastCode string // the error code of the last permanent failure, if any
}

// Add folds the next outcome (in the order the reports were applied) in.
func (s Streak) Add(o NumberOutcome, code string) Streak {
	switch o {
	case OutcomeDelivered:
		return Streak{Reset: true}
	case OutcomePermanent:
		s.Failures++
		s.LastCode = code
	}
	return s
}

// Changes reports whether the streak changes anything stored.
func (s Streak) Changes() bool { return s.Reset || s.Failures > 0 }

// Undeliverable reports whether a number with failures permanent failures
// in a row is undeliverable when after of them mark it.
func Undeliverable(failures, after int) bool { return after > 0 && failures >= after }

// Resendable reports whether a delivery may go into a resend of its
// message ({"only": "failed"}): it failed, and not with a permanent number
// fault, nor because the recipient opted out (by STOP here, or at the
// carrier: Twilio's 21610, which the carrier would refuse again).
func Resendable(status, errorCode string, classify Classifier) bool {
	if status != DeliveryFailed {
		return false
	}
	switch errorCode {
	case CodeOptedOut, CodeCarrierOptedOut:
		return false
	}
	return classify == nil || !classify(errorCode).Permanent()
}

// CodeCarrierOptedOut is the carrier's own opt-out refusal (Twilio's and
// the simulator's 21610: the recipient replied STOP to the number).
const CodeCarrierOptedOut = "21610"
