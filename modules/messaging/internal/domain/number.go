package domain

import (
	"fmt"
	"regexp"

	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

// NumberKind is the kind of a sending number, which decides how carriers
// let it send (and what its throughput usually is).
type NumberKind string

// Sending number kinds.
const (
	KindLongCode  NumberKind = "long_code"  // a 10DLC local number, typically 1 segment/s
	KindTollFree  NumberKind = "toll_free"  // typically 3 segments/s
	KindShortCode NumberKind = "short_code" // 5 or 6 digits, typically 100 segments/s
)

// ParseNumberKind checks a kind; "" is a long code.
func ParseNumberKind(s string) (NumberKind, error) {
	switch k := NumberKind(s); k {
	case "":
		return KindLongCode, nil
	case KindLongCode, KindTollFree, KindShortCode:
		return k, nil
	}
	return "", fault.Invalidf("kind must be long_code, toll_free or short_code")
}

var shortCode = regexp.MustCompile(`^[1-9][0-9]{4,5}$`)

// ParseSendingNumber checks a sending number of kind k: a short code is 5
// or 6 digits; any other kind is a US number in any common format, stored
// as E.164.
func ParseSendingNumber(k NumberKind, s string) (string, error) {
	if k == KindShortCode {
		if !shortCode.MatchString(s) {
			return "", fault.New(fault.Invalid, fault.CodeInvalidPhone, "a short code is 5 or 6 digits")
		}
		return s, nil
	}
	n, err := phone.Parse(s)
	if err != nil {
		return "", fault.New(fault.Invalid, fault.CodeInvalidPhone, "number must be a valid US phone number")
	}
	return n.String(), nil
}

// ParsePace checks a throughput given in an API.
func ParsePace(v float64) (Pace, error) {
	p := Pace(v)
	if !p.Valid() {
		return 0, fault.Invalidf("throughput must be more than 0 and at most %d SMS segments per second", MaxPace)
	}
	return p, nil
}

// String formats a pace for messages.
func (p Pace) String() string { return fmt.Sprintf("%g segments/s", float64(p)) }
