package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// TestDrainReadinessAndHealthcheck: at SIGTERM /readyz turns 503 while the
// API still serves for SHUTDOWN_DRAIN_DELAY, so a proxy's health check takes
// the node out before its listeners close; a second signal ends the drain.
// `teamtext healthcheck` (the image's HEALTHCHECK) follows both answers.
func TestDrainReadinessAndHealthcheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := startService(t, "SHUTDOWN_DRAIN_DELAY=5m")
	addr := strings.TrimPrefix(svc.PublicURL, "http://")
	healthcheck := func(args ...string) error {
		// The answers are what is checked, not their speed: a loaded
		// machine (the whole suite at once) took longer than the default
		// 3 s for the first /readyz's pool ping and migration read.
		args = append([]string{"healthcheck", "--timeout", "30s"}, args...)
		cmd := exec.Command(env.bin, args...)
		cmd.Env = append(os.Environ(), "ADDR="+addr)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%w: %s", err, out)
		}
		return nil
	}
	require.NoError(t, healthcheck())
	require.NoError(t, healthcheck("--path", "/readyz"))

	c := harness.NewClient(svc.PublicURL, "")
	require.NoError(t, svc.Signal(syscallTERM))
	waitFor(t, 20*time.Second, func() bool {
		r, err := c.Do(ctx, "GET", "/readyz", nil)
		return err == nil && r.Status == 503 && r.ErrorCode() == "not_ready"
	})
	r, err := c.Do(ctx, "GET", "/healthz", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status, "alive while draining")
	r, err = c.Do(ctx, "GET", "/api/v1/team", nil)
	require.NoError(t, err)
	require.Equal(t, 401, r.Status, "the API still answers while draining")
	require.NoError(t, healthcheck(), "liveness holds while draining")
	require.Error(t, healthcheck("--path", "/readyz"), "readiness fails while draining")
	select {
	case <-svc.Done():
		t.Fatal("stopped before the drain delay ended")
	default:
	}

	require.NoError(t, svc.Signal(syscallTERM))
	select {
	case <-svc.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("a second SIGTERM did not end the drain")
	}
	require.Contains(t, svc.Logs(), `"teamtext stopped"`)
	require.Error(t, healthcheck(), "nothing listens any more")
}

// TestTrustedProxiesPerIPLimit: behind TRUSTED_PROXIES each client address
// in X-Forwarded-For has its own 60-a-minute budget; without it, forged
// headers change nothing: the peer is the client.
func TestTrustedProxiesPerIPLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := freshDatabase(t, "trusted_proxies") // the per-IP buckets are the database's
	behind := startServiceOn(t, url, "TRUSTED_PROXIES=127.0.0.0/8")
	exposed := startServiceOn(t, url)

	spend := func(svc *harness.Service, xff string, n int) []int {
		c := harness.NewClient(svc.PublicURL+"/api/v1", "")
		var statuses []int
		for range n {
			r, err := c.Do(ctx, "GET", "/team", nil, "X-Forwarded-For", xff)
			require.NoError(t, err)
			statuses = append(statuses, r.Status)
		}
		return statuses
	}
	count := func(ss []int, status int) int {
		n := 0
		for _, s := range ss {
			if s == status {
				n++
			}
		}
		return n
	}

	// One client through the proxy spends its own budget...
	got := spend(behind, "198.51.100.1, 203.0.113.10", 61)
	require.Equal(t, 60, count(got, 401))
	require.Equal(t, 429, got[60])
	// ...forging a left-hand hop does not give it another...
	require.Equal(t, []int{429}, spend(behind, "192.0.2.99, 203.0.113.10", 1))
	// ...and another client behind the same proxy is untouched.
	require.Equal(t, []int{401}, spend(behind, "203.0.113.11", 1))

	// Not trusted: the header is ignored, every request is 127.0.0.1's
	// (a fresh budget here, since the clients above were never the peer).
	got = spend(exposed, "203.0.113.20", 60)
	require.Equal(t, 60, count(got, 401))
	require.Equal(t, []int{429}, spend(exposed, "203.0.113.21", 1), "a forged address gets no fresh budget")
}

// TestRetentionJobRunsOnTheSchema: the retention job (enqueued by River's
// leader at start, then hourly) completes against the real tables, so every
// table and id prefix it names exists. What it deletes is tested on
// Postgres in platform/retention.
func TestRetentionJobRunsOnTheSchema(t *testing.T) {
	t.Parallel()
	waitFor(t, 60*time.Second, func() bool {
		return countRowsIn(t, env.pg.URL, `SELECT count(*) FROM river_job WHERE kind = 'platform.retention' AND state = 'completed'`) > 0
	})
	require.Zero(t, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM river_job WHERE kind = 'platform.retention' AND errors IS NOT NULL AND cardinality(errors) > 0`),
		"no attempt failed")
}
