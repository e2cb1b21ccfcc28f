package e2e

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/bandwidthtest"
	"github.com/teamtext/teamtext/modules/messaging/fakes/telnyxtest"
	"github.com/teamtext/teamtext/modules/messaging/fakes/twiliotest"
)

// BenchmarkThreeCarriersPace: the hand-over with three providers' fakes at
// once on two nodes: three teams, one per provider (Twilio as the default
// account, Telnyx and Bandwidth added), each with 100 numbers at 1 segment
// a second, broadcast to 2,000 members each at the same time (about 20
// texts a number). Each number's achieved pace is its texts over the span
// from its first to its last hand-over, as its fake saw them; reported per
// provider as the share of numbers at ≥ 95% of their pace and the slowest
// number's ratio, never asserted. Run:
// go test ./e2e/ -run '^$' -bench ThreeCarriersPace -benchtime 1x -v -timeout 20m
func BenchmarkThreeCarriersPace(b *testing.B) {
	var t testing.TB = b
	const (
		base    = "https://teamtext.example.test"
		sid     = "AC99887766554433221100ffeeddccbbaa"
		token   = "twiliopacebench0123456789abcdefg"
		telKey  = "KEYtelnyxPaceBench"
		perTeam = 100
		members = 2000
	)
	tw := twiliotest.NewServer(t, sid, token)
	tel := telnyxtest.NewServer(t, telKey, "prof-pace")
	bw := bandwidthtest.NewServer(t, "9900789", "bw-user", "bw-pass", "bw-app", "bw-cb", "bw-cb-pass")
	p := newPacingEnv(t, "three_carriers_pace", 2, twilioDefaultEnv(t, tw, base)...)
	toNode := func(u string) string { return strings.Replace(u, base, p.nodes[1].PublicURL, 1) }
	tw.Rewrite, tel.Rewrite = toNode, toNode
	ctx := context.Background()
	var telAcct, bwAcct carrierAccount
	require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/carrier-accounts", telnyxAccount("T", tel), &telAcct))
	require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/carrier-accounts", bandwidthAccount("B", bw), &bwAcct))
	bw.CallbackURL = p.nodes[0].PublicURL + "/carrier/bandwidth/" + bwAcct.ID

	accts := []string{"cac_default", telAcct.ID, bwAcct.ID}
	var teams []paced
	for i, acct := range accts {
		tm := p.team(t, i%2, 111+i, members, 1)
		require.NoError(t, p.admin.Expect(ctx, 200, "PATCH", "/teams/"+tm.TeamID+"/numbers/"+tm.numberID, map[string]any{"carrier_account_id": acct}, nil))
		for range perTeam - 1 {
			require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/teams/"+tm.TeamID+"/numbers",
				map[string]any{"number": teamNumber(), "throughput": 1, "carrier_account_id": acct}, nil))
		}
		teams = append(teams, tm)
	}
	flushEvery(t, 500*time.Millisecond, tw.Flush, tel.Flush, bw.Flush)

	b.ResetTimer()
	var msgs []sendResult
	for _, tm := range teams {
		m, _ := broadcast(t, tm.api, "Season opener moved to Saturday 9am")
		msgs = append(msgs, m)
	}
	for _, m := range msgs {
		waitFor(t, 5*time.Minute, func() bool { return deliveries(t, p.url, m.ID, "delivered") == m.Recipients })
	}
	b.StopTimer()
	// A pass that fails (a deadlock, Postgres away) holds its numbers back
	// a second or more: the figures below mean little without these.
	logAlarms(t, "node 0", p.nodes[0])
	logAlarms(t, "node 1", p.nodes[1])

	type sent struct {
		from string
		at   time.Time
	}
	collect := map[string][]sent{}
	for _, m := range tw.Messages() {
		collect["twilio"] = append(collect["twilio"], sent{m.From, m.At})
	}
	for _, m := range tel.Messages() {
		collect["telnyx"] = append(collect["telnyx"], sent{m.From, m.At})
	}
	for _, m := range bw.Messages() {
		collect["bandwidth"] = append(collect["bandwidth"], sent{m.From, m.At})
	}
	for _, name := range []string{"twilio", "telnyx", "bandwidth"} {
		per := map[string][]time.Time{}
		for _, s := range collect[name] {
			per[s.from] = append(per[s.from], s.at)
		}
		require.Len(t, per, perTeam, "%s: every number sent", name)
		var ratios, gaps []float64
		var firsts []time.Time
		for _, at := range per {
			sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
			firsts = append(firsts, at[0])
			for k := 1; k < len(at); k++ {
				gaps = append(gaps, at[k].Sub(at[k-1]).Seconds())
			}
			if len(at) >= 3 {
				ratios = append(ratios, float64(len(at)-1)/at[len(at)-1].Sub(at[0]).Seconds())
			}
		}
		sort.Float64s(gaps)
		sort.Slice(firsts, func(i, j int) bool { return firsts[i].Before(firsts[j]) })
		// Where a number's pace goes: the gaps between its hand-overs (1 s
		// each at its pace) and how far apart the numbers started.
		b.Logf("%s: gaps between a number's texts p50 %.3f s, p90 %.3f s, p99 %.3f s, max %.3f s; first texts spread over %s",
			name, gaps[len(gaps)/2], gaps[len(gaps)*9/10], gaps[len(gaps)*99/100], gaps[len(gaps)-1], firsts[len(firsts)-1].Sub(firsts[0]).Round(time.Millisecond))
		sort.Float64s(ratios)
		ok := 0
		for _, r := range ratios {
			if r >= 0.95 {
				ok++
			}
		}
		share := float64(ok) / float64(len(ratios))
		b.ReportMetric(share*100, name+"-numbers-at-95%-pct")
		b.ReportMetric(ratios[0], name+"-slowest-ratio")
		b.Logf("%s: %d numbers, %d texts; at ≥95%% of pace: %d (%.1f%%); slowest %.3f, p5 %.3f, median %.3f, fastest %.3f",
			name, len(per), len(collect[name]), ok, share*100, ratios[0], ratios[len(ratios)/20], ratios[len(ratios)/2], ratios[len(ratios)-1])
	}
}
