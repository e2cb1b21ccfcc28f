// Package domain holds the roster's rules as pure functions: what makes a
// team, a member and a key owner valid. No I/O.
package domain

import (
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
	"github.com/teamtext/teamtext/platform/text"
)

// The roster's error codes (spec §7) under the names its code uses; each
// is declared once, in rosterapi (invalid_phone, shared, in fault).
const (
	CodeInvalidPhone         = fault.CodeInvalidPhone
	CodeInvalidEmail         = rosterapi.CodeInvalidEmail
	CodeInvalidRole          = rosterapi.CodeInvalidRole
	CodeRoleNotAllowed       = rosterapi.CodeRoleNotAllowed
	CodeReadOnlyField        = rosterapi.CodeReadOnlyField
	CodeStaffMemberProtected = rosterapi.CodeStaffMemberProtected
	CodeMemberExists         = rosterapi.CodeMemberExists
	CodeOptedOut             = rosterapi.CodeOptedOut
	CodeSenderBlocked        = rosterapi.CodeSenderBlocked
	CodeTeamDisabled         = rosterapi.CodeTeamDisabled
	CodeTeamLocked           = rosterapi.CodeTeamLocked
	CodeKeyOwnerInactive     = rosterapi.CodeKeyOwnerInactive
)

// Member statuses: pending (awaiting approval in the dashboard), active, opted_out.
const (
	StatusPending  = "pending"
	StatusActive   = "active"
	StatusOptedOut = "opted_out"
)

var codeRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,31}$`)

// ValidName checks a team, member, group or key name, or a field label:
// trimmed, 1 to 100 characters, at least one of them visible (a name of
// zero-width characters alone is refused; text.Visible).
func ValidName(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > 100 {
		return "", fault.Invalidf("%s must be 1 to 100 characters", field)
	}
	if !text.Visible(s) {
		return "", fault.Invalidf("%s must have a visible character (not only spaces or zero-width characters)", field)
	}
	return s, nil
}

// ValidCode checks a team code: 2-32 lowercase letters, digits and dashes.
func ValidCode(s string) (string, error) {
	if !codeRE.MatchString(s) {
		return "", fault.Invalidf("code must be 2 to 32 lowercase letters, digits or dashes, starting with a letter or digit")
	}
	return s, nil
}

// ValidTeamTimeZone checks a team's IANA time zone name (required).
func ValidTeamTimeZone(s string) (string, error) {
	if s == "" || s == "Local" {
		return "", fault.Invalidf("time_zone must be an IANA name such as America/New_York")
	}
	if _, err := time.LoadLocation(s); err != nil {
		return "", fault.Invalidf("time_zone %q is not a known IANA time zone", s)
	}
	return s, nil
}

// TimeZoneMax is the longest time zone name a member may have (the IANA
// names are at most 30 characters).
const TimeZoneMax = 64

// ValidTimeZone checks a member's optional time zone under field: trimmed,
// "" (unset) or an IANA name that loads (time.LoadLocation), "UTC" or a
// name with a "/" (America/Chicago, Etc/GMT+5), never "Local" (the
// server's own zone) nor a bare legacy alias such as EST.
func ValidTimeZone(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	if v == "Local" || len(v) > TimeZoneMax || (v != "UTC" && !strings.Contains(v, "/")) {
		return "", fault.Invalidf("%s must be an IANA time zone name such as America/Chicago, or empty", field)
	}
	if _, err := time.LoadLocation(v); err != nil {
		return "", fault.Invalidf("%s %q is not a known IANA time zone", field, v)
	}
	return v, nil
}

// ValidPhone parses a US phone number to E.164.
func ValidPhone(field, s string) (string, error) {
	n, err := phone.Parse(s)
	if err != nil {
		return "", fault.Newf(fault.Invalid, CodeInvalidPhone, "%s is not a valid US phone number", field)
	}
	return n.String(), nil
}

// ValidEmail normalises an optional e-mail address ("" stays "").
func ValidEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || len(s) > 254 {
		return "", fault.New(fault.Invalid, CodeInvalidEmail, "email is not a valid address")
	}
	return s, nil
}

// ValidRole checks a role; staff roles only when staffAllowed (dashboard).
func ValidRole(s string, staffAllowed bool) (rosterapi.Role, error) {
	r := rosterapi.Role(s)
	if !r.Valid() {
		return "", fault.Newf(fault.Invalid, CodeInvalidRole, "role must be one of athlete, guardian, outside, emergency_contact")
	}
	if r.IsStaff() && !staffAllowed {
		return "", fault.Newf(fault.Invalid, CodeRoleNotAllowed, "staff roles can be given only from the dashboard")
	}
	return r, nil
}

// KeyOwnerActive reports whether a member may keep API keys (and own
// dashboard-made webhooks): head coach or team director who may send broadcasts.
func KeyOwnerActive(role rosterapi.Role, canSendBroadcasts bool) bool {
	return role.CanOwnKeys() && canSendBroadcasts
}

// More roster error codes (spec §7), declared in rosterapi.
const (
	CodeInvalidGroup       = rosterapi.CodeInvalidGroup
	CodeFieldExists        = rosterapi.CodeFieldExists
	CodeFieldLimit         = rosterapi.CodeFieldLimit
	CodePrivateFieldLocked = rosterapi.CodePrivateFieldLocked
	CodeOptedOutMember     = rosterapi.CodeOptedOutMember
)

// FieldLimit is the most custom fields a team may have (spec §8).
const FieldLimit = 20

var fieldKeyRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// FieldKey validates an explicit merge-tag key, or derives one from the
// label: lowercase, runs of other characters become "_", at most 32
// characters, starting with a letter ("f_" is prefixed otherwise).
func FieldKey(key, label string) (string, error) {
	if key != "" {
		if !fieldKeyRE.MatchString(key) {
			return "", fault.Invalidf("key must be 1 to 32 lowercase letters, digits or underscores, starting with a letter")
		}
		return key, nil
	}
	var b strings.Builder
	underscore := false
	for _, r := range strings.ToLower(label) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			underscore = false
		} else if !underscore && b.Len() > 0 {
			b.WriteByte('_')
			underscore = true
		}
	}
	k := strings.TrimRight(b.String(), "_")
	if k == "" || k[0] < 'a' || k[0] > 'z' {
		k = "f_" + k
	}
	if len(k) > 32 {
		k = strings.TrimRight(k[:32], "_")
	}
	return k, nil
}

// SameName reports whether two member names are the same person's for the
// member_exists rule: equal after trimming, case folding and collapsing spaces.
func SameName(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// Protected reports whether the API may not change a member: staff and
// anyone with a dashboard login (spec §1 rule 5).
func Protected(role rosterapi.Role, dashboardLogin bool) bool {
	return role.IsStaff() || dashboardLogin
}
