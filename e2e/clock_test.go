package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// TestTestClockIsShared: the offset lives in the database, so a second node
// sees an advance made through the first. This test runs on its own
// database so that advancing does not move the suite's other tests.
func TestTestClockIsShared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := freshDatabase(t, "clock_shared")
	a := startServiceOn(t, url, "CLOCK=test")
	b := startServiceOn(t, url, "CLOCK=test")
	ca := harness.NewClient(a.AdminURL+"/admin/v1", harness.AdminToken)
	cb := harness.NewClient(b.AdminURL+"/admin/v1", harness.AdminToken)

	type now struct {
		Now time.Time `json:"now"`
	}
	var before, advanced, seen now
	require.NoError(t, ca.Expect(ctx, 200, "GET", "/clock", nil, &before))
	require.NoError(t, ca.Expect(ctx, 200, "POST", "/clock/advance", map[string]any{"seconds": 86400}, &advanced))
	require.GreaterOrEqual(t, advanced.Now.Sub(before.Now), 24*time.Hour)
	require.NoError(t, cb.Expect(ctx, 200, "GET", "/clock", nil, &seen))
	require.GreaterOrEqual(t, seen.Now.Sub(before.Now), 24*time.Hour, "node b follows node a's advance")
	require.Less(t, seen.Now.Sub(before.Now), 25*time.Hour)

	r, err := ca.Do(ctx, "POST", "/clock/advance", map[string]any{"seconds": -5})
	require.NoError(t, err)
	require.Equal(t, 400, r.Status)
	require.Equal(t, "invalid_request", r.ErrorCode())
}

func TestRealClockCannotAdvance(t *testing.T) {
	t.Parallel()
	r, err := env.admin.Do(context.Background(), "POST", "/clock/advance", map[string]any{"seconds": 60})
	require.NoError(t, err)
	require.Equal(t, 409, r.Status)
	require.Equal(t, "conflict", r.ErrorCode())
}
