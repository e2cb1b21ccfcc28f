package simulator_test

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carriertest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

func TestConformance(t *testing.T) {
	t.Parallel()
	carriertest.RunConformance(t, newHarness)
}

// newHarness builds a simulator on its own migrated database with an
// insert-only River, and observes its outbox and its status jobs.
func newHarness(t *testing.T) carriertest.Harness {
	t.Helper()
	ctx := context.Background()
	d := server.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	log := slog.New(slog.DiscardHandler)
	j, err := jobs.New(d, clock.Real{}, log, jobs.Options{})
	require.NoError(t, err)
	_, err = jobs.NewRunner(j, []jobs.Registration{carriertest.StatusWorkers}, metrics.New(), jobs.Options{}) // the kinds, not worked
	require.NoError(t, err)
	sim := simulator.New(d, j, clock.Real{}, simulator.ProfileInstant, func(_ context.Context, froms []string) (map[string]float64, error) {
		out := map[string]float64{}
		for _, f := range froms {
			out[f] = 1
		}
		return out, nil
	})

	// The simulator's outcomes are one setting (a default, a per-number map,
	// one error code); the harness keeps the map it has built so far.
	var mu sync.Mutex
	outcomes := simulator.Outcomes{Default: simulator.Delivered, Numbers: map[string]string{}}
	return carriertest.Harness{
		Carrier: sim,
		SetOutcome: func(t *testing.T, number, outcome, errorCode string) {
			mu.Lock()
			defer mu.Unlock()
			outcomes.Numbers[number] = outcome
			if errorCode != "" {
				outcomes.ErrorCode = errorCode
			}
			require.NoError(t, sim.SetOutcomes(ctx, outcomes))
		},
		Texts: func(t *testing.T) []carriertest.Text {
			es, err := sim.Outbox(ctx, "", 1000, 0)
			require.NoError(t, err)
			out := make([]carriertest.Text, len(es))
			for i, e := range es {
				out[i] = carriertest.Text{To: e.To, From: e.From, Body: e.Body, ProviderMessageID: e.ProviderMessageID}
			}
			return out
		},
		Statuses: func(t *testing.T) []carrier.StatusArgs {
			ss, err := carriertest.StatusJobs(ctx, d)
			require.NoError(t, err)
			return ss
		},
		Refuse: func(t *testing.T, number, code string) {
			mu.Lock()
			defer mu.Unlock()
			outcomes.Numbers[number], outcomes.ErrorCode = simulator.Refused, code
			require.NoError(t, sim.SetOutcomes(ctx, outcomes))
		},
		DedupesOnDeliveryID: true,
	}
}
