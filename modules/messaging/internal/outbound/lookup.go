package outbound

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
)

// NumberLookup is roster's lookup, except that a number finds the team it
// sends for whether it is the team's own or one added to it: inbound texts
// and STOP to any of a team's numbers reach the team.
func NumberLookup(l rosterapi.Lookup, numbers *Service) rosterapi.Lookup {
	return numberLookup{Lookup: l, numbers: numbers}
}

type numberLookup struct {
	rosterapi.Lookup
	numbers *Service
}

func (l numberLookup) TeamByNumber(ctx context.Context, e164 string) (rosterapi.Team, error) {
	return l.numbers.TeamForNumber(ctx, e164)
}

func (l numberLookup) TeamsByNumbers(ctx context.Context, e164s []string) (map[string]rosterapi.Team, error) {
	return l.numbers.TeamsForNumbers(ctx, e164s)
}

// NumberFinder loads sending numbers by value (the engine's Store).
type NumberFinder interface {
	NumbersByValue(ctx context.Context, values []string) ([]Number, error)
}

// Throughputs returns each number's throughput as the engine knows it,
// def for a number without its own or one the engine does not know: the
// carrier simulator's queues send at it.
func Throughputs(store NumberFinder, def float64) func(ctx context.Context, froms []string) (map[string]float64, error) {
	return func(ctx context.Context, froms []string) (map[string]float64, error) {
		ns, err := store.NumbersByValue(ctx, froms)
		if err != nil {
			return nil, err
		}
		out := make(map[string]float64, len(froms))
		for _, f := range froms {
			out[f] = def // a number messaging does not know, or without its own: the default
		}
		for _, n := range ns {
			if n.Throughput != nil {
				out[n.Number] = *n.Throughput
			}
		}
		return out, nil
	}
}

// LeadFor is the engine's lead on clock c: none with the test clock, which
// does not move while a pass would wait for it.
func LeadFor(c clock.Clock) time.Duration {
	if _, real := c.(clock.Real); real {
		return Lead
	}
	return 0
}
