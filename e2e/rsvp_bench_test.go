package e2e

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/e2e/harness/load"
)

// Performance of RSVP by reply: filing poll answers beside
// plain texts, and reading a big poll's answers. Run one at a time with
// -benchtime=1x; the figures are the lead's to record.

const rsvpBenchMembers = 10000

// rsvpBench is a service on its own database with a team of 10,000
// athletes (10,000 numbers).
type rsvpBench struct {
	url    string
	svc    *harness.Service
	admin  *harness.Client
	api    *harness.Client
	f      *harness.Fixture
	number string
	phones []string
	conn   *pgx.Conn
}

func newRSVPBench(t testing.TB, name string) *rsvpBench {
	t.Helper()
	ctx := context.Background()
	b := &rsvpBench{url: freshDatabase(t, name), number: teamNumber()}
	b.svc = startServiceOn(t, b.url)
	b.admin = harness.NewClient(b.svc.AdminURL+"/admin/v1", harness.AdminToken)
	b.f, b.api = newTeamOn(t, b.admin, b.svc, harness.TeamOptions{Extra: map[string]any{"number": b.number}})
	const block = 3
	for part := range slices.Chunk(harness.Athletes(block, 0, rsvpBenchMembers), 5000) {
		_, err := harness.ImportMembers(ctx, b.admin, b.f.TeamID, part)
		require.NoError(t, err)
		for _, m := range part {
			b.phones = append(b.phones, m.Phone)
		}
	}
	var err error
	b.conn, err = pgx.Connect(ctx, b.url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.conn.Close(context.Background()) })
	execSQL(t, b.conn, `ANALYZE`)
	return b
}

// send sends a broadcast to every athlete and waits until every text was
// handed to the carrier (an answer counts only for a poll the number got)
// and delivered, its status events stored: nothing of the send's is left
// running while the answers are filed.
func (b *rsvpBench) send(t testing.TB, body map[string]any) string {
	t.Helper()
	before := countRowsIn(t, b.url, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.status'`, b.f.TeamID)
	r, err := b.api.Do(context.Background(), "POST", "/messages", body)
	require.NoError(t, err)
	require.Equal(t, 201, r.Status, string(r.Body))
	var m struct {
		ID string `json:"id"`
	}
	require.NoError(t, r.Data(&m))
	waitFor(t, 10*time.Minute, func() bool {
		return countRowsIn(t, b.url, `SELECT count(*) FROM messaging_deliveries WHERE message_id = $1 AND status = 'delivered'`, m.ID) == rsvpBenchMembers
	})
	waitFor(t, 5*time.Minute, func() bool {
		return countRowsIn(t, b.url, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.status'`, b.f.TeamID) >= before+rsvpBenchMembers
	})
	execSQL(t, b.conn, `ANALYZE`)
	return m.ID
}

// poll sends a poll to every athlete (see send).
func (b *rsvpBench) poll(t testing.TB) string {
	t.Helper()
	return b.send(t, map[string]any{"text": "Banquet Friday 7pm. Coming?", "audience": "families", "reply_options": []string{"YES", "NO", "MAYBE"}})
}

// file stages one text from each number at once by SQL (the rows the
// carrier callbacks insert, and their notification), as the inbound
// backlog figure does, and returns how long the service took to file them
// all: from the commit to the last message.received stored.
func (b *rsvpBench) file(t testing.TB, body func(i int) string) time.Duration {
	t.Helper()
	ctx := context.Background()
	// The previous burst's staged rows, deleted as they were filed, would
	// otherwise slow the filers' take of this one (until autovacuum): each
	// burst starts from a vacuumed staging table.
	execSQL(t, b.conn, `VACUUM ANALYZE messaging_inbound_pending`)
	before := eventCountIn(t, b.url, b.f.TeamID)
	bodies := make([]string, len(b.phones))
	for i := range bodies {
		bodies[i] = body(i)
	}
	tx, err := b.conn.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `INSERT INTO messaging_inbound_pending (provider_message_id, from_phone, to_phone, body, keyword, lane, received_at)
SELECT 'SMrsvpbench' || $1::text || '_' || i, p, $2, b, false, i % 8, now() FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS v(p, b, i)`,
		fmt.Sprint(time.Now().UnixNano()), b.number, b.phones, bodies)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT pg_notify('teamtext_inbound', '')`)
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, tx.Commit(ctx))
	b.filed(t, before+len(b.phones))
	return time.Since(start)
}

// filed waits until no text is staged (a text's message.received is
// stored in the transaction that takes it off the staging table), then
// checks that the team has want message.received events. Counting the
// team's events at each poll cost Postgres more than the filing measured,
// once they were tens of thousands.
func (b *rsvpBench) filed(t testing.TB, want int) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond) // the figures' resolution
	defer tick.Stop()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var staged bool
		require.NoError(t, b.conn.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM messaging_inbound_pending)`).Scan(&staged))
		if !staged {
			break
		}
		require.False(t, time.Now().After(deadline), "texts still staged after 5 minutes")
		<-tick.C
	}
	require.GreaterOrEqual(t, eventCountIn(t, b.url, b.f.TeamID), want)
}

// text sends one text from each number through the carrier's callback
// (POST /admin/v1/simulator/inbound), 16 at a time on kept-alive
// connections, each with a random provider id as a carrier's (a sequence
// of ids puts every insert on the staging index's last page), as the
// inbound figure is measured (e2e/bench), and returns the time from the
// first callback to the last message.received stored.
func (b *rsvpBench) text(t testing.TB, body func(i int) string) time.Duration {
	t.Helper()
	ctx := context.Background()
	execSQL(t, b.conn, `VACUUM ANALYZE messaging_inbound_pending`)
	before := eventCountIn(t, b.url, b.f.TeamID)
	const workers = 16
	carrier := &harness.Client{Base: b.svc.AdminURL + "/admin/v1", Token: harness.AdminToken, HTTP: load.Client(workers, nil)}
	start := time.Now()
	require.NoError(t, load.Parallel(ctx, len(b.phones), workers, func(ctx context.Context, i int) error {
		req := map[string]any{"from": b.phones[i], "to": b.number, "body": body(i), "provider_message_id": "SMrsvpcb" + rand.Text()}
		return carrier.Expect(ctx, 202, "POST", "/simulator/inbound", req, nil)
	}))
	b.filed(t, before+len(b.phones))
	return time.Since(start)
}

// BenchmarkRSVPInbound: a plain broadcast to 10,000 numbers and
// 10,000 plain texts from them, then a poll to them all and 10,000 answers
// from the same numbers, in the same run (both after a broadcast, as in
// life). Each is measured twice: through the carrier's callbacks, 16 at a
// time, to the last message.received (the inbound figure: target ≥ 2,000
// answers/s and a ratio ≥ 0.8 to the plain texts), and as filing alone, a
// second burst staged at once by SQL (the answers then change every
// number's answer: the upsert's update path).
func BenchmarkRSVPInbound(b *testing.B) {
	var t testing.TB = b
	bench := newRSVPBench(t, fmt.Sprintf("rsvp_bench_inbound_%d", b.N))
	bench.send(t, map[string]any{"text": "Banquet Friday 7pm, dress code on the site", "audience": "families"})
	plain := bench.text(t, func(int) string { return "Running late, save me a seat" })
	plainFiling := bench.file(t, func(int) string { return "Thanks coach" })
	id := bench.poll(t)
	opts := []string{"YES", "no", "Maybe!"}
	answers := bench.text(t, func(i int) string { return opts[i%3] })
	answersFiling := bench.file(t, func(i int) string { return opts[(i+1)%3] })
	require.Equal(t, rsvpBenchMembers, countRowsIn(t, bench.url, `SELECT count(*) FROM messaging_responses WHERE message_id = $1`, id))
	require.Equal(t, 2*rsvpBenchMembers, countRowsIn(t, bench.url, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.response'`, bench.f.TeamID))
	rate := func(d time.Duration) float64 { return float64(rsvpBenchMembers) / d.Seconds() }
	t.Logf("%d texts from %d numbers, through the callbacks: plain %s (%.0f texts/s), poll answers %s (%.0f texts/s), ratio %.2f; "+
		"filing alone: plain %s (%.0f texts/s), answers %s (%.0f texts/s), ratio %.2f",
		rsvpBenchMembers, rsvpBenchMembers, plain.Round(time.Millisecond), rate(plain), answers.Round(time.Millisecond), rate(answers), rate(answers)/rate(plain),
		plainFiling.Round(time.Millisecond), rate(plainFiling), answersFiling.Round(time.Millisecond), rate(answersFiling), rate(answersFiling)/rate(plainFiling))
	b.ReportMetric(rate(plain), "plain-texts/s")
	b.ReportMetric(rate(answers), "answers/s")
	b.ReportMetric(rate(answers)/rate(plain), "ratio")
	b.ReportMetric(rate(answersFiling)/rate(plainFiling), "filing-ratio")
}

// BenchmarkRSVPResponses: GET /messages/{id}/responses on a
// 10,000-recipient poll that all 10,000 answered, pages of 50 across the
// list, by 1, 4 and 8 clients at a time (as the analytics figure is
// measured, with 1 and 4). The heavy pool allows 10 a minute per key, so
// the requests are spread over enough keys, in turn (as clients, each
// with its own key, would send them). Target: p99 < 50 ms (reported as
// p99-ms-Nw, never asserted).
func BenchmarkRSVPResponses(b *testing.B) {
	var t testing.TB = b
	ctx := context.Background()
	bench := newRSVPBench(t, fmt.Sprintf("rsvp_bench_responses_%d", b.N))
	id := bench.poll(t)
	opts := []string{"YES", "NO", "MAYBE"}
	bench.file(t, func(i int) string { return opts[i%3] })
	execSQL(t, bench.conn, `VACUUM ANALYZE messaging_responses`) // as autovacuum leaves a table written once

	const requests, perKey = 400, 9
	levels := []int{1, 4, 8}
	// keys[0] for the check below, then at most perKey requests each.
	keys, err := harness.NewKeys(ctx, bench.admin, bench.f.TeamID, bench.f.CoachID, "rsvp", 1+len(levels)*(requests/perKey+1))
	require.NoError(t, err)
	var first pollAnswers
	r, err := harness.NewClient(bench.svc.PublicURL+"/api/v1", keys[0]).Do(ctx, "GET", "/messages/"+id+"/responses?limit=50", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.JSON(&first))
	require.Equal(t, map[string]int{"YES": 3334, "NO": 3333, "MAYBE": 3333}, first.tallies())
	require.Equal(t, 0, first.NoResponse)

	spare := keys[1:]
	for _, workers := range levels {
		lat := timedGets(t, bench.svc, workers, requests, func(i int) string { return spare[i%(requests/perKey+1)] },
			func(i int) string {
				return fmt.Sprintf("/messages/%s/responses?limit=50&offset=%d", id, (i*50)%rsvpBenchMembers)
			})
		spare = spare[requests/perKey+1:]
		st := load.Summarise(lat)
		p50, p99, mx := st.P50, st.P99, st.Max
		t.Logf("GET /messages/{id}/responses on a %d-recipient poll, all answered: %d requests, %d at a time: p50 %s, p99 %s, max %s",
			rsvpBenchMembers, requests, workers, p50.Round(time.Microsecond), p99.Round(time.Microsecond), mx.Round(time.Microsecond))
		b.ReportMetric(float64(p99.Microseconds())/1000, fmt.Sprintf("p99-ms-%dw", workers))
	}
}
