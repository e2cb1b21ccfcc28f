package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
)

// BenchmarkQuietHoursAccept: quiet hours' cost, the accept (POST /messages)
// of a 10,000-recipient broadcast with the team's quiet hours on against
// the same send with them off, in the same run, taken in turns. The test
// clock stands at 20:58:30 Eastern, the recipients are in four zones (2,500
// each) and the number sends 100 a second, so with the rule on the Eastern
// texts at least are held (more as the number's backlog grows). Reported as p50/p99, never
// asserted. Run: go test ./e2e/ -run '^$' -bench QuietHoursAccept -benchtime 1x -v
func BenchmarkQuietHoursAccept(b *testing.B) {
	var t testing.TB = b
	ctx := context.Background()
	p := newPacingEnv(t, "quiet_bench", 1, "SIMULATOR_PROFILE=realistic", "CLOCK=test", "TWILIO_RATE=100")
	number := teamNumber()
	f, _ := newTeamOn(t, p.admin, p.nodes[0], harness.TeamOptions{Extra: map[string]any{"number": number}})
	areas := []string{"212", "312", "415", "808"}
	for from := 0; from < 10000; from += 1000 {
		var csv strings.Builder
		csv.WriteString("name,phone,role\n")
		for i := from; i < from+1000; i++ {
			fmt.Fprintf(&csv, "Family %d,%s,guardian\n", i, quietPhone(areas[i%4], i))
		}
		r, err := p.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/members/import", csv.String(), "Content-Type", "text/csv")
		require.NoError(t, err)
		require.Equal(t, 200, r.Status)
	}
	c := &clockEnv{url: p.url, svc: p.nodes[0], admin: p.admin}
	now := c.now(t)
	c.advance(t, nextLocal(now, "America/New_York", 20, 58).Add(30*time.Second).Sub(now))
	setQuiet := func(on bool) {
		require.NoError(t, p.admin.Expect(ctx, 200, "PATCH", "/teams/"+f.TeamID+"/messaging-settings",
			map[string]any{"quiet_hours": map[string]any{"enabled": on}}, nil))
	}
	send := func() (time.Duration, int) {
		var k struct {
			Key string `json:"key"`
		}
		require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/teams/"+f.TeamID+"/api-keys", map[string]any{"member_id": f.CoachID, "name": fmt.Sprint("bench-", time.Now().UnixNano())}, &k))
		api := harness.NewClient(p.nodes[0].PublicURL+"/api/v1", k.Key)
		start := time.Now()
		r, err := api.Do(ctx, "POST", "/messages", map[string]any{"text": "Field closed tomorrow", "audience": "families"})
		took := time.Since(start)
		require.NoError(t, err)
		require.Equal(t, 201, r.Status, string(r.Body))
		var m struct {
			Held int `json:"held_for_quiet_hours"`
		}
		require.NoError(t, r.Data(&m))
		return took, m.Held
	}
	const sends = 8
	var on, off []time.Duration
	b.ResetTimer()
	for range sends {
		setQuiet(false)
		d, held := send()
		require.Zero(t, held)
		off = append(off, d)
		setQuiet(true)
		d, held = send()
		require.GreaterOrEqual(t, held, 2500, "at 20:58:30 Eastern, every Eastern text at least is held")
		on = append(on, d)
	}
	for _, s := range []struct {
		name string
		ds   []time.Duration
	}{{"accept-10k-quiet-off", off}, {"accept-10k-quiet-on", on}} {
		st := load.Summarise(s.ds)
		p50, p99 := st.P50, st.P99
		b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms-"+s.name)
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms-"+s.name)
		t.Logf("%-22s p50 %7.1f ms  p99 %7.1f ms  (%d sends)", s.name, float64(p50.Microseconds())/1000, float64(p99.Microseconds())/1000, len(s.ds))
	}
}
