package harness_test

import (
	"strings"
	"testing"

	"github.com/teamtext/teamtext/e2e/harness"
)

func TestPhonesAreDistinctValidNumbers(t *testing.T) {
	seen := map[string]bool{}
	for block := range 8 {
		for i := 0; i < 100000; i += 7 {
			p := harness.Phone(block, i)
			if len(p) != 12 || !strings.HasPrefix(p, "+1") || seen[p] {
				t.Fatalf("block %d, %d: %q (seen %v)", block, i, p, seen[p])
			}
			if p[6:8] == "11" || p[5] < '2' || p[5] > '8' {
				t.Fatalf("bad exchange in %q", p)
			}
			seen[p] = true
		}
	}
	if got := harness.Phone(9, 10042); got != "+12122010042" {
		t.Fatalf("block 9 is block 1 again: %q", got)
	}
}

func TestNational(t *testing.T) {
	if got := harness.National("+12022000042"); got != "(202) 200-0042" {
		t.Fatalf("National = %q", got)
	}
}
