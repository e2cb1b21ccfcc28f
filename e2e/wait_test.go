package e2e

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/teamtext/teamtext/e2e/harness/load"
)

const syscallTERM = syscall.SIGTERM

// waitFor polls cond until it holds or the deadline passes. It waits for an
// observable event (a log line, a row), never for an amount of time to pass.
func waitFor(t testing.TB, within time.Duration, cond func() bool) {
	t.Helper()
	if ok, _ := load.WaitFor(context.Background(), 100*time.Millisecond, within, func() (bool, error) { return cond(), nil }); !ok {
		t.Fatalf("condition not met within %s", within)
	}
}
