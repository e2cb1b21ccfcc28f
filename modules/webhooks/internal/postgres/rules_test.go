package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	"github.com/teamtext/teamtext/modules/webhooks/internal/webhooktest"
	"github.com/teamtext/teamtext/platform/events"
)

// The set-based statements encode the domain's rules in SQL for speed
// (one round trip per attempt, or per batch of attempts). These property
// tests run them over random states on a real Postgres and check that
// they leave what the domain's methods say, so that the rule lives in one
// place (domain) and the SQL is held to it.

// ruleEnv is a webhook with one delivery to play states on.
type ruleEnv struct {
	e        *webhooktest.Env
	team     string
	webhook  string
	delivery domain.Delivery
}

func newRuleEnv(t *testing.T) *ruleEnv {
	t.Helper()
	ctx := context.Background()
	e := webhooktest.New(t, srv, webhooktest.Options{})
	team, coach := e.Team("team_a", billingapi.PlanBusiness)
	c, err := e.Svc.Create(ctx, service.NewWebhook{TeamID: team, URL: "https://hooks.example/a",
		Events: []string{events.MemberJoined}, Source: domain.SourceAPI, CreatedBy: coach})
	require.NoError(t, err)
	publish(t, e, team)
	ds := e.Deliveries(t, team)
	require.Len(t, ds, 1)
	return &ruleEnv{e: e, team: team, webhook: c.Webhook.ID, delivery: ds[0]}
}

// publish publishes member.joined for team.
func publish(t *testing.T, e *webhooktest.Env, team string) {
	t.Helper()
	require.NoError(t, e.DB.Tx(context.Background(), func(ctx context.Context) error {
		return e.Log.Publish(ctx, events.Event{TeamID: team, Type: events.MemberJoined, Data: map[string]int{}})
	}))
}

// seeded is a random source whose seed the test logs (rerun a failure
// by fixing it here).
func seeded(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed>>1))
}

// set stores a webhook state and a delivery state, and clears the attempts.
func (r *ruleEnv) set(t *testing.T, enabled bool, failures int, state string, attempts, roundFrom int, queued bool) {
	t.Helper()
	ctx := context.Background()
	var reason *string
	if !enabled {
		s := domain.DisabledCreatorInactive
		reason = &s
	}
	old := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	_, err := r.e.DB.Bun.NewUpdate().Table("webhooks").Set("enabled = ?", enabled).Set("consecutive_failures = ?", failures).
		Set("disabled_reason = ?", reason).Set("updated_at = ?", old).Where("id = ?", r.webhook).Exec(ctx)
	require.NoError(t, err)
	next := &old
	if state != domain.StatePending {
		next = nil
	}
	_, err = r.e.DB.Bun.NewUpdate().Table("webhook_deliveries").Set("state = ?", state).Set("attempts = ?", attempts).
		Set("round_from = ?", roundFrom).Set("queued = ?", queued).Set("next_attempt_at = ?", next).Set("updated_at = ?", old).
		Where("id = ?", r.delivery.ID).Exec(ctx)
	require.NoError(t, err)
	_, err = r.e.DB.Bun.NewDelete().Table("webhook_attempts").Where("delivery_id = ?", r.delivery.ID).Exec(ctx)
	require.NoError(t, err)
}

// load reads the webhook and the delivery as the domain sees them.
func (r *ruleEnv) load(t *testing.T) (*domain.Webhook, *domain.Delivery) {
	t.Helper()
	ctx := context.Background()
	w, err := r.e.Repo.Webhook(ctx, r.team, r.webhook, false)
	require.NoError(t, err)
	d, err := r.e.Repo.Delivery(ctx, r.team, r.webhook, r.delivery.ID, false)
	require.NoError(t, err)
	return w, d
}

func sameTime(t *testing.T, want, got *time.Time, msg string) {
	t.Helper()
	if want == nil || got == nil {
		require.Equal(t, want == nil, got == nil, "%s: want %v, got %v", msg, want, got)
		return
	}
	require.True(t, want.Equal(*got), "%s: want %v, got %v", msg, want, got)
}

func requireSame(t *testing.T, wantW, gotW *domain.Webhook, wantD, gotD *domain.Delivery, msg string) {
	t.Helper()
	require.Equal(t, wantW.Enabled, gotW.Enabled, "%s: enabled", msg)
	require.Equal(t, wantW.DisabledReason, gotW.DisabledReason, "%s: disabled_reason", msg)
	require.Equal(t, wantW.ConsecutiveFailures, gotW.ConsecutiveFailures, "%s: consecutive_failures", msg)
	sameTime(t, &wantW.UpdatedAt, &gotW.UpdatedAt, msg+": webhook updated_at")
	require.Equal(t, wantD.State, gotD.State, "%s: state", msg)
	require.Equal(t, wantD.Attempts, gotD.Attempts, "%s: attempts", msg)
	require.Equal(t, wantD.RoundFrom, gotD.RoundFrom, "%s: round_from", msg)
	require.Equal(t, wantD.Queued, gotD.Queued, "%s: queued", msg)
	sameTime(t, wantD.NextAttemptAt, gotD.NextAttemptAt, msg+": next_attempt_at")
	sameTime(t, &wantD.UpdatedAt, &gotD.UpdatedAt, msg+": delivery updated_at")
}

// TestRecordedAttemptsFollowTheDomain: over random webhook states (on or
// off, any failure count around the threshold) and delivery states (any
// attempt of any round, due or not), RecordFailure leaves exactly what
// domain.Webhook.Failed and domain.Delivery.Failed say — the auto-disable
// threshold, the cancelled-or-abandoned end, the next attempt of the
// round — and RecordSuccesses what Succeeded says; an attempt that is not
// due (Delivery.Due) changes nothing.
func TestRecordedAttemptsFollowTheDomain(t *testing.T) {
	t.Parallel()
	rnd := seeded(t)
	r := newRuleEnv(t)
	ctx := context.Background()
	states := []string{domain.StatePending, domain.StatePending, domain.StatePending, domain.StateSucceeded, domain.StateAbandoned, domain.StateCancelled}
	base := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	for i := range 300 {
		enabled := rnd.IntN(4) > 0
		failures := rnd.IntN(domain.DisableAfter + 4)
		if rnd.IntN(3) == 0 {
			failures = domain.DisableAfter - 1 - rnd.IntN(2)
		}
		state := states[rnd.IntN(len(states))]
		roundFrom := rnd.IntN(3) * domain.MaxAttempts
		attempts := roundFrom + rnd.IntN(domain.MaxAttempts)
		queued := state == domain.StatePending && rnd.IntN(3) == 0
		attempt := attempts + 1
		if rnd.IntN(6) == 0 {
			attempt += 1 + rnd.IntN(2) // a stale or early job
		}
		success := rnd.IntN(4) == 0
		now := base.Add(time.Duration(i) * time.Minute).Add(time.Duration(rnd.IntN(1e6)) * time.Microsecond)
		msg := fmt.Sprintf("trial %d (webhook on %v, %d failures; delivery %s, %d attempts, round from %d; attempt %d, success %v)",
			i, enabled, failures, state, attempts, roundFrom, attempt, success)

		r.set(t, enabled, failures, state, attempts, roundFrom, queued)
		wantW, wantD := r.load(t)
		a := &domain.Attempt{TeamID: r.team, WebhookID: r.webhook, DeliveryID: r.delivery.ID, EventID: r.delivery.EventID,
			Attempt: attempt, AttemptedAt: now, DurationUS: 1000, Success: success}

		due := wantD.Due(attempt)
		if success {
			got, err := r.e.Repo.RecordSuccesses(ctx, []*domain.Attempt{a}, []time.Time{now})
			require.NoError(t, err)
			require.Equal(t, []bool{due}, got, msg)
			if due {
				wantD.Succeeded(attempt, now)
				wantW.Succeeded()
				seen["succeeded"] = true
			}
		} else {
			var next *time.Time
			if at, ok := domain.NextAttempt(attempt-wantD.RoundFrom, now); ok {
				next = &at
			}
			var f domain.Failure
			require.NoError(t, r.e.DB.Tx(ctx, func(ctx context.Context) error {
				var err error
				f, err = r.e.Repo.RecordFailure(ctx, a, next, now)
				return err
			}))
			require.Equal(t, due, f.Recorded, msg)
			if due {
				turnedOff := wantW.Failed(now)
				wantD.Failed(attempt, now, turnedOff)
				require.Equal(t, turnedOff, f.Disabled, msg+": disabled")
				require.Equal(t, wantW.ConsecutiveFailures, f.Failures, msg+": failures")
				sameTime(t, wantD.NextAttemptAt, f.NextAttemptAt, msg+": returned next attempt")
				seen[wantD.State] = true
				if turnedOff {
					seen["turned off"] = true
				}
			}
		}
		if !due {
			seen["not due"] = true
		}
		gotW, gotD := r.load(t)
		requireSame(t, wantW, gotW, wantD, gotD, msg)
	}
	for _, c := range []string{"succeeded", domain.StatePending, domain.StateAbandoned, domain.StateCancelled, "turned off", "not due"} {
		require.True(t, seen[c], "the random states reached %q", c)
	}
}

// TestStatusFilterFollowsTheDomain: over random deliveries, the
// deliveries list filtered by each API status returns exactly those whose
// domain.Delivery.Status is that status.
func TestStatusFilterFollowsTheDomain(t *testing.T) {
	t.Parallel()
	rnd := seeded(t)
	r := newRuleEnv(t)
	ctx := context.Background()
	for range 40 {
		publish(t, r.e, r.team)
	}
	states := []string{domain.StatePending, domain.StateSucceeded, domain.StateAbandoned, domain.StateCancelled}
	for i, d := range r.e.Deliveries(t, r.team) {
		roundFrom := rnd.IntN(3) * domain.MaxAttempts
		state, tried := states[rnd.IntN(len(states))], rnd.IntN(domain.MaxAttempts+1)
		if i < 2*len(states) {
			// Every state with and without an attempt in its round, so each
			// API status is reached whatever the seed; the rest is random.
			state, tried = states[i/2], i%2
		}
		_, err := r.e.DB.Bun.NewUpdate().Table("webhook_deliveries").Set("state = ?", state).
			Set("round_from = ?", roundFrom).Set("attempts = ?", roundFrom+tried).
			Where("id = ?", d.ID).Exec(ctx)
		require.NoError(t, err)
	}
	all := r.e.Deliveries(t, r.team)
	for _, status := range domain.Statuses {
		var want []string
		for i := range all {
			if all[i].Status() == status {
				want = append(want, all[i].ID)
			}
		}
		ls, err := r.e.Repo.Deliveries(ctx, r.team, r.webhook, status, 200, 0)
		require.NoError(t, err)
		var got []string
		for _, l := range ls {
			require.Equal(t, status, l.Status())
			got = append(got, l.ID)
		}
		slices.Sort(want)
		slices.Sort(got)
		require.Equal(t, want, got, "status %s", status)
		require.NotEmpty(t, got, "the random deliveries reached status %s", status)
	}
}

// TestRecoverFollowsTheDomain: over random deliveries, Recover takes
// exactly those domain.Delivery.Recoverable says (since inclusive) and
// leaves each as domain.Delivery.Recover does; the others are untouched.
func TestRecoverFollowsTheDomain(t *testing.T) {
	t.Parallel()
	rnd := seeded(t)
	r := newRuleEnv(t)
	ctx := context.Background()
	for range 30 {
		r.e.Clock.Advance(time.Duration(1+rnd.IntN(5000)) * time.Millisecond)
		publish(t, r.e, r.team)
	}
	states := []string{domain.StatePending, domain.StateSucceeded, domain.StateAbandoned, domain.StateCancelled}
	for _, d := range r.e.Deliveries(t, r.team) {
		attempts := rnd.IntN(2*domain.MaxAttempts + 1)
		_, err := r.e.DB.Bun.NewUpdate().Table("webhook_deliveries").Set("state = ?", states[rnd.IntN(len(states))]).
			Set("attempts = ?", attempts).Set("round_from = ?", attempts-attempts%domain.MaxAttempts).Where("id = ?", d.ID).Exec(ctx)
		require.NoError(t, err)
	}
	before := r.e.Deliveries(t, r.team)
	since := before[rnd.IntN(len(before)/2)].CreatedAt // an event exactly at since is recovered
	now := r.e.Clock.Now().UTC().Truncate(time.Microsecond).Add(time.Hour)
	want := 0
	for i := range before {
		if before[i].Recoverable(since) {
			before[i].Recover(now)
			want++
		}
	}
	require.Positive(t, want, "some deliveries at or after since ended unsent")
	n, err := r.e.Repo.Recover(ctx, r.team, r.webhook, since, now)
	require.NoError(t, err)
	require.Equal(t, want, n)
	after := r.e.Deliveries(t, r.team)
	require.Len(t, after, len(before))
	for i := range after {
		w, g := before[i], after[i]
		require.Equal(t, w.ID, g.ID)
		require.Equal(t, w.State, g.State, w.ID)
		require.Equal(t, w.RoundFrom, g.RoundFrom, w.ID)
		require.Equal(t, w.Queued, g.Queued, w.ID)
		sameTime(t, w.NextAttemptAt, g.NextAttemptAt, w.ID+": next_attempt_at")
		sameTime(t, &w.UpdatedAt, &g.UpdatedAt, w.ID+": updated_at")
	}
}

// TestCancelFollowsTheDomain: over random delivery states, CancelDelivery
// leaves what domain.Delivery.Cancel says: only a pending delivery ends
// cancelled, unqueued, with no next attempt.
func TestCancelFollowsTheDomain(t *testing.T) {
	t.Parallel()
	rnd := seeded(t)
	r := newRuleEnv(t)
	ctx := context.Background()
	states := []string{domain.StatePending, domain.StateSucceeded, domain.StateAbandoned, domain.StateCancelled}
	base := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for i := range 60 {
		state := states[rnd.IntN(len(states))]
		attempts := rnd.IntN(domain.MaxAttempts)
		r.set(t, true, 0, state, attempts, 0, state == domain.StatePending && rnd.IntN(2) == 0)
		wantW, wantD := r.load(t)
		now := base.Add(time.Duration(i) * time.Minute)
		cancelled := wantD.Cancel(now)
		require.NoError(t, r.e.DB.Tx(ctx, func(ctx context.Context) error {
			return r.e.Repo.CancelDelivery(ctx, r.team, r.delivery.ID, now)
		}))
		gotW, gotD := r.load(t)
		requireSame(t, wantW, gotW, wantD, gotD, fmt.Sprintf("trial %d (%s, cancelled %v)", i, state, cancelled))
	}
}
