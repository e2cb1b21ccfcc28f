package rostertest_test

import (
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/clock"
)

// TestFake holds the in-memory roster to the contract suite.
func TestFake(t *testing.T) {
	t.Parallel()
	rostertest.Exercise(t, func(*testing.T) rostertest.Harness {
		clk := clock.NewFake(time.Time{})
		r := rostertest.New(clk)
		return rostertest.Harness{Roster: r, Seed: r, Clock: clk}
	})
}
