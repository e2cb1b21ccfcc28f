package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/modules/messaging/fakes/fakecarrier"
)

// The delivery engine against the realistic simulator: sending
// numbers paced by plan, exact across nodes, fair between teams; STOP
// reaching sends in flight; ingestion that never waits behind a backlog.

// pacingEnv is a fresh database with n services on it.
type pacingEnv struct {
	url   string
	nodes []*harness.Service
	admin *harness.Client
	env   []string
}

func newPacingEnv(t testing.TB, name string, nodes int, env ...string) *pacingEnv {
	t.Helper()
	p := &pacingEnv{url: freshDatabase(t, name), env: env}
	for range nodes {
		p.nodes = append(p.nodes, startServiceOn(t, p.url, env...))
	}
	t.Cleanup(func() { p.logOnFailure(t) })
	p.admin = harness.NewClient(p.nodes[0].AdminURL+"/admin/v1", harness.AdminToken)
	return p
}

// logAlarms logs the last 30 WARN and ERROR lines of svc's log.
func logAlarms(t testing.TB, name string, svc *harness.Service) {
	var alarms []string
	for _, line := range strings.Split(svc.Logs(), "\n") {
		if strings.Contains(line, `"level":"WARN"`) || strings.Contains(line, `"level":"ERROR"`) {
			alarms = append(alarms, line)
		}
	}
	t.Logf("--- %s WARN and ERROR lines (%d) ---\n%s", name, len(alarms), strings.Join(alarms[max(0, len(alarms)-30):], "\n"))
}

// logOnFailure shows the tail of each node's log when the test failed.
func (p *pacingEnv) logOnFailure(t testing.TB) {
	if !t.Failed() {
		return
	}
	for i, n := range p.nodes {
		logAlarms(t, fmt.Sprint("node ", i), n)
		logs := n.Logs()
		t.Logf("--- node %d logs (tail) ---\n%s", i, logs[max(0, len(logs)-8000):])
	}
	conn, err := pgx.Connect(context.Background(), p.url)
	if err != nil {
		return
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT number, coalesce(throughput, 0), last_at::text, free_at::text, coalesce(catch_up_until::text, '-'),
  coalesce(next_at::text, '-'), backlog_segments, (SELECT count(*) FROM messaging_slots s WHERE s.number_id = n.id) FROM messaging_numbers n`)
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var num, last, free, cu, next string
		var tp float64
		var backlog, slots int64
		if rows.Scan(&num, &tp, &last, &free, &cu, &next, &backlog, &slots) == nil {
			t.Logf("number %s throughput %g last %s free %s catch-up %s next %s backlog %d slots %d", num, tp, last, free, cu, next, backlog, slots)
		}
	}
	rows.Close()
	var statuses string
	if conn.QueryRow(context.Background(), `SELECT coalesce(string_agg(status || ' ' || n, ', '), '') FROM
  (SELECT status, count(*) AS n FROM messaging_deliveries GROUP BY status ORDER BY status) s`).Scan(&statuses) == nil {
		t.Logf("deliveries by status: %s", statuses)
	}
}

// paced is a team whose own number sends at throughput segments a second.
type paced struct {
	*harness.Fixture
	api      *harness.Client
	number   string
	numberID string
}

// team makes a team of members athletes (a block of rosterPhone) whose
// primary number has the given throughput; its key talks to node.
func (p *pacingEnv) team(t testing.TB, node, block, members int, throughput float64) paced {
	t.Helper()
	number := teamNumber()
	f, api := newTeamOn(t, p.admin, p.nodes[node], harness.TeamOptions{Extra: map[string]any{"number": number}})
	if members > 0 {
		importMembers(t, p.admin, f.TeamID, block, members)
	}
	var ns []struct {
		ID      string `json:"id"`
		Number  string `json:"number"`
		Primary bool   `json:"primary"`
	}
	require.NoError(t, p.admin.Expect(context.Background(), 200, "GET", "/teams/"+f.TeamID+"/numbers", nil, &ns))
	require.Len(t, ns, 1)
	require.True(t, ns[0].Primary)
	require.Equal(t, number, ns[0].Number)
	require.NoError(t, p.admin.Expect(context.Background(), 200, "PATCH", "/teams/"+f.TeamID+"/numbers/"+ns[0].ID,
		map[string]any{"throughput": throughput}, nil))
	return paced{Fixture: f, api: api, number: number, numberID: ns[0].ID}
}

// broadcast sends text to every member and returns the message and when
// the 201 came back.
func broadcast(t testing.TB, api *harness.Client, text string) (sendResult, time.Time) {
	t.Helper()
	r := do(t, api, "POST", "/messages", map[string]any{"text": text, "audience": "all"})
	at := time.Now()
	require.Equal(t, 201, r.Status, string(r.Body))
	var m sendResult
	require.NoError(t, r.Data(&m))
	return m, at
}

type sendResult struct {
	ID                  string     `json:"id"`
	Status              string     `json:"status"`
	Recipients          int        `json:"recipients"`
	EstimatedCompletion *time.Time `json:"estimated_completion"`
	CreatedAt           time.Time  `json:"created_at"`
	Progress            struct {
		HandedOver int `json:"handed_over"`
		Skipped    int `json:"skipped"`
		Total      int `json:"total"`
	} `json:"progress"`
}

// handOver is one text the simulated carrier took.
type handOver struct {
	to string
	at time.Time
}

// handOvers lists, oldest first, the texts a number handed to the carrier.
func handOvers(t testing.TB, url, from string) []handOver {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT to_phone, created_at FROM messaging_sim_outbox WHERE from_phone = $1 ORDER BY id`, from)
	require.NoError(t, err)
	defer rows.Close()
	var out []handOver
	for rows.Next() {
		var h handOver
		require.NoError(t, rows.Scan(&h.to, &h.at))
		out = append(out, h)
	}
	require.NoError(t, rows.Err())
	return out
}

// TestBacklogDoesNotHoldOtherTeams: on two nodes, team A broadcasts to
// 5,000 members at 250 texts/s; while A's backlog is being handed over:
// team B's 4-recipient broadcast reaches the carrier within 5 s of B's
// 201; A's number never hands over more than its throughput in any second
// (at the carrier's timestamps), with both nodes at work; a STOP from one
// of A's not-yet-texted recipients is recorded within a second and that
// number is never texted; an inbound text is listed within 2 s; and B's
// status reports are ingested within 2 s of the carrier posting them.
func TestBacklogDoesNotHoldOtherTeams(t *testing.T) {
	// Not parallel: it measures ingestion and hand-over times, so it runs
	// before the package's parallel tests start their own services.
	ctx := context.Background()
	p := newPacingEnv(t, "pacing_backlog", 2, "SIMULATOR_PROFILE=realistic")
	require.NoError(t, p.admin.Expect(ctx, 200, "PUT", "/simulator/profile",
		map[string]any{"name": "realistic", "report_latency_min_ms": 100, "report_latency_max_ms": 400}, nil))
	const rate = 250
	a := p.team(t, 0, 3, 5000, rate)
	b := p.team(t, 1, 4, 4, 10)

	est := do(t, a.api, "POST", "/messages/estimate", map[string]any{"text": "Tournament bracket is out", "audience": "all"})
	require.Equal(t, 200, est.Status, string(est.Body))
	var e struct {
		Recipients          int       `json:"recipients"`
		EstimatedCompletion time.Time `json:"estimated_completion"`
	}
	require.NoError(t, est.Data(&e))
	require.Equal(t, 5001, e.Recipients, "5,000 athletes and the head coach")
	require.InDelta(t, 20.0, time.Until(e.EstimatedCompletion).Seconds(), 2, "5,001 texts at 250/s")

	ma, _ := broadcast(t, a.api, "Tournament bracket is out")
	require.NotNil(t, ma.EstimatedCompletion)
	require.InDelta(t, 20.0, ma.EstimatedCompletion.Sub(ma.CreatedAt).Seconds(), 1.5)

	// A's backlog is under way: a quarter of it handed over.
	waitFor(t, 30*time.Second, func() bool { return len(handOvers(t, p.url, a.number)) >= 1200 })

	// A recipient late in A's list texts STOP.
	// Measured as the benchmark does, to the opt-out's row (its created_at,
	// the service clock when the STOP was honoured), not to when this
	// test's polling happens to see it.
	conn, err := pgx.Connect(ctx, p.url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	late := harness.Phone(3, 4800)
	stopAt := time.Now()
	inject(t, p.admin, late, a.number, "STOP")
	waitFor(t, 5*time.Second, func() bool {
		return countRowsIn(t, p.url, `SELECT count(*) FROM roster_opt_outs WHERE team_id = $1 AND phone = $2`, a.TeamID, late) == 1
	})
	var honoured time.Time
	require.NoError(t, conn.QueryRow(ctx, `SELECT created_at FROM roster_opt_outs WHERE team_id = $1 AND phone = $2`, a.TeamID, late).Scan(&honoured))
	require.Less(t, honoured.Sub(stopAt), time.Second, "STOP recorded within a second of the carrier's callback, behind a full backlog")

	// B's broadcast leaves at once.
	mb, bAt := broadcast(t, b.api, "Game cancelled")
	waitFor(t, 10*time.Second, func() bool { return len(handOvers(t, p.url, b.number)) == 5 })
	for _, h := range handOvers(t, p.url, b.number) {
		require.Less(t, h.at.Sub(bAt), 5*time.Second, "B's text to %s handed over %s after its 201", h.to, h.at.Sub(bAt))
	}
	require.Less(t, len(handOvers(t, p.url, a.number)), 5001, "A was still busy when B went")

	// An inbound text to B is listed within 2 s.
	id := inject(t, p.admin, "+12025550777", b.number, "Running late")
	sentAt := time.Now()
	waitFor(t, 10*time.Second, func() bool { return inboundStored(t, p.url, id) })
	require.Less(t, time.Since(sentAt), 2*time.Second, "inbound ingested within 2 s behind A's backlog")

	// B's reports are ingested within 2 s of the carrier posting them.
	waitFor(t, 10*time.Second, func() bool { return deliveries(t, p.url, mb.ID, "delivered") == 5 })
	seen := time.Now()
	var newest time.Time
	require.NoError(t, conn.QueryRow(ctx, `SELECT max(updated_at) FROM messaging_deliveries WHERE message_id = $1`, mb.ID).Scan(&newest))
	require.Less(t, seen.Sub(newest), 2*time.Second, "the last report's time to its ingestion, seen by polling")

	// A finishes: at its pace, exactly, with both nodes handing over.
	waitFor(t, 60*time.Second, func() bool { return deliveries(t, p.url, ma.ID, "queued") == 0 })
	hs := handOvers(t, p.url, a.number)
	require.Len(t, hs, 5000, "everyone but the recipient who opted out")
	at := make([]time.Time, len(hs))
	for i, h := range hs {
		at[i] = h.at
	}
	require.LessOrEqual(t, fakecarrier.BusiestSecond(at), rate, "never more than the number's throughput in any second")
	span := hs[len(hs)-1].at.Sub(hs[0].at)
	require.Greater(t, span, 19*time.Second, "5,000 texts at 250/s cannot take less than 19 s")
	for _, h := range hs {
		require.NotEqual(t, late, h.to, "texted after STOP")
	}
	got := getMessage(t, a.api, ma.ID)
	require.Equal(t, 1, got.DeliveryCounts.Failed)
	require.Equal(t, 1, countRowsIn(t, p.url, `SELECT count(*) FROM messaging_deliveries WHERE message_id = $1 AND phone = $2
  AND status = 'failed' AND error_code = 'opted_out' AND carrier_status = 'not_sent'`, ma.ID, late))
	require.Equal(t, 1, countRowsIn(t, p.url, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.status'
  AND body::jsonb -> 'data' ->> 'to' = $2 AND body::jsonb -> 'data' ->> 'error_code' = 'opted_out'`, a.TeamID, late), "message.status for the text never sent")
	var progress sendResult
	require.NoError(t, do(t, a.api, "GET", "/messages/"+ma.ID, nil).Data(&progress))
	require.Equal(t, 5000, progress.Progress.HandedOver)
	require.Equal(t, 1, progress.Progress.Skipped)
	require.Equal(t, 5001, progress.Progress.Total)
	var total float64
	for i, n := range p.nodes {
		handed := metricValue(t, n, "teamtext_texts_handed_over_total")
		require.Positive(t, handed, "node %d handed texts over: the nodes share the numbers", i)
		total += handed
	}
	require.GreaterOrEqual(t, total, float64(5000+5), "every text handed over, counted by the node that did it")
}

// TestCrashedNodeHandsOverWithinTwoMinutes: two nodes with the default job
// settings; one is killed with SIGKILL in the middle of a paced broadcast,
// with webhook deliveries of its message.status events in flight, and
// restarted. Every text is handed over exactly once, and every event
// reaches the receiver, all within two minutes of the kill.
func TestCrashedNodeHandsOverWithinTwoMinutes(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t)
	release := rcv.Hold("/held")
	p := newPacingEnv(t, "pacing_kill", 2, "SIMULATOR_PROFILE=realistic", "WEBHOOK_ALLOW_CIDRS=127.0.0.1/32", "WEBHOOK_CA_FILE="+rcv.PEM())
	a := p.team(t, 0, 5, 3000, 100)
	whCreate(t, a.api, rcv.URL("/held"), "message.status")
	m, _ := broadcast(t, a.api, "Bus leaves at 7")
	waitFor(t, 30*time.Second, func() bool { return len(handOvers(t, p.url, a.number)) >= 300 })
	// Deliveries in flight on both nodes: the receiver holds them.
	waitFor(t, 30*time.Second, func() bool { return len(rcv.Requests("/held")) >= 20 })
	require.NoError(t, p.nodes[0].Kill())
	killed := time.Now()
	release()
	mid := len(handOvers(t, p.url, a.number))
	require.Less(t, mid, 3001, "killed in the middle")
	startServiceOn(t, p.url, p.env...)

	waitFor(t, 2*time.Minute, func() bool { return deliveries(t, p.url, m.ID, "queued") == 0 })
	hs := handOvers(t, p.url, a.number)
	require.Len(t, hs, 3001, "every recipient texted")
	seen := map[string]bool{}
	for _, h := range hs {
		require.False(t, seen[h.to], "%s texted twice", h.to)
		seen[h.to] = true
	}
	textsDone := time.Since(killed)
	// Every text's final status reaches the receiver and is answered (the
	// carrier reports within 2 s of a text leaving its queue); deliveries
	// the dead node had in flight are sent again.
	waitFor(t, 2*time.Minute-time.Since(killed), func() bool {
		ids := map[string]bool{}
		for _, r := range rcv.Held() {
			ids[envelope(t, r).ID] = true
		}
		return len(ids) == 3001
	})
	require.Less(t, time.Since(killed), 2*time.Minute)
	t.Logf("killed with %d of 3001 handed over; texts done %s and events %s after the kill", mid,
		textsDone.Round(time.Second), time.Since(killed).Round(time.Second))
}

// TestTestClockRunsALongBroadcast: at 1 segment a second, 10,000 texts
// take nearly three hours; on the test clock, moving it on hands them all
// over in seconds of real time, each exactly once, and the estimate said
// how long the plan would take.
func TestTestClockRunsALongBroadcast(t *testing.T) {
	// Not parallel: it measures ingestion and hand-over times, so it runs
	// before the package's parallel tests start their own services.
	p := newPacingEnv(t, "pacing_clock", 1, "SIMULATOR_PROFILE=realistic", "CLOCK=test", "TWILIO_RATE=1")
	a := p.team(t, 0, 6, 9999, 1)
	m, _ := broadcast(t, a.api, "Season schedule attached")
	require.Equal(t, 10000, m.Recipients)
	require.InDelta(t, 9999, m.EstimatedCompletion.Sub(m.CreatedAt).Seconds(), 2, "one a second")
	c := &clockEnv{url: p.url, svc: p.nodes[0], admin: p.admin}
	c.advance(t, 3*time.Hour)
	waitFor(t, 90*time.Second, func() bool { return deliveries(t, p.url, m.ID, "queued") == 0 })
	require.Equal(t, 10000, countRowsIn(t, p.url, `SELECT count(DISTINCT to_phone) FROM messaging_sim_outbox WHERE from_phone = $1`, a.number))
	require.Equal(t, 10000, countRowsIn(t, p.url, `SELECT count(*) FROM messaging_sim_outbox WHERE from_phone = $1`, a.number))
	// The carrier's queue sends them on at 1/s too: three more hours, and all are delivered.
	c.advance(t, 3*time.Hour)
	waitFor(t, 2*time.Minute, func() bool { return deliveries(t, p.url, m.ID, "delivered") == 10000 })
}

// TestReportsTwiceAndOutOfOrder: every final report posted twice and every
// 'sent' report after the final one: each delivery still ends in its
// outcome, and message.status is published once per delivery.
func TestReportsTwiceAndOutOfOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newPacingEnv(t, "pacing_reports", 1, "SIMULATOR_PROFILE=realistic")
	require.NoError(t, p.admin.Expect(ctx, 200, "PUT", "/simulator/profile", map[string]any{"name": "realistic",
		"duplicate_rate": 1, "reorder_rate": 1, "report_latency_min_ms": 50, "report_latency_max_ms": 300}, nil))
	a := p.team(t, 0, 7, 60, 50)
	outcomes := map[string]string{}
	for i := 0; i < 10; i++ {
		outcomes[harness.Phone(7, i)] = "landline"
	}
	for i := 10; i < 15; i++ {
		outcomes[harness.Phone(7, i)] = "unconfirmed"
	}
	require.NoError(t, p.admin.Expect(ctx, 200, "PUT", "/simulator/outcomes", map[string]any{"default": "delivered", "numbers": outcomes}, nil))
	m, _ := broadcast(t, a.api, "Photos from Saturday")
	waitFor(t, 30*time.Second, func() bool {
		return deliveries(t, p.url, m.ID, "delivered") == 46 && deliveries(t, p.url, m.ID, "failed") == 10
	})
	// Every report posted, the late ones included: nothing left for the carrier to say.
	waitFor(t, 30*time.Second, func() bool { return countRowsIn(t, p.url, `SELECT count(*) FROM messaging_sim_reports`) == 0 })
	waitFor(t, 30*time.Second, func() bool {
		return countRowsIn(t, p.url, `SELECT count(*) FROM river_job WHERE kind = 'messaging.delivery_statuses' AND state <> 'completed'`) == 0
	})
	require.Equal(t, 5, deliveries(t, p.url, m.ID, "sent"), "unconfirmed ones stay sent: their late 'sent' report moved nothing back")
	require.Equal(t, 10, countRowsIn(t, p.url, `SELECT count(*) FROM messaging_deliveries WHERE message_id = $1 AND error_code = '30006'`, m.ID))
	require.Equal(t, 56, countRowsIn(t, p.url, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.status'`, a.TeamID),
		"one message.status per delivery that ended")
	require.Equal(t, 56, countRowsIn(t, p.url, `SELECT count(DISTINCT body::jsonb -> 'data' ->> 'delivery_id') FROM webhook_events WHERE team_id = $1 AND type = 'message.status'`, a.TeamID))
	// The carrier did post duplicates: more reports than deliveries were ingested.
	require.Greater(t, countRowsIn(t, p.url, `SELECT coalesce(sum(jsonb_array_length(args->'statuses')), 0) FROM river_job
WHERE kind = 'messaging.delivery_statuses'`), 60+56)
}

// TestSendingNumbersPool: a team with two numbers spreads a broadcast over
// both, a recipient keeps the number that texted them before, inbound texts
// and STOP to the added number reach the team, and numbers are managed
// through the admin API with their rules.
func TestSendingNumbersPool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newPacingEnv(t, "pacing_pool", 1, "SIMULATOR_PROFILE=realistic", "TWILIO_RATE=50")
	a := p.team(t, 0, 1, 40, 20)
	second := teamNumber()
	var added struct {
		ID                string  `json:"id"`
		Number            string  `json:"number"`
		Kind              string  `json:"kind"`
		Throughput        float64 `json:"throughput"`
		ThroughputDefault bool    `json:"throughput_default"`
		Primary           bool    `json:"primary"`
	}
	require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/teams/"+a.TeamID+"/numbers", map[string]any{"number": second, "kind": "toll_free"}, &added))
	require.Equal(t, second, added.Number)
	require.Equal(t, "toll_free", added.Kind)
	require.Equal(t, 50.0, added.Throughput, "the default: TWILIO_RATE")
	require.True(t, added.ThroughputDefault)
	require.False(t, added.Primary)

	// Rules: no number twice, not another team's, the primary stays.
	r := do(t, p.admin, "POST", "/teams/"+a.TeamID+"/numbers", map[string]any{"number": second})
	requireCode(t, r, 409, "conflict")
	other := p.team(t, 0, 2, 0, 5)
	requireCode(t, do(t, p.admin, "POST", "/teams/"+a.TeamID+"/numbers", map[string]any{"number": other.number}), 409, "conflict")
	requireCode(t, do(t, p.admin, "POST", "/teams/"+a.TeamID+"/numbers", map[string]any{"number": "555"}), 400, "invalid_phone")
	requireCode(t, do(t, p.admin, "POST", "/teams/"+a.TeamID+"/numbers", map[string]any{"number": "+12025550188", "throughput": 0}), 400, "invalid_request")
	requireCode(t, do(t, p.admin, "DELETE", "/teams/"+a.TeamID+"/numbers/"+a.numberID, nil), 409, "conflict")
	requireCode(t, do(t, p.admin, "GET", "/teams/"+other.TeamID+"/numbers/"+added.ID, nil), 404, "not_found")
	var short struct {
		ID string `json:"id"`
	}
	require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/teams/"+a.TeamID+"/numbers",
		map[string]any{"number": "86753", "kind": "short_code", "throughput": 100}, &short))
	require.NoError(t, p.admin.Expect(ctx, 204, "DELETE", "/teams/"+a.TeamID+"/numbers/"+short.ID, nil, nil))

	first, _ := broadcast(t, a.api, "Practice moved to field 2")
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, p.url, first.ID, "queued") == 0 })
	fromPrimary, fromSecond := handOvers(t, p.url, a.number), handOvers(t, p.url, second)
	require.Equal(t, 41, len(fromPrimary)+len(fromSecond))
	require.NotEmpty(t, fromPrimary, "the broadcast spread over both numbers")
	require.NotEmpty(t, fromSecond)
	sender := map[string]string{}
	for _, h := range fromPrimary {
		sender[h.to] = a.number
	}
	for _, h := range fromSecond {
		sender[h.to] = second
	}

	again, _ := broadcast(t, a.api, "Bring water")
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, p.url, again.ID, "queued") == 0 })
	for _, num := range []string{a.number, second} {
		for _, h := range handOvers(t, p.url, num) {
			require.Equal(t, sender[h.to], num, "%s keeps the number that texted them first", h.to)
		}
	}

	// A STOP to the added number opts the member out of the team.
	member := fromSecond[0].to
	inject(t, p.admin, member, second, "STOP")
	waitFor(t, 10*time.Second, func() bool {
		return countRowsIn(t, p.url, `SELECT count(*) FROM roster_opt_outs WHERE team_id = $1 AND phone = $2`, a.TeamID, member) == 1
	})
	id := inject(t, p.admin, fromPrimary[0].to, second, "Which field?")
	waitFor(t, 10*time.Second, func() bool { return inboundStored(t, p.url, id) })
	require.Equal(t, 1, countRowsIn(t, p.url, `SELECT count(*) FROM messaging_inbound WHERE provider_message_id = $1 AND team_id = $2`, id, a.TeamID))
}

// TestTwilioPacedOnTwoNodes: the Twilio adapter against a fake Twilio, on
// two nodes: a number's texts reach Twilio at no more than its throughput
// in any second, and another team's broadcast is not held behind them.
func TestTwilioPacedOnTwoNodes(t *testing.T) {
	t.Parallel()
	const token = "twiliopacedauthtoken0123456789ab"
	fake := newFakeTwilioAPI(t)
	dbURL := freshDatabase(t, "twilio_paced")
	env := []string{"CARRIER=twilio", "TWILIO_ACCOUNT_SID=AC0123456789abcdef0123456789abcdef", "TWILIO_AUTH_TOKEN=" + token,
		"TWILIO_API_URL=" + fake.URL, "PUBLIC_BASE_URL=https://teamtext.example.test"}
	p := &pacingEnv{url: dbURL, env: env}
	p.nodes = []*harness.Service{startServiceOn(t, dbURL, env...), startServiceOn(t, dbURL, env...)}
	p.admin = harness.NewClient(p.nodes[0].AdminURL+"/admin/v1", harness.AdminToken)
	a := p.team(t, 0, 3, 600, 40)
	b := p.team(t, 1, 4, 3, 10)

	m, _ := broadcast(t, a.api, "Uniform pickup Thursday")
	waitFor(t, 30*time.Second, func() bool { return len(fake.sentFrom(a.number)) >= 100 })
	_, bAt := broadcast(t, b.api, "Field closed today")
	waitFor(t, 10*time.Second, func() bool { return len(fake.sentFrom(b.number)) == 4 })
	for _, at := range fake.sentFrom(b.number) {
		require.Less(t, at.Sub(bAt), 5*time.Second, "B's texts reach Twilio within 5 s of its 201")
	}
	waitFor(t, 60*time.Second, func() bool { return deliveries(t, p.url, m.ID, "queued") == 0 })
	ts := fake.sentFrom(a.number)
	require.Len(t, ts, 601)
	require.LessOrEqual(t, fakecarrier.BusiestSecond(ts), 40, "Twilio never gets more than the number's throughput in a second")
}

// TestNumbersCLI: the admin CLI's number verbs, against the suite's service.
func TestNumbersCLI(t *testing.T) {
	t.Parallel()
	f, _ := messagingTeam(t, harness.TeamOptions{})
	number := teamNumber()
	code, stdout, stderr := runCLI(t, "admin", "numbers", "add", "--team", f.TeamID, "-f", "number="+number, "-f", "kind=toll_free", "-F", "throughput=3")
	require.Equal(t, 0, code, stderr)
	var added struct {
		Data struct {
			ID         string  `json:"id"`
			Number     string  `json:"number"`
			Throughput float64 `json:"throughput"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &added), stdout)
	require.Equal(t, number, added.Data.Number)
	require.Equal(t, 3.0, added.Data.Throughput)

	code, stdout, stderr = runCLI(t, "admin", "numbers", "update", "--team", f.TeamID, "--number", added.Data.ID, "-F", "throughput=2.5")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, `"throughput": 2.5`)
	code, stdout, _ = runCLI(t, "admin", "numbers", "list", "--team", f.TeamID)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, number)
	require.Contains(t, stdout, `"primary": true`)
	code, _, _ = runCLI(t, "admin", "numbers", "remove", "--team", f.TeamID, "--number", added.Data.ID)
	require.Equal(t, 0, code)
	code, stdout, _ = runCLI(t, "admin", "numbers", "get", "--team", f.TeamID, "--number", added.Data.ID)
	require.Equal(t, 1, code, "removed: 404")
	require.Contains(t, stdout, `"not_found"`)
}

// metricValue reads an unlabelled metric from a node's /metrics.
func metricValue(t *testing.T, n *harness.Service, name string) float64 {
	t.Helper()
	v, err := harness.Metric(context.Background(), n.AdminURL, name)
	require.NoError(t, err)
	return v
}
