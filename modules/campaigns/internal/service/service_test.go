package service_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/campaigns/internal/domain"
	"github.com/teamtext/teamtext/modules/campaigns/internal/postgres"
	"github.com/teamtext/teamtext/modules/campaigns/internal/service"
	"github.com/teamtext/teamtext/modules/campaigns/internal/worker"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
)

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

const (
	teamA, teamB = "team_a", "team_b"
	coachA       = "mem_head_a"
	assistantA   = "mem_coach_a"
	groupA       = "grp_a"
)

// directory is the roster (the shared fake): team A with a head coach, a
// coach and a group; team B with a team director.
func directory(t *testing.T) *rostertest.Roster {
	t.Helper()
	ctx := context.Background()
	r := rostertest.New(clock.NewFake(time.Date(2027, 1, 4, 12, 0, 0, 0, time.UTC)))
	for _, id := range []string{teamA, teamB} {
		require.NoError(t, r.AddTeam(ctx, rosterapi.Team{ID: id, Name: id, Code: id}))
	}
	require.NoError(t, r.AddGroup(ctx, teamA, groupA, "Varsity"))
	for _, m := range []rosterapi.Member{
		{ID: coachA, TeamID: teamA, Role: rosterapi.RoleHeadCoach},
		{ID: assistantA, TeamID: teamA, Role: rosterapi.RoleCoach},
		{ID: "mem_head_b", TeamID: teamB, Role: rosterapi.RoleTeamDirector},
	} {
		m.Status, m.CanSendBroadcasts = "active", true
		require.NoError(t, r.AddMember(ctx, m))
	}
	return r
}

// sender stands in for messaging: it writes a row in the caller's
// transaction (so a rolled-back step leaves none), then refuses the texts
// listed in refuse, and can hold a send until released.
type sender struct {
	mu     sync.Mutex
	refuse map[string]error
	hold   chan struct{} // when set, Send signals entered and waits for release
	enter  chan struct{}
}

func (s *sender) Send(ctx context.Context, r messagingapi.SendRequest) (messagingapi.SendResult, error) {
	tx, err := db.MustTx(ctx)
	if err != nil {
		return messagingapi.SendResult{}, err
	}
	msg := id.New("msg")
	if _, err := tx.ExecContext(ctx, `INSERT INTO test_sends (message_id, team_id, member_id, text, urgent, source) VALUES (?, ?, ?, ?, ?, ?)`,
		msg, r.TeamID, r.MemberID, r.Text, r.Urgent, r.Source); err != nil {
		return messagingapi.SendResult{}, err
	}
	s.mu.Lock()
	refusal, hold, enter := s.refuse[r.Text], s.hold, s.enter
	s.mu.Unlock()
	if enter != nil {
		enter <- struct{}{}
		<-hold
	}
	if refusal != nil {
		return messagingapi.SendResult{}, refusal
	}
	return messagingapi.SendResult{MessageID: msg, Status: "queued"}, nil
}

type bundle struct {
	db     *db.DB
	svc    *service.Service
	clock  *clock.Fake
	sender *sender
}

func setup(t *testing.T) *bundle {
	t.Helper()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	_, err := d.Bun.ExecContext(context.Background(), `CREATE TABLE test_sends (message_id text PRIMARY KEY, team_id text, member_id text, text text, urgent boolean, source text)`)
	require.NoError(t, err)
	clk := clock.NewFake(time.Date(2027, 1, 4, 12, 0, 0, 0, time.UTC))
	log := slog.New(slog.DiscardHandler)
	j, err := jobs.New(d, clk, log, jobs.Options{})
	require.NoError(t, err)
	b := &bundle{db: d, clock: clk, sender: &sender{refuse: map[string]error{}}}
	dir := directory(t)
	b.svc = service.New(service.Deps{DB: d, Repo: postgres.NewRepo(d), Jobs: j, Clock: clk, Sender: b.sender,
		Teams: dir, Members: dir, Audience: dir, Log: log})
	_, err = jobs.NewRunner(j, []jobs.Registration{worker.Registration(b.svc)}, metrics.New(), jobs.Options{})
	require.NoError(t, err)
	return b
}

func delay(s int64) *int64 { return &s }

func (b *bundle) create(t *testing.T, steps ...domain.StepInput) *service.View {
	t.Helper()
	v, err := b.svc.Create(context.Background(), service.NewCampaign{TeamID: teamA, MemberID: coachA, Name: "Tryouts",
		Audience: "families", Steps: steps})
	require.NoError(t, err)
	return v
}

// job is what the tests read of River's step jobs.
type job struct {
	ID          int64            `bun:"id"`
	Args        service.StepArgs `bun:"args,type:jsonb"`
	State       string           `bun:"state"`
	ScheduledAt time.Time        `bun:"scheduled_at"`
}

func (b *bundle) jobs(t *testing.T, campaignID string) []job {
	t.Helper()
	var js []job
	require.NoError(t, b.db.Bun.NewRaw(`SELECT id, args, state, scheduled_at FROM river_job WHERE kind = 'campaigns.step' AND args->>'campaign_id' = ? ORDER BY id`,
		campaignID).Scan(context.Background(), &js))
	return js
}

// run works every step job of the campaign due by now, as River would
// (jobs of old generations included: they must do nothing).
func (b *bundle) run(t *testing.T, campaignID string) {
	t.Helper()
	for _, j := range b.jobs(t, campaignID) {
		if !j.ScheduledAt.After(b.clock.Now()) {
			require.NoError(t, b.svc.RunStep(context.Background(), j.Args))
		}
	}
}

func (b *bundle) get(t *testing.T, campaignID string) *service.View {
	t.Helper()
	v, err := b.svc.Campaign(context.Background(), teamA, campaignID)
	require.NoError(t, err)
	return v
}

func (b *bundle) sends(t *testing.T, text string) int {
	t.Helper()
	n, err := b.db.Bun.NewSelect().Table("test_sends").Where("text = ?", text).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

func statuses(v *service.View) []string {
	out := make([]string, len(v.Steps))
	for i, s := range v.Steps {
		out[i] = s.Status
	}
	return out
}

func code(err error) string {
	if f, ok := fault.As(err); ok {
		return f.Code
	}
	return ""
}

// TestCreateSchedulesOneJobPerStep: the campaign, its steps and one job per
// step at its due time commit together; a step already due is available at once.
func TestCreateSchedulesOneJobPerStep(t *testing.T) {
	t.Parallel()
	b := setup(t)
	start := b.clock.Now()
	v := b.create(t,
		domain.StepInput{DelaySeconds: delay(0), Text: "welcome"},
		domain.StepInput{DelaySeconds: delay(60), Text: "one minute"},
		domain.StepInput{SendAt: start.Add(time.Hour).Format(time.RFC3339), TemplateID: "tpl_1", Urgent: true},
	)
	require.Equal(t, domain.StatusScheduled, v.Campaign.Status)
	require.True(t, v.HasUrgent())
	require.Equal(t, []string{"pending", "pending", "pending"}, statuses(v))
	js := b.jobs(t, v.Campaign.ID)
	require.Len(t, js, 3)
	require.Equal(t, "available", js[0].State)
	require.Equal(t, "scheduled", js[1].State)
	require.True(t, js[1].ScheduledAt.Equal(start.Add(time.Minute)))
	require.True(t, js[2].ScheduledAt.Equal(start.Add(time.Hour)))
	for i, j := range js {
		require.Equal(t, service.StepArgs{TeamID: teamA, CampaignID: v.Campaign.ID, StepID: v.Steps[i].ID, Generation: 1}, j.Args)
	}
}

func TestCreateChecks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ok := []domain.StepInput{{DelaySeconds: delay(10), Text: "x"}}
	cases := map[string]struct {
		in   service.NewCampaign
		code string
	}{
		"unknown team":       {service.NewCampaign{TeamID: "nope", MemberID: coachA, Name: "n", Audience: "all", Steps: ok}, fault.CodeNotFound},
		"member of another":  {service.NewCampaign{TeamID: teamB, MemberID: coachA, Name: "n", Audience: "all", Steps: ok}, fault.CodeNotFound},
		"not a key owner":    {service.NewCampaign{TeamID: teamA, MemberID: assistantA, Name: "n", Audience: "all", Steps: ok}, fault.CodeForbidden},
		"no name":            {service.NewCampaign{TeamID: teamA, MemberID: coachA, Audience: "all", Steps: ok}, fault.CodeInvalidRequest},
		"no steps":           {service.NewCampaign{TeamID: teamA, MemberID: coachA, Name: "n", Audience: "all"}, fault.CodeInvalidRequest},
		"another team group": {service.NewCampaign{TeamID: teamB, MemberID: "mem_head_b", Name: "n", Audience: "group", GroupID: groupA, Steps: ok}, "invalid_group"},
	}
	for name, c := range cases {
		_, err := b.svc.Create(ctx, c.in)
		require.Equal(t, c.code, code(err), name)
	}
	n, err := b.db.Bun.NewSelect().Table("campaigns").Count(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = b.db.Bun.NewSelect().Table("river_job").Count(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "no job without its campaign")
}

// TestLifecycle: each step sends at its time through the Sender, on behalf
// of the creator; a job run twice sends once; after the last step the
// campaign is completed.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	b := setup(t)
	v := b.create(t, domain.StepInput{DelaySeconds: delay(0), Text: "first"}, domain.StepInput{DelaySeconds: delay(120), Text: "second"})
	b.run(t, v.Campaign.ID)
	b.run(t, v.Campaign.ID) // River may run a job again: no second text
	require.Equal(t, 1, b.sends(t, "first"))
	require.Equal(t, 0, b.sends(t, "second"))
	got := b.get(t, v.Campaign.ID)
	require.Equal(t, []string{"sent", "pending"}, statuses(got))
	require.NotEmpty(t, got.Steps[0].MessageID)
	require.Equal(t, domain.StatusScheduled, got.Campaign.Status)

	b.clock.Advance(2 * time.Minute)
	b.run(t, v.Campaign.ID)
	got = b.get(t, v.Campaign.ID)
	require.Equal(t, []string{"sent", "sent"}, statuses(got))
	require.Equal(t, domain.StatusCompleted, got.Campaign.Status)
	require.NotNil(t, got.Campaign.CompletedAt)
	var row struct {
		MemberID string `bun:"member_id"`
		Source   string `bun:"source"`
	}
	require.NoError(t, b.db.Bun.NewRaw(`SELECT member_id, source FROM test_sends WHERE text = 'second'`).Scan(context.Background(), &row))
	require.Equal(t, coachA, row.MemberID)
	require.Equal(t, "campaign", row.Source)

	for _, act := range []func() (*service.View, error){
		func() (*service.View, error) { return b.svc.Pause(context.Background(), teamA, v.Campaign.ID) },
		func() (*service.View, error) { return b.svc.Cancel(context.Background(), teamA, v.Campaign.ID) },
		func() (*service.View, error) { return b.svc.Resume(context.Background(), teamA, v.Campaign.ID, true) },
	} {
		_, err := act()
		require.Equal(t, domain.CodeCampaignState, code(err))
		require.Contains(t, err.Error(), "completed")
	}
}

// TestPauseResumeSkipsPassedSteps: while paused nothing is sent; resume
// skips the steps whose time passed and reschedules the rest under a new
// generation, so the jobs of the first schedule do nothing.
func TestPauseResumeSkipsPassedSteps(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	v := b.create(t, domain.StepInput{DelaySeconds: delay(60), Text: "a"}, domain.StepInput{DelaySeconds: delay(120), Text: "b"},
		domain.StepInput{DelaySeconds: delay(600), Text: "c"})
	p, err := b.svc.Pause(ctx, teamA, v.Campaign.ID)
	require.NoError(t, err)
	require.Equal(t, domain.StatusPaused, p.Campaign.Status)
	_, err = b.svc.Pause(ctx, teamA, v.Campaign.ID)
	require.Equal(t, domain.CodeCampaignState, code(err))
	require.Contains(t, err.Error(), "paused")

	b.clock.Advance(5 * time.Minute)
	b.run(t, v.Campaign.ID)
	require.Equal(t, 0, b.sends(t, "a"), "a paused campaign sends nothing")

	r, err := b.svc.Resume(ctx, teamA, v.Campaign.ID, false)
	require.NoError(t, err)
	require.Equal(t, domain.StatusScheduled, r.Campaign.Status)
	require.Nil(t, r.Campaign.PausedAt)
	require.Equal(t, []string{"skipped", "skipped", "pending"}, statuses(r))
	js := b.jobs(t, v.Campaign.ID)
	require.Len(t, js, 4)
	require.Equal(t, 3, js[3].Args.Generation, "created 1, paused 2, resumed 3")
	require.Equal(t, v.Steps[2].ID, js[3].Args.StepID)
	require.True(t, js[3].ScheduledAt.Equal(v.Steps[2].DueAt), "the original due time")

	b.clock.Advance(10 * time.Minute)
	b.run(t, v.Campaign.ID) // the old job of step c and the new one: one text
	require.Equal(t, 1, b.sends(t, "c"))
	require.Equal(t, 0, b.sends(t, "a")+b.sends(t, "b"))
	got := b.get(t, v.Campaign.ID)
	require.Equal(t, domain.StatusCompleted, got.Campaign.Status)

	// A resume with nothing left to send completes the campaign at once.
	w := b.create(t, domain.StepInput{DelaySeconds: delay(60), Text: "d"})
	_, err = b.svc.Pause(ctx, teamA, w.Campaign.ID)
	require.NoError(t, err)
	b.clock.Advance(time.Hour)
	r, err = b.svc.Resume(ctx, teamA, w.Campaign.ID, false)
	require.NoError(t, err)
	require.Equal(t, domain.StatusCompleted, r.Campaign.Status)
	require.Equal(t, []string{"skipped"}, statuses(r))
}

// TestResumeUrgent: an urgent-step campaign is resumed from the dashboard only.
func TestResumeUrgent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	v := b.create(t, domain.StepInput{DelaySeconds: delay(60), Text: "storm", Urgent: true})
	_, err := b.svc.Resume(ctx, teamA, v.Campaign.ID, false)
	require.Equal(t, domain.CodeCampaignState, code(err), "not paused: 409 first")
	_, err = b.svc.Pause(ctx, teamA, v.Campaign.ID)
	require.NoError(t, err)
	_, err = b.svc.Resume(ctx, teamA, v.Campaign.ID, false)
	require.Equal(t, fault.CodeForbidden, code(err))
	require.Equal(t, domain.StatusPaused, b.get(t, v.Campaign.ID).Campaign.Status)
	r, err := b.svc.Resume(ctx, teamA, v.Campaign.ID, true)
	require.NoError(t, err)
	require.Equal(t, domain.StatusScheduled, r.Campaign.Status)
	b.clock.Advance(time.Minute)
	b.run(t, v.Campaign.ID)
	require.Equal(t, 1, b.sends(t, "storm"))
	var urgent bool
	require.NoError(t, b.db.Bun.NewRaw(`SELECT urgent FROM test_sends WHERE text = 'storm'`).Scan(ctx, &urgent))
	require.True(t, urgent)
}

// TestRefusedStepFailsAndCampaignGoesOn: a refusal marks the step failed
// with its code, undoes whatever the send wrote, and later steps still go.
// A transient error rolls the whole run back for River to retry.
func TestRefusedStepFailsAndCampaignGoesOn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.sender.refuse["broke"] = fault.New(fault.PaymentRequired, "payment_required", "sending is paused")
	b.sender.refuse["flaky"] = errors.New("connection reset")
	v := b.create(t, domain.StepInput{DelaySeconds: delay(0), Text: "broke"}, domain.StepInput{DelaySeconds: delay(0), Text: "flaky"},
		domain.StepInput{DelaySeconds: delay(0), Text: "fine"})
	js := b.jobs(t, v.Campaign.ID)
	ctx := context.Background()
	require.NoError(t, b.svc.RunStep(ctx, js[0].Args))
	require.Error(t, b.svc.RunStep(ctx, js[1].Args))
	require.NoError(t, b.svc.RunStep(ctx, js[2].Args))
	got := b.get(t, v.Campaign.ID)
	require.Equal(t, []string{"failed", "pending", "sent"}, statuses(got))
	require.Equal(t, "payment_required", got.Steps[0].ErrorCode)
	require.Empty(t, got.Steps[0].MessageID)
	require.Equal(t, 0, b.sends(t, "broke"), "the refused send's writes are rolled back")
	require.Equal(t, 0, b.sends(t, "flaky"))
	require.Equal(t, domain.StatusScheduled, got.Campaign.Status)

	delete(b.sender.refuse, "flaky")
	require.NoError(t, b.svc.RunStep(ctx, js[1].Args)) // River's retry
	got = b.get(t, v.Campaign.ID)
	require.Equal(t, []string{"failed", "sent", "sent"}, statuses(got))
	require.Equal(t, domain.StatusCompleted, got.Campaign.Status, "completed: every step sent or failed")
}

// TestCancelWaitsForARunningStep: a step run holds the campaign lock while
// it sends; a cancel arriving then waits, and commits after it, so the
// step is sent before the cancel (and nothing after it).
func TestCancelWaitsForARunningStep(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	v := b.create(t, domain.StepInput{DelaySeconds: delay(0), Text: "now"}, domain.StepInput{DelaySeconds: delay(60), Text: "later"})
	js := b.jobs(t, v.Campaign.ID)
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	t.Cleanup(release) // never leave a send hanging, even when the test fails
	b.sender.mu.Lock()
	b.sender.hold, b.sender.enter = hold, make(chan struct{})
	b.sender.mu.Unlock()
	ran := make(chan error, 1)
	go func() { ran <- b.svc.RunStep(ctx, js[0].Args) }()
	<-b.sender.enter // the step holds the lock and is sending
	type answer struct {
		v   *service.View
		err error
	}
	cancelled := make(chan answer, 1)
	go func() {
		cv, err := b.svc.Cancel(ctx, teamA, v.Campaign.ID)
		cancelled <- answer{cv, err}
	}()
	// The cancel must be blocked on the campaign row lock (seen in Postgres,
	// not guessed by time) and must not commit before the step does.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); ; <-tick.C {
		select {
		case a := <-cancelled:
			t.Fatalf("cancel committed while a step was sending: %v", a.err)
		default:
		}
		var n int
		require.NoError(t, b.db.Bun.NewRaw(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(ctx, &n))
		if n == 1 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the cancel never waited for the step")
	}
	release()
	require.NoError(t, <-ran)
	a := <-cancelled
	require.NoError(t, a.err)
	require.Equal(t, []string{"sent", "cancelled"}, statuses(a.v), "the cancel's answer shows the step sent before it")
	got := b.get(t, v.Campaign.ID)
	require.Equal(t, domain.StatusCancelled, got.Campaign.Status)
	require.Equal(t, []string{"sent", "cancelled"}, statuses(got))
	require.False(t, got.Steps[0].SentAt.After(*got.Campaign.CancelledAt))

	b.sender.mu.Lock()
	b.sender.hold, b.sender.enter = nil, nil
	b.sender.mu.Unlock()
	b.clock.Advance(time.Hour)
	b.run(t, v.Campaign.ID)
	require.Equal(t, 0, b.sends(t, "later"), "a cancelled campaign never sends its unsent steps")
}

// TestCancelRacesStepRuns: 50 trials of a due step and a cancel at once.
// Whenever the cancel succeeds, its answer is final: a step it shows as
// sent was sent before it, and a step it shows as cancelled is never sent.
func TestCancelRacesStepRuns(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	outcomes := map[string]int{}
	for i := 0; i < 50; i++ {
		v := b.create(t, domain.StepInput{DelaySeconds: delay(0), Text: "race"}, domain.StepInput{DelaySeconds: delay(3600), Text: "after"})
		js := b.jobs(t, v.Campaign.ID)
		var wg sync.WaitGroup
		var runErr, cancelErr error
		var ack *service.View
		wg.Add(2)
		go func() { defer wg.Done(); runErr = b.svc.RunStep(ctx, js[0].Args) }()
		go func() { defer wg.Done(); ack, cancelErr = b.svc.Cancel(ctx, teamA, v.Campaign.ID) }()
		wg.Wait()
		require.NoError(t, runErr)
		require.NoError(t, cancelErr)
		// The job again, and every later job: nothing more goes out.
		require.NoError(t, b.svc.RunStep(ctx, js[0].Args))
		require.NoError(t, b.svc.RunStep(ctx, js[1].Args))
		got := b.get(t, v.Campaign.ID)
		require.Equal(t, domain.StatusCancelled, got.Campaign.Status)
		require.Equal(t, statuses(ack), statuses(got), "what the cancel acknowledged is final: nothing is sent after it")
		require.Equal(t, "cancelled", got.Steps[1].Status)
		n, err := b.db.Bun.NewSelect().Table("test_sends").Where("message_id = ?", got.Steps[0].MessageID).Count(ctx)
		require.NoError(t, err)
		switch got.Steps[0].Status {
		case "sent":
			require.EqualValues(t, 1, n)
			require.False(t, got.Steps[0].SentAt.After(*got.Campaign.CancelledAt))
		case "cancelled":
			require.Empty(t, got.Steps[0].MessageID)
		default:
			t.Fatalf("step status %s", got.Steps[0].Status)
		}
		outcomes[got.Steps[0].Status]++
	}
	total, err := b.db.Bun.NewSelect().Table("test_sends").Count(ctx)
	require.NoError(t, err)
	require.Equal(t, outcomes["sent"], int(total), "one text per step marked sent, none other")
	t.Logf("outcomes: %v", outcomes)
}

// TestOtherTeamsIDs: another team's campaign is not found, for every use case.
func TestOtherTeamsIDs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	v := b.create(t, domain.StepInput{DelaySeconds: delay(60), Text: "x"})
	_, err := b.svc.Campaign(ctx, teamB, v.Campaign.ID)
	require.Equal(t, fault.CodeNotFound, code(err))
	_, err = b.svc.Pause(ctx, teamB, v.Campaign.ID)
	require.Equal(t, fault.CodeNotFound, code(err))
	_, err = b.svc.Resume(ctx, teamB, v.Campaign.ID, true)
	require.Equal(t, fault.CodeNotFound, code(err))
	_, err = b.svc.Cancel(ctx, teamB, v.Campaign.ID)
	require.Equal(t, fault.CodeNotFound, code(err))
	vs, err := b.svc.Campaigns(ctx, teamB, 50, 0)
	require.NoError(t, err)
	require.Empty(t, vs)
	// A forged job naming the wrong team does nothing either.
	js := b.jobs(t, v.Campaign.ID)
	forged := js[0].Args
	forged.TeamID = teamB
	b.clock.Advance(time.Hour)
	require.NoError(t, b.svc.RunStep(ctx, forged))
	require.Equal(t, 0, b.sends(t, "x"))
	vs, err = b.svc.Campaigns(ctx, teamA, 50, 0)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	require.Len(t, vs[0].Steps, 1)
}

// TestCreateWithoutMember: member_id is optional (ADMIN-API.md lists name,
// audience, group_id and steps): the campaign is the dashboard's own, and
// its steps send on no one's behalf.
func TestCreateWithoutMember(t *testing.T) {
	t.Parallel()
	b := setup(t)
	v, err := b.svc.Create(context.Background(), service.NewCampaign{TeamID: teamA, Name: "Dashboard's own",
		Audience: "families", Steps: []domain.StepInput{{DelaySeconds: delay(0), Text: "from the dashboard"}}})
	require.NoError(t, err)
	require.Empty(t, v.Campaign.CreatedBy)
	b.run(t, v.Campaign.ID)
	require.Equal(t, []string{"sent"}, statuses(b.get(t, v.Campaign.ID)))
	var member string
	require.NoError(t, b.db.Bun.NewRaw(`SELECT member_id FROM test_sends WHERE text = ?`, "from the dashboard").Scan(context.Background(), &member))
	require.Empty(t, member, "sent on no one's behalf")
}

// TestUpdateCampaignWritesOnlyAChange: the repository's update function
// answers domain.ErrNotFound for another team's campaign, writes nothing
// when the change fails, writes what a change made, and spends no
// statement on a change that left the campaign as it was (a stale step
// job's run).
func TestUpdateCampaignWritesOnlyAChange(t *testing.T) {
	t.Parallel()
	b := setup(t)
	v := b.create(t, domain.StepInput{DelaySeconds: delay(3600), Text: "later"})
	repo := postgres.NewRepo(b.db)
	ctx := context.Background()

	_, err := repo.UpdateCampaign(ctx, teamB, v.Campaign.ID, func(*domain.Campaign) error { return nil })
	require.ErrorIs(t, err, domain.ErrNotFound)

	refused := errors.New("refused")
	_, err = repo.UpdateCampaign(ctx, teamA, v.Campaign.ID, func(c *domain.Campaign) error {
		c.Name = "Changed"
		return refused
	})
	require.ErrorIs(t, err, refused, "the change's error, as it is")
	require.Equal(t, "Tryouts", b.get(t, v.Campaign.ID).Campaign.Name, "a failed change writes nothing")

	uctx, unchanged := db.WithStatementCounter(ctx)
	got, err := repo.UpdateCampaign(uctx, teamA, v.Campaign.ID, func(*domain.Campaign) error { return nil })
	require.NoError(t, err)
	require.Equal(t, v.Campaign.Name, got.Name)
	cctx, changed := db.WithStatementCounter(ctx)
	got, err = repo.UpdateCampaign(cctx, teamA, v.Campaign.ID, func(c *domain.Campaign) error {
		c.Name = "Renamed"
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, "Renamed", got.Name, "the campaign as written")
	require.Equal(t, "Renamed", b.get(t, v.Campaign.ID).Campaign.Name)
	require.Equal(t, unchanged.Count()+1, changed.Count(), "the write is the one statement an unchanged campaign does without")
}
