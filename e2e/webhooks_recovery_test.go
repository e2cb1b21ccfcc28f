package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	stripewebhook "github.com/stripe/stripe-go/v83/webhook"

	"github.com/teamtext/teamtext/e2e/harness"
)

// whDelivery is one row of GET /webhooks/{id}/deliveries.
type whDelivery struct {
	ID            string     `json:"id"`
	EventID       string     `json:"event_id"`
	EventType     string     `json:"event_type"`
	Status        string     `json:"status"`
	Queued        bool       `json:"queued"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	CreatedAt     time.Time  `json:"created_at"`
	Attempts      []struct {
		Attempt     int       `json:"attempt"`
		AttemptedAt time.Time `json:"attempted_at"`
		Success     bool      `json:"success"`
		StatusCode  *int      `json:"status_code"`
		Error       *string   `json:"error"`
		DurationMS  float64   `json:"duration_ms"`
	} `json:"attempts"`
}

// whDeliveries lists every delivery of a webhook (newest first) of status ("" all).
func whDeliveries(t *testing.T, api *harness.Client, webhookID, status string) []whDelivery {
	t.Helper()
	var out []whDelivery
	q := "?limit=200"
	if status != "" {
		q += "&status=" + status
	}
	require.NoError(t, api.Expect(context.Background(), 200, "GET", "/webhooks/"+webhookID+"/deliveries"+q, nil, &out))
	return out
}

// memberOf is the member id in a member.joined delivery.
func memberOf(t *testing.T, r harness.Hook) string {
	t.Helper()
	var d struct {
		Member struct {
			ID string `json:"id"`
		} `json:"member"`
	}
	require.NoError(t, json.Unmarshal(envelope(t, r).Data, &d))
	return d.Member.ID
}

// TestWebhookRecover: the receiver is down long enough (on the
// test clock) for the first events' deliveries to be abandoned after every
// retry and, once the 20th failure in a row turns the webhook off, for the
// later ones to be cancelled. Back up and turned on again, POST
// /webhooks/{id}/recover puts them all back: every event arrives exactly
// once, in the order it happened, signed afresh, as attempt 7 of an
// abandoned delivery. The deliveries list, its filter and pagination, the
// retry of one delivery, another team's ids and bad input are checked on
// the way.
func TestWebhookRecover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rcv := newReceiver(t)
	rcv.SetStatus(http.StatusServiceUnavailable)
	h := startHookService(t, "wh_recover", rcv, "CLOCK=test")
	f, api := h.team(t)
	w := whCreate(t, api, rcv.URL("/recover"), "member.joined")
	start := h.advance(t, 0)

	// Three events, every attempt failing: abandoned after the sixth
	// (18 failures in a row: the webhook stays on).
	var members []string
	for i := range 3 {
		members = append(members, whJoin(t, h.admin, f.TeamID, map[string]any{"name": fmt.Sprintf("Early %d", i), "phone": fmt.Sprintf("20255507%02d", i)}))
	}
	whWaitAttempts(t, h.admin, f.TeamID, w.ID, 3)
	for i, gap := range []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 12 * time.Hour} {
		h.advance(t, gap+2*time.Second)
		whWaitAttempts(t, h.admin, f.TeamID, w.ID, 3*(i+2))
	}
	waitFor(t, 30*time.Second, func() bool { return len(whDeliveries(t, api, w.ID, "abandoned")) == 3 })
	require.True(t, whAdminGet(t, h.admin, f.TeamID, w.ID).Enabled, "18 failures in a row leave it on")

	// Five more, all published while the webhook is on (their first
	// attempts are held at the receiver until then): the 20th failure turns
	// the webhook off and ends the rest.
	release := rcv.Hold()
	sent := len(rcv.Requests(""))
	for i := range 5 {
		members = append(members, whJoin(t, h.admin, f.TeamID, map[string]any{"name": fmt.Sprintf("Late %d", i), "phone": fmt.Sprintf("20255508%02d", i)}))
	}
	waitFor(t, 30*time.Second, func() bool { return len(rcv.Requests("")) == sent+5 })
	release()
	waitFor(t, 30*time.Second, func() bool { return !whAdminGet(t, h.admin, f.TeamID, w.ID).Enabled })
	waitFor(t, 60*time.Second, func() bool {
		h.advance(t, 5*time.Minute) // retries planned before the turn-off come due and end
		return len(whDeliveries(t, api, w.ID, "pending"))+len(whDeliveries(t, api, w.ID, "failed")) == 0
	})
	all := whDeliveries(t, api, w.ID, "")
	require.Len(t, all, 8)
	for _, d := range all {
		require.Contains(t, []string{"abandoned", "cancelled"}, d.Status, "%+v", d)
		require.Equal(t, "member.joined", d.EventType)
		require.False(t, d.Queued)
		require.Nil(t, d.NextAttemptAt, "ended")
		for _, a := range d.Attempts {
			require.False(t, a.Success)
			require.Equal(t, 503, *a.StatusCode)
		}
	}
	abandoned := whDeliveries(t, api, w.ID, "abandoned")
	require.Len(t, abandoned, 3)
	require.Len(t, abandoned[0].Attempts, 6)
	for i, a := range abandoned[0].Attempts {
		require.Equal(t, i+1, a.Attempt, "attempts oldest first")
	}
	cancelled := whDeliveries(t, api, w.ID, "cancelled")
	require.Len(t, cancelled, 5)
	require.Empty(t, whDeliveries(t, api, w.ID, "delivered"))

	// Pagination, exactly like the spec's other lists.
	r := whDo(t, api, "GET", "/webhooks/"+w.ID+"/deliveries?limit=3&offset=6", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	var page struct {
		Data       []whDelivery `json:"data"`
		Pagination struct {
			Limit      int  `json:"limit"`
			Offset     int  `json:"offset"`
			HasMore    bool `json:"has_more"`
			NextOffset *int `json:"next_offset"`
		} `json:"pagination"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &page))
	require.Len(t, page.Data, 2)
	require.Equal(t, all[6].ID, page.Data[0].ID, "newest first, the same order on every page")
	require.False(t, page.Pagination.HasMore)
	require.Nil(t, page.Pagination.NextOffset)
	require.NoError(t, json.Unmarshal(whDo(t, api, "GET", "/webhooks/"+w.ID+"/deliveries?limit=3", nil).Body, &page))
	require.True(t, page.Pagination.HasMore)
	require.Equal(t, 3, *page.Pagination.NextOffset)

	// Off: no recovery and no retry until it is turned on.
	requireCode(t, whDo(t, api, "POST", "/webhooks/"+w.ID+"/recover", map[string]any{"since": start.Format(time.RFC3339)}), 409, "conflict")
	requireCode(t, whDo(t, api, "POST", "/webhooks/"+w.ID+"/deliveries/"+abandoned[0].ID+"/retry", nil), 409, "conflict")

	// Another team sees none of it; bad input is 400 and changes nothing.
	_, other := h.team(t)
	requireCode(t, whDo(t, other, "GET", "/webhooks/"+w.ID+"/deliveries", nil), 404, "not_found")
	requireCode(t, whDo(t, other, "POST", "/webhooks/"+w.ID+"/recover", map[string]any{"since": start.Format(time.RFC3339)}), 404, "not_found")
	requireCode(t, whDo(t, other, "POST", "/webhooks/"+w.ID+"/deliveries/"+abandoned[0].ID+"/retry", nil), 404, "not_found")
	requireCode(t, whDo(t, other, "PATCH", "/webhooks/"+w.ID, map[string]any{"max_per_second": 5}), 404, "not_found")
	own := whCreate(t, other, rcv.URL("/other"), "member.joined")
	requireCode(t, whDo(t, other, "POST", "/webhooks/"+own.ID+"/deliveries/"+abandoned[0].ID+"/retry", nil), 404, "not_found")
	requireCode(t, whDo(t, api, "POST", "/webhooks/"+w.ID+"/deliveries/dlv_nosuch/retry", nil), 404, "not_found")
	for _, q := range []string{"status=bogus", "status=", "status=ABANDONED", "limit=0", "limit=201", "offset=-1"} {
		requireCode(t, whDo(t, api, "GET", "/webhooks/"+w.ID+"/deliveries?"+q, nil), 400, "invalid_request")
	}
	for _, body := range []any{map[string]any{}, map[string]any{"since": "yesterday"}, map[string]any{"since": "2026-11-24"},
		map[string]any{"since": nil}, map[string]any{"since": 1700000000}} {
		r := whDo(t, api, "POST", "/webhooks/"+w.ID+"/recover", body)
		require.Equal(t, 400, r.Status, "%v: %s", body, r.Body)
	}
	requireCode(t, whDo(t, api, "POST", "/webhooks/"+w.ID+"/recover", map[string]any{"since": start.Format(time.RFC3339), "until": "x"}), 400, "unknown_field")
	require.Len(t, whDeliveries(t, api, w.ID, "abandoned"), 3, "nothing changed")

	// Up again, turned on, recovered from before the first event.
	rcv.SetStatus(http.StatusOK)
	before := len(rcv.Requests(""))
	require.NoError(t, h.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/webhooks/"+w.ID+"/enable", map[string]any{"member_id": f.CoachID}, nil))
	var rec struct {
		Requeued int       `json:"requeued"`
		Since    time.Time `json:"since"`
	}
	// A since after every event recovers nothing.
	require.NoError(t, api.Expect(ctx, 202, "POST", "/webhooks/"+w.ID+"/recover", map[string]any{"since": h.advance(t, 0).Add(time.Hour).Format(time.RFC3339)}, &rec))
	require.Zero(t, rec.Requeued)
	require.NoError(t, api.Expect(ctx, 202, "POST", "/webhooks/"+w.ID+"/recover", map[string]any{"since": start.Add(-time.Second).Format(time.RFC3339Nano)}, &rec))
	require.Equal(t, 8, rec.Requeued)

	waitFor(t, 30*time.Second, func() bool { return len(whDeliveries(t, api, w.ID, "delivered")) == 8 })
	got := rcv.Requests("")[before:]
	require.Len(t, got, 8, "every event exactly once")
	now := h.advance(t, 0)
	for i, g := range got {
		require.Equal(t, 200, g.Status)
		require.Equal(t, members[i], memberOf(t, g), "in the order the events happened")
		require.NoError(t, stripewebhook.ValidatePayloadIgnoringTolerance(g.Body, g.Header.Get("X-Service-Signature"), w.Secret), "signed")
		whVerifySignature(t, w.Secret, g, now)
	}
	for _, d := range whDeliveries(t, api, w.ID, "delivered") {
		last := d.Attempts[len(d.Attempts)-1]
		require.True(t, last.Success)
		require.False(t, d.Queued)
		if len(d.Attempts) >= 6 {
			require.Equal(t, 7, last.Attempt, "an abandoned delivery's recovery is its seventh attempt")
		}
	}
	require.Equal(t, 0, whAdminGet(t, h.admin, f.TeamID, w.ID).ConsecutiveFailures)
	// Recovering again finds nothing left to recover.
	require.NoError(t, api.Expect(ctx, 202, "POST", "/webhooks/"+w.ID+"/recover", map[string]any{"since": start.Add(-time.Second).Format(time.RFC3339Nano)}, &rec))
	require.Zero(t, rec.Requeued)

	// Retry: a delivered delivery is sent again at once, signed afresh
	// (with both secrets during a rotation's overlap); a pending one is 409.
	var rotated whHook
	require.NoError(t, api.Expect(ctx, 200, "POST", "/webhooks/"+w.ID+"/rotate-secret", nil, &rotated))
	target := whDeliveries(t, api, w.ID, "delivered")[0]
	var retried whDelivery
	require.NoError(t, api.Expect(ctx, 202, "POST", "/webhooks/"+w.ID+"/deliveries/"+target.ID+"/retry", nil, &retried))
	require.Equal(t, target.ID, retried.ID)
	require.Equal(t, "pending", retried.Status)
	waitFor(t, 30*time.Second, func() bool { return len(rcv.Requests("")) == before+9 })
	again := rcv.Requests("")[before+8]
	require.Equal(t, target.ID, again.Header.Get("X-Service-Delivery"), "the same delivery id")
	require.Equal(t, 2, strings.Count(again.Header.Get("X-Service-Signature"), "v1="))
	require.NoError(t, stripewebhook.ValidatePayloadIgnoringTolerance(again.Body, again.Header.Get("X-Service-Signature"), w.Secret))
	require.NoError(t, stripewebhook.ValidatePayloadIgnoringTolerance(again.Body, again.Header.Get("X-Service-Signature"), rotated.Secret))
	waitFor(t, 30*time.Second, func() bool { return len(whDeliveries(t, api, w.ID, "delivered")) == 8 })

	// A delivery still pending cannot be retried: its next attempt is planned.
	rcv.SetStatus(http.StatusServiceUnavailable)
	whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Pending Pat", "phone": "2025550799"})
	var failed []whDelivery
	waitFor(t, 30*time.Second, func() bool { failed = whDeliveries(t, api, w.ID, "failed"); return len(failed) == 1 })
	require.NotNil(t, failed[0].NextAttemptAt)
	requireCode(t, whDo(t, api, "POST", "/webhooks/"+w.ID+"/deliveries/"+failed[0].ID+"/retry", nil), 409, "conflict")

	// The admin lists the same deliveries.
	var adminList []whDelivery
	require.NoError(t, h.admin.Expect(ctx, 200, "GET", "/teams/"+f.TeamID+"/webhooks/"+w.ID+"/deliveries?status=delivered&limit=200", nil, &adminList))
	require.Len(t, adminList, 8)
}

// TestWebhookThrottle: with max_per_second N, a backlog of
// events reaches the receiver at N a second: over 30 s, counted by the
// receiver's own clock, within 10% of 30·N. Waiting is not a failure:
// every attempt succeeded and the failure count stays 0. Bad throttles are
// 400 on create, on change and in the admin API.
func TestWebhookThrottle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rcv := newReceiver(t)
	h := startHookService(t, "wh_throttle", rcv)
	f, api := h.team(t)

	for _, bad := range []any{0, -1, 101, 1 << 40, 2.5, "10", true} {
		r := whDo(t, api, "POST", "/webhooks", map[string]any{"url": rcv.URL("/x"), "events": []string{"member.joined"}, "max_per_second": bad})
		require.Equal(t, 400, r.Status, "%v: %s", bad, r.Body)
	}
	var w struct {
		whHook
		MaxPerSecond *int `json:"max_per_second"`
	}
	require.NoError(t, api.Expect(ctx, 201, "POST", "/webhooks", map[string]any{"url": rcv.URL("/throttle"), "events": []string{"member.joined"}, "max_per_second": 50}, &w))
	require.Equal(t, 50, *w.MaxPerSecond)
	var got struct {
		MaxPerSecond *int `json:"max_per_second"`
	}
	var list []struct {
		MaxPerSecond *int `json:"max_per_second"`
	}
	require.NoError(t, api.Expect(ctx, 200, "GET", "/webhooks", nil, &list))
	require.Equal(t, 50, *list[0].MaxPerSecond)
	require.Nil(t, whAdminGet(t, h.admin, f.TeamID, w.ID).DisabledReason)
	for _, bad := range []any{0, -3, 101, 1e12, "5"} {
		requireCode(t, whDo(t, api, "PATCH", "/webhooks/"+w.ID, map[string]any{"max_per_second": bad}), 400, "invalid_request")
		r, err := h.admin.Do(ctx, "PATCH", "/teams/"+f.TeamID+"/webhooks/"+w.ID, map[string]any{"max_per_second": bad})
		require.NoError(t, err)
		requireCode(t, r, 400, "invalid_request")
	}
	requireCode(t, whDo(t, api, "PATCH", "/webhooks/"+w.ID, map[string]any{}), 400, "invalid_request")
	require.NoError(t, api.Expect(ctx, 200, "PATCH", "/webhooks/"+w.ID, map[string]any{"max_per_second": nil}, &got))
	require.Nil(t, got.MaxPerSecond)
	const n = 10
	require.NoError(t, h.admin.Expect(ctx, 200, "PATCH", "/teams/"+f.TeamID+"/webhooks/"+w.ID, map[string]any{"max_per_second": n}, &got))
	require.Equal(t, n, *got.MaxPerSecond)

	// A backlog of 40 s at N a second, made in a few seconds by the admin's
	// test events (each goes to this webhook only).
	const events = 400
	var wg sync.WaitGroup
	var made atomic.Int64
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < events; i += 8 {
				r, err := h.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/webhooks/"+w.ID+"/test", map[string]any{"message": fmt.Sprint(i)})
				if err == nil && r.Status == 200 {
					made.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	require.EqualValues(t, events, made.Load())

	const window = 30 * time.Second
	var first time.Time
	waitFor(t, 10*time.Second, func() bool { return len(rcv.Requests("")) > 0 })
	first = rcv.Requests("")[0].At
	waitFor(t, window+15*time.Second, func() bool {
		a := rcv.Requests("")
		return a[len(a)-1].At.Sub(first) >= window
	})
	in, perSecond := 0, map[int]int{}
	var gaps []time.Duration
	for i, g := range rcv.Requests("") {
		if g.At.Before(first.Add(window)) {
			in++
			perSecond[int(g.At.Sub(first)/time.Second)]++
		}
		if i > 0 {
			gaps = append(gaps, g.At.Sub(rcv.Requests("")[i-1].At))
		}
		require.Equal(t, 200, g.Status)
	}
	slices.Sort(gaps)
	t.Logf("gaps between arrivals: min %s, p50 %s, p99 %s, max %s; per second: %v", gaps[0], gaps[len(gaps)/2],
		gaps[len(gaps)*99/100], gaps[len(gaps)-1], perSecond)
	want := n * int(window/time.Second)
	t.Logf("received %d in %s at max_per_second %d (want %d ± 10%%)", in, window, n, want)
	require.InDelta(t, want, in, float64(want)/10, "the throttle holds within 10%% over 30 s")

	// Waiting is not failing: nothing failed, nothing counted, the rest queued.
	hook := whAdminGet(t, h.admin, f.TeamID, w.ID)
	require.True(t, hook.Enabled)
	require.Zero(t, hook.ConsecutiveFailures)
	pending := whDeliveries(t, api, w.ID, "pending")
	require.NotEmpty(t, pending, "the rest of the backlog waits its turn")
	for _, d := range pending {
		require.Empty(t, d.Attempts, "waiting is not an attempt")
	}
	require.Empty(t, whDeliveries(t, api, w.ID, "failed"))
	// The backlog shows in the metrics.
	backlog, err := harness.Metric(ctx, h.svc.AdminURL, "teamtext_webhook_queued_deliveries")
	require.NoError(t, err)
	require.Greater(t, backlog, 0.0, "teamtext_webhook_queued_deliveries")
	// Deleting the webhook drops its queue.
	require.NoError(t, api.Expect(ctx, 200, "DELETE", "/webhooks/"+w.ID, nil, nil))
}
