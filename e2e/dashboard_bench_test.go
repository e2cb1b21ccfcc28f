package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
)

// benchCoach is a head coach of a new team (dashboard login) and a
// connection to the shared database to seed the team's rows with, closed
// when t ends.
func benchCoach(t testing.TB) (staff, *pgx.Conn) {
	t.Helper()
	return newStaff(t, "head_coach"), connect(t, env.pg.URL)
}

// BenchmarkDashboardPages: the dashboard's page figures, on a team of 10,000
// families, one broadcast to all of them (10,000 deliveries) and 10,000
// texts in the inbox. Each page is requested pageRuns times over loopback
// by one signed-in client, one at a time, so the time is the server's
// (plus a loopback round trip); beside each, the public API's read of the
// same data in the same run. Compose's preview for 10,000 recipients with
// two merge tags, and a dashboard send of 10,000 with tags against the
// same send without tags through the API. Reported as p50/p99 metrics,
// never asserted. Run: go test ./e2e/ -run '^$' -bench DashboardPages -benchtime 1x -v
func BenchmarkDashboardPages(b *testing.B) {
	var t testing.TB = b
	ctx := context.Background()
	s, conn := benchCoach(t)
	const families = 10_000
	now := time.Now().UTC()
	took := execSQL(t, conn, `INSERT INTO roster_members (id, team_id, name, phone, role, status, created_at, updated_at)
SELECT 'mem_d' || $2::text || i, $1, 'Fam' || i || ' Rivera', '+1310555' || lpad(i::text, 4, '0'), 'guardian', 'active', $3::timestamptz + make_interval(secs => i), $3
FROM generate_series(0, $4::int - 1) i`, s.teamID, fmt.Sprint(now.UnixNano()), now, families)
	took += execSQL(t, conn, `INSERT INTO messaging_inbound (id, team_id, provider_message_id, from_phone, to_phone, body, member_id, member_name, member_role, received_at, created_at)
SELECT 'inb_d' || $3::text || i, $1, 'SMd' || $3::text || i, '+1310555' || lpad(i::text, 4, '0'), $2, 'Running late, see you at the field',
  'mem_d' || $3::text || i, 'Fam' || i || ' Rivera', 'guardian', $4::timestamptz - make_interval(secs => i), $4
FROM generate_series(0, $5::int - 1) i`, s.teamID, s.number, fmt.Sprint(now.UnixNano()), now, families)
	took += execSQL(t, conn, `ANALYZE`)
	t.Logf("setup: %d families and %d inbox texts inserted in %s", families, families, took.Round(time.Millisecond))

	// A fresh key per API send: the send limits are per key.
	apiSend := func(text string) (string, time.Duration) {
		var k struct {
			Key string `json:"key"`
		}
		require.NoError(t, env.admin.Expect(ctx, 201, "POST", "/teams/"+s.teamID+"/api-keys", map[string]any{"member_id": s.memberID, "name": fmt.Sprint("bench-", time.Now().UnixNano())}, &k))
		c := harness.NewClient(env.svc.PublicURL+"/api/v1", k.Key)
		start := time.Now()
		r, err := c.Do(ctx, "POST", "/messages", map[string]any{"text": text, "audience": "families"})
		took := time.Since(start)
		require.NoError(t, err)
		require.Equal(t, 201, r.Status, string(r.Body))
		var m struct {
			ID string `json:"id"`
		}
		require.NoError(t, r.Data(&m))
		return m.ID, took
	}
	msgID, _ := apiSend("Field day Saturday")
	// Pages are measured while the broadcast drains, as a coach watches it.

	h := newHTTPSession(t)
	home := h.signIn(s)
	csrf := csrfOf(t, home)
	const pageRuns = 200
	timed := func(name string, runs int, do func() time.Duration) {
		lat := make([]time.Duration, runs)
		for i := range lat {
			lat[i] = do()
		}
		st := load.Summarise(lat)
		p50, p99 := st.P50, st.P99
		b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms-"+name)
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms-"+name)
		t.Logf("%-22s p50 %6.2f ms  p99 %6.2f ms  (%d requests)", name, float64(p50.Microseconds())/1000, float64(p99.Microseconds())/1000, runs)
	}
	measure := func(name string, runs int, do func() int) {
		timed(name, runs, func() time.Duration {
			start := time.Now()
			status := do()
			took := time.Since(start)
			require.Less(t, status, 400, name)
			return took
		})
	}
	get := func(path string) func() int {
		return func() int { resp, _ := h.get(path); return resp.StatusCode }
	}
	apiGet := func(path string) func() int {
		return func() int {
			r, err := s.api.Do(ctx, "GET", path, nil)
			require.NoError(t, err)
			return r.Status
		}
	}
	b.ResetTimer()
	measure("home", pageRuns, get("/app/"))
	measure("messages", pageRuns, get("/app/messages"))
	measure("message-10k", pageRuns, get("/app/messages/"+msgID))
	measure("inbox-10k", pageRuns, get("/app/inbox"))
	// The API's reads of the same rows, for scale (their own limits allow
	// a few a minute, so a handful each).
	measure("api-messages", 5, apiGet("/messages?limit=50"))
	measure("api-deliveries", 5, apiGet("/messages/"+msgID+"/deliveries?limit=50"))

	tagged := "Hi {first_name}, {team_name} practice moved to 6pm"
	form := url.Values{"csrf": {csrf}, "text": {tagged}, "audience": {"families"}}
	measure("preview-10k-tags", 50, func() int {
		resp, body := h.post("/app/compose/preview", form)
		require.Contains(t, body, fmt.Sprintf("%d credits", families), "every family, one segment each")
		return resp.StatusCode
	})
	// Dashboard sends with tags and API sends without, taken in turns, each
	// on a quiet service: the earlier sends' texts all handed over first
	// (the simulator's instant profile fans them out at once), so the time
	// is the accept's own, not a share of two cores with the hand-over.
	quiet := func() {
		waitFor(t, 3*time.Minute, func() bool {
			return countRowsIn(t, env.pg.URL, `SELECT count(*) FROM messaging_deliveries WHERE team_id = $1 AND status = 'queued'`, s.teamID) == 0
		})
	}
	send := url.Values{"csrf": {csrf}, "text": {tagged}, "audience": {"families"}, "action": {"send"}}
	const sends = 5
	var dash, plain []time.Duration
	for range sends {
		quiet()
		start := time.Now()
		resp, _ := h.post("/app/compose", send)
		dash = append(dash, time.Since(start))
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		require.True(t, strings.HasPrefix(resp.Header.Get("Location"), "/app/messages/"))
		quiet()
		_, took := apiSend("Practice moved to 6pm")
		plain = append(plain, took)
	}
	next := func(ds []time.Duration) func() time.Duration {
		return func() time.Duration { d := ds[0]; ds = ds[1:]; return d }
	}
	timed("send-10k-tags", sends, next(dash))
	timed("api-send-10k", sends, next(plain))
}
