package rosterapi_test

import (
	"testing"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

func TestParseConsentSource(t *testing.T) {
	t.Parallel()
	all := rosterapi.ConsentSources()
	if len(all) != 5 {
		t.Fatalf("ConsentSources() = %v, want the five", all)
	}
	for _, c := range all {
		if got, err := rosterapi.ParseConsentSource(string(c)); err != nil || got != c {
			t.Errorf("ParseConsentSource(%q) = %q, %v; want it back", c, got, err)
		}
	}
	for _, s := range []string{"", "Dashboard", "sms", "web signup"} {
		got, err := rosterapi.ParseConsentSource(s)
		if err == nil || got != "" {
			t.Errorf("ParseConsentSource(%q) = %q, %v; want a refusal", s, got, err)
			continue
		}
		if want := "consent.source must be one of dashboard, api, import, keyword, web_signup"; err.Error() != want {
			t.Errorf("ParseConsentSource(%q) refuses with %q, want %q", s, err, want)
		}
	}
}
