package domain

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
)

// Consent sources: how a member agreed to receive the team's texts
// (rosterapi.ConsentSource's, as the strings a Consent holds).
const (
	ConsentDashboard = string(rosterapi.ConsentDashboard)
	ConsentAPI       = string(rosterapi.ConsentAPI)
	ConsentImport    = string(rosterapi.ConsentImport)
	ConsentKeyword   = string(rosterapi.ConsentKeyword)
	ConsentWebSignup = string(rosterapi.ConsentWebSignup)
)

// Consent history kinds.
const (
	HistoryConsentGiven = "consent_given" // a member was added with a consent record
	HistoryOptOut       = "opt_out"       // STOP, or an opt-out recorded through the API or by support
	HistoryOptIn        = "opt_in"        // START
	HistoryHelp         = "help"          // HELP (or INFO)
)

// Consent history channels: where the fact came from.
const (
	ChannelSMS    = "sms"    // a text to a team number
	ChannelAPI    = "api"    // the public API
	ChannelAdmin  = "admin"  // the admin API (the dashboard, support)
	ChannelImport = "import" // a roster import
	ChannelWeb    = "web"    // the team's public sign-up page (/join/{team_code})
)

// Limits of a consent record.
const (
	// ConsentEvidenceMax is the most characters evidence may have: enough
	// for a form's wording and its URL.
	ConsentEvidenceMax = 1000
	// ConsentSkew is how far in the future a given consent time may be,
	// for clocks that run a little ahead of the service's.
	ConsentSkew = 5 * time.Minute
)

// consentEarliest is the earliest consent time accepted: before it, a time
// is a mistake (a zero or epoch value), not evidence.
var consentEarliest = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Consent is a member's consent record.
type Consent struct {
	Source   string
	At       time.Time
	Evidence string // "" when none was given
}

// ConsentInput is a consent record as a request gives it: every part optional.
type ConsentInput struct {
	Source   string
	At       *time.Time
	Evidence string
}

// ValidConsent checks a requested consent record and fills in the defaults:
// source defaultSource, at now. source must be a known source; at must be
// no later than now plus ConsentSkew and not before 2000; evidence is
// trimmed, at most ConsentEvidenceMax characters of UTF-8 text without NUL
// or other control characters than tab and line breaks (empty: none).
func ValidConsent(in ConsentInput, defaultSource string, now time.Time) (Consent, error) {
	c := Consent{Source: in.Source, At: now.UTC().Truncate(time.Microsecond)} // what Postgres keeps
	if c.Source == "" {
		c.Source = defaultSource
	}
	if _, err := rosterapi.ParseConsentSource(c.Source); err != nil {
		return Consent{}, fault.Invalidf("%v", err)
	}
	if in.At != nil {
		at := in.At.UTC()
		if at.After(now.Add(ConsentSkew)) {
			return Consent{}, fault.Invalidf("consent.at must not be in the future")
		}
		if at.Before(consentEarliest) {
			return Consent{}, fault.Invalidf("consent.at must not be before 2000-01-01")
		}
		c.At = at.Truncate(time.Microsecond)
	}
	ev, err := ValidEvidence(in.Evidence)
	if err != nil {
		return Consent{}, err
	}
	c.Evidence = ev
	return c, nil
}

// ValidEvidence checks consent evidence text (see ValidConsent).
func ValidEvidence(s string) (string, error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return "", fault.Invalidf("consent.evidence must be UTF-8 text")
	}
	if utf8.RuneCountInString(s) > ConsentEvidenceMax {
		return "", fault.Invalidf("consent.evidence must be at most %d characters", ConsentEvidenceMax)
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' { // C0, DEL and C1
			return "", fault.Invalidf("consent.evidence must not contain control characters")
		}
	}
	return s, nil
}

// KnownConsentSource reports whether s is a consent source
// (rosterapi.ParseConsentSource).
func KnownConsentSource(s string) bool {
	_, err := rosterapi.ParseConsentSource(s)
	return err == nil
}

// TruncateText cuts s to at most n characters, never inside a character:
// for text kept as a record (an inbound keyword text) rather than refused.
func TruncateText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
