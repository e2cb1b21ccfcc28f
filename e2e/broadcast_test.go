package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// importMembers adds n athletes through the admin CSV import, 1,000 rows a request.
func importMembers(t testing.TB, admin *harness.Client, teamID string, block, n int) {
	t.Helper()
	for from := 0; from < n; from += 1000 {
		res, err := harness.ImportMembers(context.Background(), admin, teamID, harness.Athletes(block, from, min(n, from+1000)))
		require.NoError(t, err)
		require.Equal(t, min(n, from+1000)-from, res.Created)
	}
}

// TestThousandMemberBroadcast: exactly 1,000 carrier sends (20 of them
// refused by the carrier at once), report counts matching the outcomes
// set, and 1,000 message.status events.
func TestThousandMemberBroadcast(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "broadcast_1000")
	f, api := c.team(t, harness.TeamOptions{})
	importMembers(t, c.admin, f.TeamID, 1, 1000)
	failing := map[string]string{}
	for i := 0; i < 100; i++ {
		failing[harness.Phone(1, i)] = "failed"
	}
	for i := 100; i < 150; i++ {
		failing[harness.Phone(1, i)] = "unconfirmed"
	}
	for i := 150; i < 170; i++ {
		failing[harness.Phone(1, i)] = "refused" // an invalid number: the carrier refuses the text
	}
	require.NoError(t, c.admin.Expect(context.Background(), 200, "PUT", "/simulator/outcomes",
		map[string]any{"default": "delivered", "numbers": failing, "error_code": "30005"}, nil))

	r := do(t, api, "POST", "/messages", map[string]any{"text": "Season opener Saturday 10am", "audience": "families"})
	require.Equal(t, 201, r.Status, string(r.Body))
	var m sent
	require.NoError(t, r.Data(&m))
	require.Equal(t, 1000, m.Recipients)
	waitFor(t, 120*time.Second, func() bool {
		return deliveries(t, c.url, m.ID, "delivered") == 830 && deliveries(t, c.url, m.ID, "failed") == 120
	})
	require.Equal(t, 980, countRowsIn(t, c.url, `SELECT count(*) FROM messaging_sim_outbox WHERE team_id = $1`, f.TeamID),
		"exactly 1,000 carrier sends, of which the 20 refused were never recorded as texts")
	require.Equal(t, 20, countRowsIn(t, c.url, `SELECT count(*) FROM messaging_deliveries WHERE message_id = $1
  AND status = 'failed' AND carrier_status = 'rejected' AND error_code = '30005' AND error_message <> ''`, m.ID))
	got := getMessage(t, api, m.ID)
	require.Equal(t, 1000, got.DeliveryCounts.Total)
	require.Equal(t, 830, got.DeliveryCounts.Delivered)
	require.Equal(t, 120, got.DeliveryCounts.Failed)
	require.Equal(t, 50, got.DeliveryCounts.Sent)
	require.Equal(t, 950, countRowsIn(t, c.url, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.status'`, f.TeamID))
	// The 50 unconfirmed ones become delivery_unconfirmed after the timeout, with their own events.
	c.advance(t, 72*time.Hour+time.Minute)
	waitFor(t, 60*time.Second, func() bool { return deliveries(t, c.url, m.ID, "delivery_unconfirmed") == 50 })
	got = getMessage(t, api, m.ID)
	require.Equal(t, 50, got.DeliveryCounts.Unconfirmed)
	require.Equal(t, 0, got.DeliveryCounts.Sent)
	require.Equal(t, 1000, countRowsIn(t, c.url, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.status'`, f.TeamID))
}

// TestFanoutSurvivesSIGKILL: the service is killed in the middle of a
// 5,000-recipient fan-out and restarted: no recipient is lost and none is
// texted twice. The worker passes the delivery id to the carrier as its
// idempotency key; the simulator, like carriers with such keys, dedupes on it.
func TestFanoutSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	url := freshDatabase(t, "fanout_kill")
	fast := []string{"JOB_TIMEOUT=10s", "JOB_RESCUE_AFTER=10s", "JOB_WORKERS=8"}
	svc := startServiceOn(t, url, fast...)
	admin := harness.NewClient(svc.AdminURL+"/admin/v1", harness.AdminToken)
	f, api := newTeamOn(t, admin, svc, harness.TeamOptions{Extra: map[string]any{"number": teamNumber()}})
	importMembers(t, admin, f.TeamID, 2, 5000)
	r := do(t, api, "POST", "/messages", map[string]any{"text": "Tournament schedule is out", "audience": "families"})
	require.Equal(t, 201, r.Status, string(r.Body))
	var m sent
	require.NoError(t, r.Data(&m))

	outboxCount := func() int {
		return countRowsIn(t, url, `SELECT count(*) FROM messaging_sim_outbox WHERE team_id = $1`, f.TeamID)
	}
	waitFor(t, 60*time.Second, func() bool { return outboxCount() >= 500 })
	require.NoError(t, svc.Kill())
	mid := outboxCount()
	require.Less(t, mid, 5000, "killed in the middle of the fan-out")

	startServiceOn(t, url, fast...)
	waitFor(t, 180*time.Second, func() bool { return deliveries(t, url, m.ID, "delivered") == 5000 })
	require.Equal(t, 5000, outboxCount(), "every recipient texted")
	require.Equal(t, 0, countRowsIn(t, url, `SELECT count(*) FROM (SELECT to_phone FROM messaging_sim_outbox WHERE team_id = $1 GROUP BY to_phone HAVING count(*) > 1) d`, f.TeamID), "nobody texted twice")
	require.Equal(t, 5000, countRowsIn(t, url, `SELECT count(DISTINCT phone) FROM messaging_deliveries WHERE message_id = $1`, m.ID))
	t.Logf("killed with %d of 5000 texts handed over", mid)
}
