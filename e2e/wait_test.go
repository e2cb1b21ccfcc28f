package e2e

import (
	"syscall"
	"testing"
	"time"
)

const syscallTERM = syscall.SIGTERM

// waitFor polls cond until it holds or the deadline passes. It waits for an
// observable event (a log line, a row), never for an amount of time to pass.
func waitFor(t testing.TB, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", within)
		}
		<-tick.C
	}
}
