package phone

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPlainMatchesFullParse holds Parse's fast path for bare digits to the
// full libphonenumber parse it skips: for every bare-digit form the fast path
// takes, both give the same number, or both refuse it (with the same
// message). The numbers are random ten-digit national numbers, every area
// code and exchange first digit included (0-9, N11 codes, unassigned area
// codes), each written bare, with "1" and with "+1".
func TestPlainMatchesFullParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 17))
	valid, refused := 0, 0
	for i := 0; i < 20000; i++ {
		national := fmt.Sprintf("%03d%03d%04d", rng.IntN(1000), rng.IntN(1000), rng.IntN(10000))
		if i%10 == 0 { // an N11 exchange under a real area code, often
			national = national[:3] + fmt.Sprintf("%d11", 2+rng.IntN(8)) + national[6:]
		}
		for _, in := range []string{national, "1" + national, "+1" + national} {
			fast, ok := plainNational(in)
			if !ok {
				if national[0] >= '2' {
					t.Fatalf("plainNational(%q) not taken", in)
				}
				continue
			}
			if fast != national {
				t.Fatalf("plainNational(%q) = %q, want %q", in, fast, national)
			}
			got, gotErr := checkNational(fast)
			want, wantErr := parseFormatted(in)
			if got != want || (gotErr == nil) != (wantErr == nil) ||
				(gotErr != nil && (gotErr.Error() != wantErr.Error() || !errors.Is(gotErr, ErrInvalid))) {
				t.Fatalf("%q: fast path %q, %v; full parse %q, %v", in, got, gotErr, want, wantErr)
			}
			if gotErr == nil {
				valid++
			} else {
				refused++
			}
		}
	}
	if valid < 1000 || refused < 1000 {
		t.Fatalf("the sample is lopsided: %d valid, %d refused", valid, refused)
	}
	t.Logf("%d numbers agreed valid, %d agreed refused", valid, refused)
}

// TestPlainNationalForms: only bare digits, optionally after "1" or "+1",
// with an area code of 2-9 take the fast path.
func TestPlainNationalForms(t *testing.T) {
	for in, want := range map[string]string{
		"2025550123": "2025550123", "12025550123": "2025550123", "+12025550123": "2025550123",
		"1025550123": "", "0025550123": "", "11025550123": "", "+11025550123": "", "+22025550123": "",
		"202-555-0123": "", "(202) 555-0123": "", "+1 2025550123": "", "202555012": "", "202555012345": "",
		"22025550123": "", "+2025550123": "", "2025550l23": "",
	} {
		got, ok := plainNational(in)
		if got != want || ok != (want != "") {
			t.Errorf("plainNational(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	for _, in := range []string{"2025550123", "(202) 555-0123"} {
		b.Run(in, func(b *testing.B) {
			for range b.N {
				if _, err := Parse(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestNormalizeMatchesParse holds Normalize's shortcut for numbers already
// written as E.164 to what Parse makes of them: for random numbers in
// every form (area codes and exchanges 0-9 and N11 included), Normalize
// is Parse's E.164 when Parse accepts the input and the input as written
// when it refuses it.
func TestNormalizeMatchesParse(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(23, 15))
	for i := 0; i < 20000; i++ {
		national := fmt.Sprintf("%03d%03d%04d", rng.IntN(1000), rng.IntN(1000), rng.IntN(10000))
		if i%10 == 0 {
			national = national[:3] + fmt.Sprintf("%d11", 2+rng.IntN(8)) + national[6:]
		}
		for _, in := range []string{national, "1" + national, "+1" + national, "+1 " + national, "+44" + national, national[:5]} {
			want := in
			if n, err := Parse(in); err == nil {
				want = n.String()
			}
			if got := Normalize(in); got != want {
				t.Fatalf("Normalize(%q) = %q, want %q", in, got, want)
			}
		}
	}
}
