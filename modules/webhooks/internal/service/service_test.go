package service_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/delivery"
	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	"github.com/teamtext/teamtext/modules/webhooks/internal/webhooktest"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
)

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

func setup(t *testing.T) (*webhooktest.Env, string, string) {
	t.Helper()
	e := webhooktest.New(t, srv, webhooktest.Options{})
	team, coach := e.Team("team_a", billingapi.PlanTeamPlus)
	return e, team, coach
}

func create(t *testing.T, e *webhooktest.Env, team, member string, evs ...string) *service.Created {
	t.Helper()
	c, err := e.Svc.Create(context.Background(), service.NewWebhook{TeamID: team, URL: "https://hooks.example/" + fmt.Sprint(time.Now().UnixNano()),
		Events: evs, Source: domain.SourceAPI, CreatedBy: member, KeyID: "key_1"})
	require.NoError(t, err)
	return c
}

// publish publishes one event in its own transaction, as a use case does.
func publish(t *testing.T, e *webhooktest.Env, team, typ string) {
	t.Helper()
	require.NoError(t, e.DB.Tx(context.Background(), func(ctx context.Context) error {
		return e.Log.Publish(ctx, events.Event{TeamID: team, Type: typ, Data: map[string]any{"n": 1}})
	}))
}

func deliveries(t *testing.T, e *webhooktest.Env, team string) []domain.Delivery {
	t.Helper()
	return e.Deliveries(t, team)
}

// jobRow is what the tests read of River's jobs.
type jobRow struct {
	Args        map[string]any `bun:"args,type:jsonb"`
	State       string         `bun:"state"`
	Queue       string         `bun:"queue"`
	ScheduledAt time.Time      `bun:"scheduled_at"`
}

func jobs(t *testing.T, e *webhooktest.Env) []jobRow {
	t.Helper()
	var js []jobRow
	require.NoError(t, e.DB.Bun.NewRaw(`SELECT args, state, queue, scheduled_at FROM river_job WHERE kind = 'webhooks.deliver' ORDER BY id`).Scan(context.Background(), &js))
	return js
}

func faultCode(err error) string {
	if f, ok := fault.As(err); ok {
		return f.Code
	}
	return ""
}

// TestPublishFansOut: one delivery and one available job per enabled
// webhook subscribed to the type, in the caller's transaction; none when
// the team is below Team Plus.
func TestPublishFansOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, team, coach := setup(t)
	a := create(t, e, team, coach, events.MemberJoined)
	b := create(t, e, team, coach, events.MemberJoined, events.MemberOptedOut)
	create(t, e, team, coach, events.MessageStatus)
	off := create(t, e, team, coach, events.MemberJoined)
	_, err := e.DB.Bun.NewUpdate().Table("webhooks").Set("enabled = false").Where("id = ?", off.Webhook.ID).Exec(ctx)
	require.NoError(t, err)

	publish(t, e, team, events.MemberJoined)
	ds := deliveries(t, e, team)
	require.Len(t, ds, 2)
	require.ElementsMatch(t, []string{a.Webhook.ID, b.Webhook.ID}, []string{ds[0].WebhookID, ds[1].WebhookID})
	require.Equal(t, ds[0].EventID, ds[1].EventID)
	require.NotEqual(t, ds[0].ID, ds[1].ID)
	js := jobs(t, e)
	require.Len(t, js, 2)
	for _, j := range js {
		require.Equal(t, "available", j.State)
		require.EqualValues(t, 1, j.Args["attempt"])
	}

	// A rolled-back use case leaves neither event, delivery nor job.
	boom := errors.New("boom")
	err = e.DB.Tx(ctx, func(ctx context.Context) error {
		require.NoError(t, e.Log.Publish(ctx, events.Event{TeamID: team, Type: events.MemberJoined, Data: map[string]any{}}))
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Len(t, deliveries(t, e, team), 2)
	require.Len(t, jobs(t, e), 2)

	// Outside a transaction publishing is refused.
	require.Error(t, e.Log.Publish(ctx, events.Event{TeamID: team, Type: events.MemberJoined}))

	// Below Team Plus: stored, skipped, nothing to deliver.
	e.Billing.SetPlan(team, billingapi.PlanTeam)
	publish(t, e, team, events.MemberJoined)
	require.Len(t, deliveries(t, e, team), 2)
	n, err := e.DB.Bun.NewSelect().Table("webhook_events").Where("team_id = ? AND skipped", team).Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}

// TestPublishWideFanOut: a team with more subscribers than the ids the
// event's statement is given still gets one delivery and one job each.
func TestPublishWideFanOut(t *testing.T) {
	t.Parallel()
	e, team, coach := setup(t)
	var hooks []string
	for range 7 {
		hooks = append(hooks, create(t, e, team, coach, events.MemberJoined).Webhook.ID)
	}
	publish(t, e, team, events.MemberJoined)
	ds := deliveries(t, e, team)
	require.Len(t, ds, 7)
	got, ids := []string{}, map[string]bool{}
	for _, d := range ds {
		got = append(got, d.WebhookID)
		ids[d.ID] = true
		require.Equal(t, domain.StatePending, d.State)
		require.Equal(t, ds[0].EventID, d.EventID)
	}
	require.ElementsMatch(t, hooks, got)
	require.Len(t, ids, 7, "distinct delivery ids")
	js := jobs(t, e)
	require.Len(t, js, 7)
	for _, j := range js {
		require.True(t, ids[j.Args["delivery_id"].(string)], "every job names one of the deliveries")
		require.Equal(t, domain.Queue, j.Queue, "a batch insert keeps the deliveries' queue")
		delete(ids, j.Args["delivery_id"].(string))
	}
}

// TestDeliverIsIdempotent: a job that runs twice sends and records once.
func TestDeliverIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, team, coach := setup(t)
	w := create(t, e, team, coach, events.MemberJoined)
	publish(t, e, team, events.MemberJoined)
	d := deliveries(t, e, team)[0]
	args := domain.DeliverArgs{TeamID: team, DeliveryID: d.ID, Attempt: 1}
	require.NoError(t, e.Svc.Deliver(ctx, args))
	require.NoError(t, e.Svc.Deliver(ctx, args))
	require.Len(t, e.Sender.Calls(), 1)
	call := e.Sender.Calls()[0]
	require.Equal(t, w.Secret, call.Secret)
	require.Equal(t, d.ID, call.DeliveryID)
	require.Equal(t, events.MemberJoined, call.Event)
	as, err := e.Svc.Attempts(ctx, team, w.Webhook.ID, 50, 0)
	require.NoError(t, err)
	require.Len(t, as, 1)
	require.True(t, as[0].Success)
	require.Equal(t, domain.StateSucceeded, deliveries(t, e, team)[0].State)
	// A later attempt number for a finished delivery does nothing either.
	require.NoError(t, e.Svc.Deliver(ctx, domain.DeliverArgs{TeamID: team, DeliveryID: d.ID, Attempt: 2}))
	require.Len(t, e.Sender.Calls(), 1)

	// Concurrent duplicates: one records, whatever they sent.
	publish(t, e, team, events.MemberJoined)
	d2 := deliveries(t, e, team)[1]
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			require.NoError(t, e.Svc.Deliver(ctx, domain.DeliverArgs{TeamID: team, DeliveryID: d2.ID, Attempt: 1}))
		})
	}
	wg.Wait()
	as, err = e.Svc.Attempts(ctx, team, w.Webhook.ID, 50, 0)
	require.NoError(t, err)
	require.Len(t, as, 2, "one attempt row per attempt number")

	// Another team's id is nothing to this team: the job does nothing.
	other, _ := e.Team("team_b", billingapi.PlanBusiness)
	require.NoError(t, e.Svc.Deliver(ctx, domain.DeliverArgs{TeamID: other, DeliveryID: d.ID, Attempt: 1}))
	_, err = e.Path.Work(ctx, other, d.ID)
	require.ErrorIs(t, err, domain.ErrNotFound)

	// A deleted webhook's pending delivery is gone with it.
	publish(t, e, team, events.MemberJoined)
	d3 := deliveries(t, e, team)[2]
	_, err = e.Svc.Delete(ctx, team, w.Webhook.ID)
	require.NoError(t, err)
	calls := len(e.Sender.Calls())
	require.NoError(t, e.Svc.Deliver(ctx, domain.DeliverArgs{TeamID: team, DeliveryID: d3.ID, Attempt: 1}))
	require.Len(t, e.Sender.Calls(), calls)
	require.Empty(t, deliveries(t, e, team), "deliveries go with their webhook")
	n, err := e.DB.Bun.NewSelect().Table("webhook_attempts").Where("webhook_id = ?", w.Webhook.ID).Count(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "and their attempts with them")

	// A delivery stored by a publisher racing the deletion (its webhook
	// already gone) is removed by its job, unsent.
	orphan := domain.Delivery{ID: "dlv_orphan", TeamID: team, EventID: d3.EventID, WebhookID: w.Webhook.ID,
		State: domain.StatePending, CreatedAt: e.Clock.Now(), UpdatedAt: e.Clock.Now()}
	require.NoError(t, e.Repo.InsertDeliveries(ctx, []domain.Delivery{orphan}))
	require.NoError(t, e.Svc.Deliver(ctx, domain.DeliverArgs{TeamID: team, DeliveryID: orphan.ID, Attempt: 1}))
	require.Len(t, e.Sender.Calls(), calls)
	require.Empty(t, deliveries(t, e, team))
}

// TestRetryScheduleAndAbandon: each failure schedules the next attempt
// after the spec's gap, as a River job at that time; the sixth abandons.
func TestRetryScheduleAndAbandon(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, team, coach := setup(t)
	w := create(t, e, team, coach, events.MemberJoined)
	e.Sender.Script(delivery.Result{StatusCode: 500, Err: "receiver answered 500"})
	publish(t, e, team, events.MemberJoined)
	d := deliveries(t, e, team)[0]
	gaps := []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 12 * time.Hour}
	for n := 1; n <= domain.MaxAttempts; n++ {
		require.NoError(t, e.Svc.Deliver(ctx, domain.DeliverArgs{TeamID: team, DeliveryID: d.ID, Attempt: n}))
		js := jobs(t, e)
		if n == domain.MaxAttempts {
			require.Len(t, js, n, "no seventh attempt")
			break
		}
		require.Len(t, js, n+1)
		next := js[n]
		require.Equal(t, "scheduled", next.State)
		require.Equal(t, domain.Queue, js[0].Queue, "first attempts have slots of their own")
		require.Equal(t, domain.Queue, next.Queue, "and so do retries")
		require.EqualValues(t, n+1, next.Args["attempt"])
		require.Equal(t, d.ID, next.Args["delivery_id"])
		require.WithinDuration(t, e.Clock.Now().Add(gaps[n-1]), next.ScheduledAt, time.Millisecond)
		e.Clock.Advance(gaps[n-1])
	}
	got := deliveries(t, e, team)[0]
	require.Equal(t, domain.StateAbandoned, got.State)
	require.Equal(t, domain.MaxAttempts, got.Attempts)
	require.Nil(t, got.NextAttemptAt)
	as, err := e.Svc.Attempts(ctx, team, w.Webhook.ID, 50, 0)
	require.NoError(t, err)
	require.Len(t, as, domain.MaxAttempts)
	require.Nil(t, as[0].NextAttemptAt)
	for i, a := range as {
		require.Equal(t, domain.MaxAttempts-i, a.Attempt, "newest first")
		require.Equal(t, 500, *a.StatusCode)
	}
	// The signatures' clock moved with each attempt.
	calls := e.Sender.Calls()
	require.Len(t, calls, domain.MaxAttempts)
}

// TestAutoDisableAcrossDeliveries: 20 failed attempts in a row, counted
// across deliveries and reset by a success, turn the webhook off once and
// e-mail the key owners; its deliveries then end without being sent.
func TestAutoDisableAcrossDeliveries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, team, coach := setup(t)
	e.Dir.AddMember(rosterapi.Member{ID: "dir", TeamID: team, Email: "dir@team.test", Role: rosterapi.RoleTeamDirector, Status: "active", CanSendBroadcasts: true})
	e.Dir.AddMember(rosterapi.Member{ID: "asst", TeamID: team, Email: "asst@team.test", Role: rosterapi.RoleCoach, Status: "active"})
	w := create(t, e, team, coach, events.MemberJoined)
	fail := delivery.Result{Err: "connection refused"}
	attempt := func(res delivery.Result) {
		t.Helper()
		e.Sender.Script(res)
		publish(t, e, team, events.MemberJoined)
		ds := deliveries(t, e, team)
		require.NoError(t, e.Svc.Deliver(ctx, domain.DeliverArgs{TeamID: team, DeliveryID: ds[len(ds)-1].ID, Attempt: 1}))
	}
	for range 10 {
		attempt(fail)
	}
	attempt(delivery.Result{StatusCode: 202})
	got, err := e.Svc.Webhook(ctx, team, w.Webhook.ID)
	require.NoError(t, err)
	require.Zero(t, got.ConsecutiveFailures, "a success resets the count")
	for range 19 {
		attempt(fail)
	}
	got, _ = e.Svc.Webhook(ctx, team, w.Webhook.ID)
	require.True(t, got.Enabled)
	require.Equal(t, 19, got.ConsecutiveFailures)
	ns, err := e.Svc.Notifications(ctx, team, 50, 0)
	require.NoError(t, err)
	require.Empty(t, ns)

	attempt(fail)
	got, _ = e.Svc.Webhook(ctx, team, w.Webhook.ID)
	require.False(t, got.Enabled)
	require.Equal(t, domain.DisabledConsecutiveFailures, *got.DisabledReason)
	ns, err = e.Svc.Notifications(ctx, team, 50, 0)
	require.NoError(t, err)
	require.Len(t, ns, 2, "head coach and team director, not the assistant")
	to := []string{ns[0].To, ns[1].To}
	require.ElementsMatch(t, []string{"coach@team_a.test", "dir@team.test"}, to)
	ds := deliveries(t, e, team)
	require.Equal(t, domain.StateCancelled, ds[len(ds)-1].State, "the delivery that turned it off ends with it")

	// A pending retry of an earlier delivery ends without a send.
	calls := len(e.Sender.Calls())
	require.NoError(t, e.Svc.Deliver(ctx, domain.DeliverArgs{TeamID: team, DeliveryID: ds[len(ds)-2].ID, Attempt: 2}))
	require.Len(t, e.Sender.Calls(), calls)
	require.Equal(t, domain.StateCancelled, deliveries(t, e, team)[len(ds)-2].State)
	// No new deliveries while off; the test event is refused.
	publish(t, e, team, events.MemberJoined)
	require.Len(t, deliveries(t, e, team), len(ds))
	_, err = e.Svc.SendTest(ctx, team, w.Webhook.ID, "")
	require.Equal(t, "conflict", faultCode(err))

	// Failures after it is off do not notify again; enabling resets.
	on, err := e.Svc.Enable(ctx, team, w.Webhook.ID, "dir")
	require.NoError(t, err)
	require.True(t, on.Enabled)
	require.Equal(t, "dir", on.OwnerID)
	require.Zero(t, on.ConsecutiveFailures)
	sent, err := e.Svc.SendTest(ctx, team, w.Webhook.ID, "ping")
	require.NoError(t, err)
	require.NotEmpty(t, sent.DeliveryID)
}

// TestAutoDisableUnderConcurrentFailures: failures recorded at once by
// many workers turn the webhook off once and e-mail once.
func TestAutoDisableUnderConcurrentFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, team, coach := setup(t)
	w := create(t, e, team, coach, events.MemberJoined)
	e.Sender.Script(delivery.Result{Err: "connection refused"})
	for range 30 {
		publish(t, e, team, events.MemberJoined)
	}
	var wg sync.WaitGroup
	for _, d := range deliveries(t, e, team) {
		wg.Go(func() {
			require.NoError(t, e.Svc.Deliver(ctx, domain.DeliverArgs{TeamID: team, DeliveryID: d.ID, Attempt: 1}))
		})
	}
	wg.Wait()
	got, err := e.Svc.Webhook(ctx, team, w.Webhook.ID)
	require.NoError(t, err)
	require.False(t, got.Enabled)
	require.GreaterOrEqual(t, got.ConsecutiveFailures, domain.DisableAfter)
	ns, err := e.Svc.Notifications(ctx, team, 50, 0)
	require.NoError(t, err)
	require.Len(t, ns, 1, "one e-mail to the one key owner")
	as, err := e.Svc.Attempts(ctx, team, w.Webhook.ID, 50, 0)
	require.NoError(t, err)
	require.Len(t, as, got.ConsecutiveFailures, "every failed attempt recorded and counted")
}

// TestCreateRules: key owners only, Team Plus and above, at most 25 even
// when requests race.
func TestCreateRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, team, coach := setup(t)
	e.Dir.AddMember(rosterapi.Member{ID: "athlete", TeamID: team, Role: rosterapi.RoleAthlete, Status: "active"})
	e.Dir.AddMember(rosterapi.Member{ID: "muted", TeamID: team, Role: rosterapi.RoleHeadCoach, Status: "active", CanSendBroadcasts: false})
	nw := func(member string) service.NewWebhook {
		return service.NewWebhook{TeamID: team, URL: "https://hooks.example/x", Events: []string{events.MemberJoined}, Source: domain.SourceAPI, CreatedBy: member}
	}
	for _, m := range []string{"athlete", "muted"} {
		_, err := e.Svc.Create(ctx, nw(m))
		require.Equal(t, "forbidden", faultCode(err), m)
	}
	_, err := e.Svc.Create(ctx, nw("nobody"))
	require.Equal(t, "not_found", faultCode(err))
	bad := nw(coach)
	bad.Events = []string{events.WebhookTest}
	_, err = e.Svc.Create(ctx, bad)
	require.Equal(t, domain.CodeInvalidEvents, faultCode(err))

	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	for range 30 {
		wg.Go(func() {
			_, err := e.Svc.Create(ctx, nw(coach))
			switch faultCode(err) {
			case "":
				ok.Add(1)
			case domain.CodeWebhookLimit:
				limited.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, 25, ok.Load())
	require.EqualValues(t, 5, limited.Load())

	e.Billing.SetPlan(team, billingapi.PlanFree)
	_, err = e.Svc.Create(ctx, nw(coach))
	require.Equal(t, "plan_required", faultCode(err))
}

// TestRosterSignals: a revoked key deletes the webhooks made with it; an
// inactive owner turns their dashboard-made webhooks off.
func TestRosterSignals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, team, coach := setup(t)
	other, otherCoach := e.Team("team_z", billingapi.PlanOrganization)
	mk := func(team, member, source, key string) string {
		c, err := e.Svc.Create(ctx, service.NewWebhook{TeamID: team, URL: "https://hooks.example/y", Events: []string{events.MemberOptedIn},
			Source: source, CreatedBy: member, KeyID: key})
		require.NoError(t, err)
		return c.Webhook.ID
	}
	k1a := mk(team, coach, domain.SourceAPI, "key_1")
	mk(team, coach, domain.SourceAPI, "key_1")
	k2 := mk(team, coach, domain.SourceAPI, "key_2")
	dash := mk(team, coach, domain.SourceDashboard, "")
	otherK1 := mk(other, otherCoach, domain.SourceAPI, "key_1") // same key id, other team: untouched

	require.NoError(t, e.DB.Tx(ctx, func(ctx context.Context) error {
		return e.Svc.OnKeyRevoked(ctx, rosterapi.KeyRevoked{TeamID: team, KeyID: "key_1", MemberID: coach, Reason: "revoked"})
	}))
	_, err := e.Svc.Webhook(ctx, team, k1a)
	require.Equal(t, "not_found", faultCode(err))
	ws, err := e.Svc.Webhooks(ctx, team, 50, 0)
	require.NoError(t, err)
	require.Len(t, ws, 2)
	_, err = e.Svc.Webhook(ctx, other, otherK1)
	require.NoError(t, err)

	require.NoError(t, e.DB.Tx(ctx, func(ctx context.Context) error {
		return e.Svc.OnOwnerInactive(ctx, rosterapi.OwnerInactive{TeamID: team, MemberID: coach, Reason: "creator_role_changed"})
	}))
	d, _ := e.Svc.Webhook(ctx, team, dash)
	require.False(t, d.Enabled)
	require.Equal(t, domain.DisabledCreatorInactive, *d.DisabledReason)
	a, _ := e.Svc.Webhook(ctx, team, k2)
	require.True(t, a.Enabled, "API-made webhooks follow their key, not this rule")

	// Cross-team ids are not found everywhere.
	for _, f := range []func() error{
		func() error { _, err := e.Svc.Webhook(ctx, other, dash); return err },
		func() error { _, err := e.Svc.Delete(ctx, other, dash); return err },
		func() error { _, err := e.Svc.Enable(ctx, other, dash, otherCoach); return err },
		func() error { _, err := e.Svc.SendTest(ctx, other, dash, ""); return err },
		func() error { _, err := e.Svc.Attempts(ctx, other, dash, 10, 0); return err },
	} {
		require.Equal(t, "not_found", faultCode(f()))
	}
}

// TestPublishManyFansOutLikePublish: the batch path stores every event and
// makes one delivery and job per (event, subscribed enabled webhook), and
// skips below Team Plus, exactly as one-by-one publishing does.
func TestPublishManyFansOutLikePublish(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, team, coach := setup(t)
	a := create(t, e, team, coach, events.MemberOptedOut)
	b := create(t, e, team, coach, events.MemberOptedOut, events.MemberJoined)
	create(t, e, team, coach, events.MemberJoined)
	batch := []events.Event{
		{TeamID: team, Type: events.MemberOptedOut, Data: map[string]any{"n": 1}},
		{TeamID: team, Type: events.MemberOptedOut, Data: map[string]any{"n": 2}},
		{TeamID: team, Type: events.MemberJoined, Data: map[string]any{"n": 3}},
	}
	require.NoError(t, e.DB.Tx(ctx, func(ctx context.Context) error { return e.Log.PublishMany(ctx, team, batch) }))
	ds := deliveries(t, e, team)
	require.Len(t, ds, 2+2+2, "two subscribers per event")
	perWebhook := map[string]int{}
	eventIDs := map[string]bool{}
	for _, d := range ds {
		perWebhook[d.WebhookID]++
		eventIDs[d.EventID] = true
	}
	require.Equal(t, 2, perWebhook[a.Webhook.ID])
	require.Equal(t, 3, perWebhook[b.Webhook.ID])
	require.Len(t, eventIDs, 3, "three distinct events")
	require.Len(t, jobs(t, e), 6)

	require.Error(t, e.DB.Tx(ctx, func(ctx context.Context) error {
		return e.Log.PublishMany(ctx, team, []events.Event{{TeamID: "team_other", Type: events.MemberJoined}})
	}), "a batch holds one team's events")

	e.Billing.SetPlan(team, billingapi.PlanTeam)
	require.NoError(t, e.DB.Tx(ctx, func(ctx context.Context) error { return e.Log.PublishMany(ctx, team, batch) }))
	require.Len(t, deliveries(t, e, team), 6, "skipped below Team Plus")
	n, err := e.DB.Bun.NewSelect().Table("webhook_events").Where("team_id = ? AND skipped", team).Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
}

// TestPublishTeamsAcrossTeams: one call stores events of several teams,
// each with its own team's envelope and its own team's subscribers only,
// skipped for a team whose plan has no API; an unknown team fails the
// whole batch.
func TestPublishTeamsAcrossTeams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, a, coachA := setup(t)
	b, coachB := e.Team("team_b", billingapi.PlanOrganization)
	c, _ := e.Team("team_c", billingapi.PlanTeam) // no API: stored skipped
	wa := create(t, e, a, coachA, events.MessageStatus)
	wb := create(t, e, b, coachB, events.MessageStatus, events.MemberJoined)
	batch := []events.Event{
		{TeamID: a, Type: events.MessageStatus, Data: map[string]any{"n": 1}},
		{TeamID: b, Type: events.MessageStatus, Data: map[string]any{"n": 2}},
		{TeamID: c, Type: events.MessageStatus, Data: map[string]any{"n": 3}},
		{TeamID: a, Type: events.MessageStatus, Data: map[string]any{"n": 4}},
		{TeamID: b, Type: events.MemberJoined, Data: map[string]any{"n": 5}},
	}
	require.NoError(t, e.DB.Tx(ctx, func(ctx context.Context) error { return e.Log.PublishTeams(ctx, batch) }))

	da, db := deliveries(t, e, a), deliveries(t, e, b)
	require.Len(t, da, 2, "team a: its two events, to its one webhook")
	require.Len(t, db, 2, "team b: its two events, to its one webhook")
	for _, d := range da {
		require.Equal(t, wa.Webhook.ID, d.WebhookID)
	}
	for _, d := range db {
		require.Equal(t, wb.Webhook.ID, d.WebhookID)
	}
	require.Empty(t, deliveries(t, e, c))
	require.Len(t, jobs(t, e), 4)
	var evs []domain.Event
	require.NoError(t, e.DB.Bun.NewRaw(`SELECT id, team_id, type, created_at, body, skipped, webhook_id FROM webhook_events
		WHERE team_id IN (?, ?, ?) ORDER BY team_id`, a, b, c).Scan(ctx, &evs))
	require.Len(t, evs, 5)
	for _, ev := range evs {
		require.Contains(t, ev.Body, `"team":{"id":"`+ev.TeamID+`"`, "each event carries its own team")
		require.Equal(t, ev.TeamID == c, ev.Skipped, "skipped only below Team Plus")
	}

	err := e.DB.Tx(ctx, func(ctx context.Context) error {
		return e.Log.PublishTeams(ctx, []events.Event{{TeamID: a, Type: events.MessageStatus}, {TeamID: "team_gone", Type: events.MessageStatus}})
	})
	require.Equal(t, "not_found", faultCode(err), "a team that does not exist fails the batch")
	require.Len(t, deliveries(t, e, a), 2, "and nothing of it is stored")
}
