// Package phone parses US phone numbers in any common format into E.164 and masks them for display and logs.
package phone

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"
)

// ErrInvalid is the sentinel wrapped by every Parse error; match it with errors.Is.
var ErrInvalid = errors.New("phone: not a valid US number")

// maxInputLen bounds the raw input (before trimming) so hostile input is rejected
// before any parsing work is done. The longest common format, "+1 (202) 555-0123",
// is 17 bytes, which leaves room for surrounding whitespace.
const maxInputLen = 32

// region is the default region for numbers written without a country code.
const region = "US"

// Number is a valid US phone number in E.164 form ("+12025550123"); obtain one
// from Parse or MustParse. Logging it with slog records only the masked form.
type Number string

// Parse normalises a US phone number written in any common format
// ("2025550123", "(202) 555-0123", "+1 202 555 0123", ...) to E.164.
// Any other input yields an error wrapping ErrInvalid; error messages never
// contain the input, so they are safe to log.
func Parse(s string) (Number, error) {
	if len(s) > maxInputLen {
		return "", fmt.Errorf("%w: longer than %d bytes", ErrInvalid, maxInputLen)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrInvalid)
	}
	// The library would translate letters as vanity numbers ("1-800-FLOWERS")
	// and treat "x"/"ext" as extension markers; we accept neither, so any
	// ASCII letter is rejected up front. Beyond that only the characters used
	// by common US formats are allowed: the library also silently drops
	// leading junk ("#2025550123"), accepts full-width and other Unicode digits,
	// and reads "#", ",", ";" and non-ASCII words as extension markers.
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			return "", fmt.Errorf("%w: contains letters", ErrInvalid)
		case c >= '0' && c <= '9', c == ' ', c == '-', c == '.', c == '(', c == ')', c == '+':
		default:
			return "", fmt.Errorf("%w: unexpected character", ErrInvalid)
		}
	}

	if national, ok := plainNational(s); ok {
		return checkNational(national)
	}
	return parseFormatted(s)
}

// Normalize returns s in E.164 when it is a valid US number, and s as
// written otherwise (a short code, a foreign sender): what a carrier's
// numbers are stored as. A number already written as E.164 with an area
// code of 2-9 ("+12025550123") is returned at once: Parse would give it
// back unchanged or refuse it, and either way the answer is s. Texts come
// in as E.164, and each is seen at its callback and again at its filing,
// so this skips most validity checks (libphonenumber's regular
// expressions).
func Normalize(s string) string {
	if len(s) == 12 && s[0] == '+' && s[1] == '1' {
		if _, ok := plainNational(s); ok {
			return s
		}
	}
	if n, err := Parse(s); err == nil {
		return n.String()
	}
	return s
}

// plainNational returns the ten-digit national number of input written as
// bare digits ("2025550123", "12025550123", "+12025550123") whose area code
// starts with 2-9: for these, libphonenumber's Parse only strips the "+1" or
// "1", so the number can go straight to its validity check (Parse's regular
// expressions were most of an import row's CPU). Any other form takes the
// full parse; TestPlainMatchesFullParse holds the two to the same answers.
func plainNational(s string) (string, bool) {
	switch {
	case len(s) == 12 && s[0] == '+' && s[1] == '1':
		s = s[2:]
	case len(s) == 11 && s[0] == '1':
		s = s[1:]
	case len(s) != 10:
		return "", false
	}
	if s[0] < '2' || s[0] > '9' {
		return "", false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	return s, true
}

// checkNational checks a ten-digit national number (area code 2-9) as
// parseFormatted checks what Parse makes of it.
func checkNational(national string) (Number, error) {
	n, err := strconv.ParseUint(national, 10, 64)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	cc := int32(1)
	num := &phonenumbers.PhoneNumber{CountryCode: &cc, NationalNumber: &n}
	if !phonenumbers.IsValidNumberForRegion(num, region) {
		return "", fmt.Errorf("%w: not a valid number for region %s", ErrInvalid, region)
	}
	return checkE164("+1" + national)
}

// parseFormatted parses any other accepted form with libphonenumber.
func parseFormatted(s string) (Number, error) {
	num, err := phonenumbers.Parse(s, region)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if num.GetExtension() != "" {
		return "", fmt.Errorf("%w: extensions are not supported", ErrInvalid)
	}
	if !phonenumbers.IsValidNumberForRegion(num, region) {
		return "", fmt.Errorf("%w: not a valid number for region %s", ErrInvalid, region)
	}
	return checkE164(phonenumbers.Format(num, phonenumbers.E164))
}

// checkE164 holds a valid number to NANP's ten digits and refuses N11 codes.
func checkE164(e164 string) (Number, error) {
	if len(e164) != 12 || !strings.HasPrefix(e164, "+1") {
		return "", fmt.Errorf("%w: not a 10-digit NANP number", ErrInvalid)
	}

	// NANP N11 codes (211, 311, ..., 911) are reserved for abbreviated dialling
	// services and are not assignable subscriber numbers. phonenumbers v1.8.1
	// already rejects N11 area codes, but it accepts N11 exchange codes under
	// real area codes (e.g. 202-911-0123 is "valid"), so both are checked here.
	national := e164[2:]
	if isN11(national[0:3]) {
		return "", fmt.Errorf("%w: N11 area code", ErrInvalid)
	}
	if isN11(national[3:6]) {
		return "", fmt.Errorf("%w: N11 exchange code", ErrInvalid)
	}
	return Number(e164), nil
}

// isN11 reports whether the three-digit code is of the form N11 with N in 2-9.
func isN11(code string) bool {
	return len(code) == 3 && code[0] >= '2' && code[0] <= '9' && code[1] == '1' && code[2] == '1'
}

// MustParse is like Parse but panics if s is not a valid US number; it is meant
// for tests and package-level constants, never for user input.
func MustParse(s string) Number {
	n, err := Parse(s)
	if err != nil {
		panic(fmt.Sprintf("phone.MustParse: %v", err))
	}
	return n
}

// String returns the number in E.164 form, e.g. "+12025550123".
func (n Number) String() string {
	return string(n)
}

// Masked returns the number with everything but the last four digits hidden,
// e.g. "***0123", for display and logs.
func (n Number) Masked() string {
	return Mask(string(n))
}

// Mask hides all but the last four characters of a raw number string, e.g.
// "+12025550123" -> "***0123"; strings shorter than four characters become "***".
// It works on runes, so it never splits a UTF-8 sequence.
func Mask(e164 string) string {
	start := len(e164)
	for range 4 {
		if start == 0 {
			return "***"
		}
		_, size := utf8.DecodeLastRuneInString(e164[:start])
		start -= size
	}
	return "***" + e164[start:]
}

// LogValue implements slog.LogValuer so that logging a Number records only its
// masked form, never the full number.
func (n Number) LogValue() slog.Value {
	return slog.StringValue(n.Masked())
}

// TimeZones are the IANA zones libphonenumber maps the number's prefix (a
// US area code, sometimes an exchange) to: one for most area codes,
// several for a few (Alaska's 907: Adak and Anchorage), and none when the
// prefix is unknown or is not geographic (toll-free numbers span the
// continent: no zone says where their owner lives).
func TimeZones(e164 string) []string {
	zs, err := phonenumbers.GetTimezonesForPrefix(e164)
	if err != nil || len(zs) == 0 || (len(zs) == 1 && zs[0] == phonenumbers.UNKNOWN_TIMEZONE) || len(zs) > maxZones {
		return nil
	}
	return zs
}

// maxZones is the most zones a geographic prefix maps to; more means a
// non-geographic number (toll-free maps to 40 zones).
const maxZones = 4
