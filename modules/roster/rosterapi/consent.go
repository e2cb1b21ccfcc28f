package rosterapi

import (
	"fmt"
	"strings"
)

// ConsentSource is how a member agreed to receive the team's texts (spec:
// a consent record's source).
type ConsentSource string

// The consent sources, in the order the API documents them.
const (
	ConsentDashboard ConsentSource = "dashboard"  // added by staff in the dashboard (admin API)
	ConsentAPI       ConsentSource = "api"        // added through the public API
	ConsentImport    ConsentSource = "import"     // added by a roster import
	ConsentKeyword   ConsentSource = "keyword"    // texted a join keyword
	ConsentWebSignup ConsentSource = "web_signup" // signed up on a web form
)

// ConsentSources lists every consent source, in the order the API documents them.
func ConsentSources() []ConsentSource {
	return []ConsentSource{ConsentDashboard, ConsentAPI, ConsentImport, ConsentKeyword, ConsentWebSignup}
}

// ParseConsentSource is the one reading of a consent source: one of
// ConsentSources, as written, or an error whose text is the spec's 400
// invalid_request message.
func ParseConsentSource(s string) (ConsentSource, error) {
	all := ConsentSources()
	names := make([]string, len(all))
	for i, c := range all {
		if string(c) == s {
			return c, nil
		}
		names[i] = string(c)
	}
	return "", fmt.Errorf("consent.source must be one of %s", strings.Join(names, ", "))
}
