package outbound_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/fakecarrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/ingest"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/events/eventstest"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
	"github.com/teamtext/teamtext/platform/phone"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

// texts is a pacing carrier that records each text with the time the test
// clock says it was handed over.
type texts struct {
	clk   *clock.Fake
	mu    sync.Mutex
	sent  []sentText
	paced bool
	busy  map[string]bool // from numbers answering 429
	// hold, when set, stops the next Send after it has recorded its text:
	// it says so on held, then waits for hold to close.
	hold, held chan struct{}
}

type sentText struct {
	m  carrier.Message
	at time.Time
}

func (c *texts) Name() string                        { return "test" }
func (c *texts) Paced(context.Context) (bool, error) { return c.paced, nil }
func (c *texts) Send(_ context.Context, m carrier.Message) (carrier.Receipt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy[m.From] {
		return carrier.Receipt{}, &carrier.BusyError{RetryAfter: 7 * time.Second, Err: fmt.Errorf("429")}
	}
	c.sent = append(c.sent, sentText{m, c.clk.Now()})
	if hold := c.hold; hold != nil {
		c.hold = nil
		c.held <- struct{}{}
		c.mu.Unlock()
		<-hold
		c.mu.Lock()
	}
	return carrier.Receipt{ProviderMessageID: "SM" + m.DeliveryID, Status: "queued"}, nil
}

func (c *texts) all() []sentText {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sentText(nil), c.sent...)
}

type bundle struct {
	db      *db.DB
	repo    *postgres.Repo
	svc     *outbound.Service
	ingest  *ingest.Service
	roster  *rostertest.Roster
	carrier *texts
	clock   *clock.Fake
	team    rosterapi.Team
}

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// setup builds the engine on a fresh database with one team whose number
// the roster knows, a carrier that paces, and a clock at t0.
func setup(t testing.TB) *bundle {
	t.Helper()
	d := server.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	require.NoError(t, eventstest.CreateTable(context.Background(), d))
	return build(t, d)
}

func build(t testing.TB, d *db.DB) *bundle {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	clk := clock.NewFake(t0)
	j, err := jobs.New(d, clk, log, jobs.Options{})
	require.NoError(t, err)
	_, err = jobs.NewRunner(j, []jobs.Registration{func(w *river.Workers) { // inserted, not worked: the tests run the passes
		river.AddWorker(w, river.WorkFunc(func(context.Context, *river.Job[outbound.KickArgs]) error { return nil }))
		river.AddWorker(w, river.WorkFunc(func(context.Context, *river.Job[outbound.FanoutArgs]) error { return nil }))
		river.AddWorker(w, river.WorkFunc(func(context.Context, *river.Job[ingest.UnconfirmArgs]) error { return nil }))
	}}, metrics.New(), jobs.Options{})
	require.NoError(t, err)
	team := rosterapi.Team{ID: "team_1", Name: "Tigers", Code: "tigers", Number: "+12025550100", CreatedAt: t0}
	r := rostertest.New(clk)
	require.NoError(t, r.AddTeam(context.Background(), team))
	c := &texts{clk: clk, paced: true, busy: map[string]bool{}}
	repo := postgres.NewRepo(d, nil)
	in := ingest.New(d, repo, eventstest.Table{}, clk, log, nil).Staged(repo)
	svc := outbound.New(outbound.Deps{DB: d, Store: postgres.NewOutboundStore(d, repo), Jobs: j, Clock: clk, Carrier: c,
		Teams: r, Lookup: r, OptOuts: r, Ingest: in, Log: log, DefaultPace: 1})
	return &bundle{db: d, repo: repo, svc: svc, ingest: in, roster: r, carrier: c, clock: clk, team: team}
}

// send stores a queued message to phones and plans it, as a send's
// transaction does; it returns the message id and the planned completion.
func (b *bundle) send(t testing.TB, phones []string) (string, time.Time) {
	t.Helper()
	return b.sendAs(t, b.team, phones, false)
}

// sendAs is send for team, urgent or not.
func (b *bundle) sendAs(t testing.TB, team rosterapi.Team, phones []string, urgent bool) (string, time.Time) {
	t.Helper()
	ctx := context.Background()
	m := &domain.Message{ID: id.New("msg"), TeamID: team.ID, Source: "api", Audience: "all", Text: "Hi", Rendered: team.Name + ": Hi",
		Encoding: "GSM-7", Segments: 1, Recipients: len(phones), Urgent: urgent, Status: domain.StatusQueued, CreatedAt: b.clock.Now()}
	var done time.Time
	err := b.db.Tx(ctx, func(ctx context.Context) error {
		if err := b.repo.InsertMessage(ctx, m); err != nil {
			return err
		}
		planned, err := b.svc.Plan(ctx, outbound.SendPlan{Team: team, MessageID: m.ID, Phones: phones, Segments: 1, Urgent: urgent})
		if err != nil {
			return err
		}
		done = planned.Finish
		members := make([][]string, len(phones))
		return b.repo.InsertQueued(ctx, team.ID, m.ID, b.clock.Now(), done, id.NewSeries("dlv"), phones, members, nil, nil)
	})
	require.NoError(t, err)
	return m.ID, done
}

func phones(n, from int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("+1202555%04d", from+i)
	}
	return out
}

func TestNumbersPrimaryAndAdded(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ns, err := b.svc.Numbers(ctx, b.team.ID)
	require.NoError(t, err)
	require.Len(t, ns, 1)
	require.True(t, ns[0].Primary)
	require.Equal(t, string(b.team.Number), ns[0].Number)
	require.Equal(t, domain.Pace(1), ns[0].Schedule.Pace, "the default throughput")
	got, err := b.svc.Number(ctx, b.team.ID, ns[0].ID)
	require.NoError(t, err)
	require.Equal(t, ns[0].ID, got.ID, "the primary's row was written")

	v, tp := "+12025550101", 3.0
	added, err := b.svc.AddNumber(ctx, b.team.ID, outbound.NumberInput{Number: &v, Throughput: &tp})
	require.NoError(t, err)
	require.Equal(t, domain.Pace(3), added.Schedule.Pace)
	_, err = b.svc.AddNumber(ctx, b.team.ID, outbound.NumberInput{Number: &v})
	requireFault(t, err, fault.Conflict, "conflict")
	teamNumber := string(b.team.Number)
	_, err = b.svc.AddNumber(ctx, b.team.ID, outbound.NumberInput{Number: &teamNumber})
	requireFault(t, err, fault.Conflict, "conflict")
	requireFault(t, b.svc.RemoveNumber(ctx, b.team.ID, ns[0].ID), fault.Conflict, "conflict")
	requireFault(t, b.svc.RemoveNumber(ctx, "team_other", added.ID), fault.NotFound, "not_found")

	team, err := b.svc.TeamForNumber(ctx, v)
	require.NoError(t, err)
	require.Equal(t, b.team.ID, team.ID, "texts to an added number reach its team")

	// A number with texts planned cannot be removed.
	_, _ = b.send(t, phones(4, 0))
	ns, err = b.svc.Numbers(ctx, b.team.ID)
	require.NoError(t, err)
	for _, n := range ns {
		if n.Backlog > 0 && !n.Primary {
			requireFault(t, b.svc.RemoveNumber(ctx, b.team.ID, n.ID), fault.Conflict, "conflict")
		}
	}
}

func requireFault(t *testing.T, err error, kind fault.Kind, code string) {
	t.Helper()
	f, ok := fault.As(err)
	require.True(t, ok, "want a fault, got %v", err)
	require.Equal(t, kind, f.Kind)
	require.Equal(t, code, f.Code)
}

// pumpUntil runs pump passes on the test clock, moving it to the next
// wake-up plus lateness each time, until nothing is queued or until.
func (b *bundle) pumpUntil(t *testing.T, until time.Time, late func(i int) time.Duration) {
	t.Helper()
	ctx := context.Background()
	for i := 0; b.clock.Now().Before(until); i++ {
		next, err := b.svc.Pump(ctx, 0)
		require.NoError(t, err)
		if countQueued(t, b.db) == 0 {
			return
		}
		b.clock.Set(later(next, b.clock.Now()).Add(late(i)))
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func countQueued(t *testing.T, d *db.DB) int {
	var n int
	require.NoError(t, d.SQLDB.QueryRow(`SELECT count(*) FROM messaging_deliveries WHERE status = 'queued'`).Scan(&n))
	return n
}

// A paced number hands its texts over at its throughput, exactly, however
// late the pump runs; the plan says when the last one goes.
func TestPumpHandsOverAtThePace(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ns, err := b.svc.Numbers(ctx, b.team.ID)
	require.NoError(t, err)
	tp := 5.0
	_, err = b.svc.UpdateNumber(ctx, b.team.ID, ns[0].ID, outbound.NumberInput{Throughput: &tp})
	require.NoError(t, err)

	_, done := b.send(t, phones(52, 0))
	require.Equal(t, t0.Add(10*time.Second), done, "52 texts at 5/s: the last slot 10 s in")
	b.pumpUntil(t, t0.Add(time.Minute), func(i int) time.Duration { return time.Duration(i%7) * 13 * time.Millisecond })
	sent := b.carrier.all()
	require.Len(t, sent, 52)
	ts := make([]time.Time, len(sent))
	for i, s := range sent {
		ts[i] = s.at
	}
	require.LessOrEqual(t, fakecarrier.BusiestSecond(ts), 5)
	require.Equal(t, 52, countRows(t, b.db, `SELECT count(*) FROM messaging_deliveries WHERE status = 'sent'`))
	require.Equal(t, 0, countRows(t, b.db, `SELECT count(*) FROM messaging_slots`))
	require.Equal(t, 0, countRows(t, b.db, `SELECT count(*) FROM messaging_numbers WHERE backlog_segments <> 0 OR next_at IS NOT NULL`))
}

func countRows(t testing.TB, d *db.DB, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, d.SQLDB.QueryRow(q, args...).Scan(&n))
	return n
}

// Two engines on two connection pools (two nodes) plan onto one number at
// once: the number's row lock serialises them, so their slots together
// never put more than the throughput in a second.
func TestTwoPlannersNeverOverbook(t *testing.T) {
	t.Parallel()
	a := setup(t)
	d2, err := db.Open(context.Background(), a.db.Pool.Config().ConnString(), 10)
	require.NoError(t, err)
	t.Cleanup(d2.Close)
	b := build(t, d2)
	b.clock = a.clock
	ns, err := a.svc.Numbers(context.Background(), a.team.ID) // the primary's row, for both
	require.NoError(t, err)
	tp := 4.0
	_, err = a.svc.UpdateNumber(context.Background(), a.team.ID, ns[0].ID, outbound.NumberInput{Throughput: &tp})
	require.NoError(t, err)

	var wg sync.WaitGroup
	for i, node := range []*bundle{a, b, a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			node.send(t, phones(9, i*100))
		}()
	}
	wg.Wait()
	var dues []time.Time
	var segs []int
	rows, err := a.db.SQLDB.Query(`SELECT due_at, sum(segments) FROM messaging_slots GROUP BY due_at ORDER BY due_at`)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var at time.Time
		var n int
		require.NoError(t, rows.Scan(&at, &n))
		dues, segs = append(dues, at), append(segs, n)
	}
	require.NoError(t, rows.Err())
	total := 0
	for i := range dues {
		require.LessOrEqual(t, segs[i], 4, "a slot holds a second's worth")
		if i > 0 {
			require.GreaterOrEqual(t, dues[i].Sub(dues[i-1]), time.Second, "slots a second apart")
		}
		total += segs[i]
	}
	require.Equal(t, 54, total)
}

// A recipient who opts out after the send was accepted is never handed
// over: the delivery fails (opted_out), message.status is published, and
// the others go on.
func TestOptedOutBeforeTheirTurn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ps := phones(3, 0)
	msg, _ := b.send(t, ps)
	require.NoError(t, b.roster.OptOutBySMS(context.Background(), b.team.ID, phone.Number(ps[1])))
	b.pumpUntil(t, t0.Add(time.Minute), func(int) time.Duration { return 0 })
	sent := b.carrier.all()
	require.Len(t, sent, 2)
	for _, s := range sent {
		require.NotEqual(t, ps[1], s.m.To)
	}
	require.Equal(t, 1, countRows(t, b.db, `SELECT count(*) FROM messaging_deliveries WHERE phone = $1 AND status = 'failed'
  AND error_code = 'opted_out' AND carrier_status = 'not_sent' AND sent_at IS NULL`, ps[1]))
	require.Equal(t, 1, countRows(t, b.db, `SELECT count(*) FROM test_events WHERE type = 'message.status' AND data->>'to' = $1`, ps[1]))
	require.Equal(t, 1, countRows(t, b.db, `SELECT skipped_count FROM messaging_messages WHERE id = $1`, msg))
	require.Equal(t, 1, countRows(t, b.db, `SELECT count(*) FROM messaging_messages WHERE id = $1 AND status = 'sent'`, msg))
}

// A carrier that answers 429 holds the number back for its Retry-After,
// nothing is lost, and the texts go once it takes them again.
func TestBusyCarrierHoldsTheNumberBack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.carrier.busy[string(b.team.Number)] = true
	b.send(t, phones(2, 0))
	start := time.Now()
	_, err := b.svc.Pass(ctx)
	elapsed := time.Since(start) // a pass dates its calls by the test clock plus the real time it took
	require.NoError(t, err)
	require.Empty(t, b.carrier.all())
	ns, err := b.svc.Numbers(ctx, b.team.ID)
	require.NoError(t, err)
	held := ns[0].NextAt.Sub(t0.Add(7 * time.Second))
	require.True(t, held >= 0 && held <= elapsed, "held back for Retry-After from the call's end: %s past t0+7s, the pass took %s", held, elapsed)
	require.Equal(t, 2, countQueued(t, b.db))
	b.carrier.busy[string(b.team.Number)] = false
	b.pumpUntil(t, t0.Add(time.Minute), func(int) time.Duration { return 0 })
	require.Len(t, b.carrier.all(), 2)
	require.GreaterOrEqual(t, b.carrier.all()[0].at, t0.Add(7*time.Second))
}

// After a stall (here the clock jumps three hours), a number's overdue
// slots all go at once rather than one a second.
func TestStalledNumberCatchesUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, done := b.send(t, phones(300, 0))
	require.Equal(t, t0.Add(299*time.Second), done)
	b.clock.Set(t0.Add(3 * time.Hour))
	_, err := b.svc.Pass(context.Background())
	require.NoError(t, err)
	require.Len(t, b.carrier.all(), 300, "one pass hands the overdue slots over")
}

// Without a pacing carrier a send is not planned: fan-out jobs hand it
// over at once.
func TestUnpacedCarrierFansOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.carrier.paced = false
	_, done := b.send(t, phones(250, 0))
	require.Equal(t, t0, done)
	require.Equal(t, 0, countRows(t, b.db, `SELECT count(*) FROM messaging_slots`))
	require.Equal(t, 3, countRows(t, b.db, `SELECT count(*) FROM river_job WHERE kind = 'messaging.fanout'`))
	var args []outbound.FanoutArgs
	rows, err := b.db.SQLDB.Query(`SELECT args FROM river_job WHERE kind = 'messaging.fanout' ORDER BY id`)
	require.NoError(t, err)
	for rows.Next() {
		var raw []byte
		require.NoError(t, rows.Scan(&raw))
		var a outbound.FanoutArgs
		require.NoError(t, json.Unmarshal(raw, &a))
		args = append(args, a)
	}
	require.NoError(t, rows.Close())
	for _, a := range args {
		require.NoError(t, b.svc.Fanout(context.Background(), a))
	}
	require.Len(t, b.carrier.all(), 250)
}
