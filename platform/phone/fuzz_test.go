package phone_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/teamtext/teamtext/platform/phone"
)

// FuzzParse checks that Parse never panics, that every accepted input yields a
// well-formed, idempotent E.164 number, and that rejections wrap ErrInvalid.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n, err := phone.Parse(in)
		if err != nil {
			if !errors.Is(err, phone.ErrInvalid) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrInvalid", in, err)
			}
			if n != "" {
				t.Fatalf("Parse(%q) returned %q together with an error", in, n)
			}
			return
		}
		s := n.String()
		if !strings.HasPrefix(s, "+1") || len(s) != 12 {
			t.Fatalf("Parse(%q) = %q, want +1 followed by 10 digits", in, s)
		}
		again, err := phone.Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) = %q, but re-parsing it failed: %v", in, s, err)
		}
		if again != n {
			t.Fatalf("Parse not idempotent: Parse(%q) = %q, Parse(%q) = %q", in, n, s, again)
		}
		if m := n.Masked(); len(m) != 7 || m != "***"+s[8:] {
			t.Fatalf("Masked() of %q = %q, want ***%s", s, m, s[8:])
		}
	})
}
