package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// publicHook is a public address that no test publishes events to.
const publicHook = "https://93.184.216.34/hooks/teamtext"

// TestWebhookCreateListDelete: the public API's three operations with
// every error code they own, on the shared service.
func TestWebhookCreateListDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f, api := newTeam(t, harness.TeamOptions{})

	w := whCreate(t, api, publicHook, "member.opted_in", "member.opted_in", "message.received")
	require.True(t, strings.HasPrefix(w.Secret, "whsec_"), w.Secret)
	require.Equal(t, publicHook, w.URL)
	require.Equal(t, []string{"member.opted_in", "message.received"}, w.Events)
	require.True(t, w.Enabled)
	require.Nil(t, w.DisabledReason)
	require.Equal(t, "api", w.Source)
	require.Equal(t, f.CoachID, w.CreatedBy)
	require.False(t, w.CreatedAt.IsZero())

	// The list never carries a secret.
	r := whDo(t, api, "GET", "/webhooks", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NotContains(t, string(r.Body), "secret")
	require.NotContains(t, string(r.Body), w.Secret)
	var list []whHook
	require.NoError(t, r.Data(&list))
	require.Len(t, list, 1)
	require.Equal(t, w.ID, list[0].ID)
	var page struct {
		Pagination map[string]any `json:"pagination"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &page))
	require.Equal(t, false, page.Pagination["has_more"])

	for name, body := range map[string]map[string]any{
		"no events":      {"url": publicHook},
		"empty events":   {"url": publicHook, "events": []string{}},
		"unknown event":  {"url": publicHook, "events": []string{"member.left"}},
		"webhook.test":   {"url": publicHook, "events": []string{"webhook.test"}},
		"test among ok":  {"url": publicHook, "events": []string{"member.joined", "webhook.test"}},
		"wrong case":     {"url": publicHook, "events": []string{"Member.Joined"}},
		"empty string":   {"url": publicHook, "events": []string{""}},
		"a star is none": {"url": publicHook, "events": []string{"*"}},
	} {
		r := whDo(t, api, "POST", "/webhooks", body)
		require.Equal(t, 400, r.Status, "%s: %s", name, r.Body)
		require.Equal(t, "invalid_events", r.ErrorCode(), "%s: %s", name, r.Body)
	}
	for _, url := range []string{"", "http://93.184.216.34/hook", "ftp://93.184.216.34/", "93.184.216.34/hook",
		"https://", "https://user:secret@93.184.216.34/", "https://93.184.216.34:70000/", "https://93.184.216.34:0/",
		"https://exa mple.com/", "https://134744072/", "https://256.0.0.1/", "https://no-such-host.invalid/hook",
		"https://" + strings.Repeat("a", 64) + ".com/"} {
		body := map[string]any{"events": []string{"member.joined"}}
		if url != "" {
			body["url"] = url
		}
		r := whDo(t, api, "POST", "/webhooks", body)
		require.Equal(t, 400, r.Status, "%q: %s", url, r.Body)
		require.Equal(t, "invalid_url", r.ErrorCode(), "%q: %s", url, r.Body)
	}
	requireCode(t, whDo(t, api, "POST", "/webhooks", map[string]any{"url": publicHook, "events": []string{"member.joined"}, "secret": "mine"}), 400, "unknown_field")

	// Up to 25 per team; the 26th is webhook_limit.
	for i := 2; i <= 25; i++ {
		whCreate(t, api, fmt.Sprintf("%s/%d", publicHook, i), "member.opted_in")
	}
	requireCode(t, whDo(t, api, "POST", "/webhooks", map[string]any{"url": publicHook + "/26", "events": []string{"member.opted_in"}}), 409, "webhook_limit")
	r = whDo(t, api, "GET", "/webhooks?limit=10&offset=20", nil)
	require.NoError(t, r.Data(&list))
	require.Len(t, list, 5)

	// Delete answers the webhook; a second delete, and another team's id, are 404.
	var gone whHook
	require.NoError(t, api.Expect(ctx, 200, "DELETE", "/webhooks/"+w.ID, nil, &gone))
	require.Equal(t, w.ID, gone.ID)
	require.Empty(t, gone.Secret)
	requireCode(t, whDo(t, api, "DELETE", "/webhooks/"+w.ID, nil), 404, "not_found")
	whCreate(t, api, publicHook+"/again", "member.opted_in") // room again after a delete

	g, gapi := newTeam(t, harness.TeamOptions{})
	other := whCreate(t, gapi, publicHook, "member.opted_in")
	requireCode(t, whDo(t, api, "DELETE", "/webhooks/"+other.ID, nil), 404, "not_found")
	for _, p := range []string{"", "/attempts"} {
		r, err := env.admin.Do(ctx, "GET", "/teams/"+f.TeamID+"/webhooks/"+other.ID+p, nil)
		require.NoError(t, err)
		requireCode(t, r, 404, "not_found")
	}
	for p, body := range map[string]any{"/test": nil, "/enable": map[string]any{"member_id": f.CoachID}} {
		r, err := env.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/webhooks/"+other.ID+p, body)
		require.NoError(t, err)
		requireCode(t, r, 404, "not_found")
	}
	require.Equal(t, other.ID, whAdminGet(t, env.admin, g.TeamID, other.ID).ID)

	// Below Team Plus and without a card: listing and creating are refused,
	// deleting is allowed.
	patchTeam(t, g.TeamID, map[string]any{"plan": "team", "card_on_file": false})
	requireCode(t, whDo(t, gapi, "GET", "/webhooks", nil), 403, "plan_required")
	requireCode(t, whDo(t, gapi, "POST", "/webhooks", map[string]any{"url": publicHook, "events": []string{"member.joined"}}), 403, "plan_required")
	require.NoError(t, gapi.Expect(ctx, 200, "DELETE", "/webhooks/"+other.ID, nil, nil))
	requireCode(t, whDo(t, gapi, "DELETE", "/webhooks/"+other.ID, nil), 404, "not_found")
}

// TestWebhookBlockedURLs: every hostile form is blocked_url at save time.
func TestWebhookBlockedURLs(t *testing.T) {
	t.Parallel()
	_, api := newTeam(t, harness.TeamOptions{})
	hostile := []string{
		"https://127.0.0.1/", "https://127.0.0.1:8443/hook", "https://127.1/", "https://2130706433/",
		"https://0177.0.0.1/", "https://0x7f000001/", "https://0x7f.0.0.1/", "https://017700000001/",
		"https://0.0.0.0/", "https://0/", "https://10.0.0.1/", "https://10.1/", "https://172.16.0.1/",
		"https://192.168.0.1/", "https://169.254.169.254/latest/meta-data/", "https://100.64.0.1/",
		"https://192.0.0.1/", "https://192.0.2.1/", "https://198.51.100.1/", "https://203.0.113.1/",
		"https://198.18.0.1/", "https://224.0.0.1/", "https://240.0.0.1/", "https://255.255.255.255/",
		"https://[::1]/", "https://[::]/", "https://[fe80::1]/", "https://[fe80::1%25eth0]/", "https://[fc00::1]/",
		"https://[fd00:ec2::254]/", "https://[ff02::1]/", "https://[::ffff:127.0.0.1]/", "https://[::ffff:7f00:1]/",
		"https://[::ffff:169.254.169.254]/", "https://[64:ff9b::a9fe:a9fe]/", "https://[2002:7f00:1::]/",
		"https://[2001:db8::1]/", "https://localhost/", "https://localhost:8443/", "https://api.localhost/",
	}
	require.GreaterOrEqual(t, len(hostile), 30)
	for _, url := range hostile {
		r := whDo(t, api, "POST", "/webhooks", map[string]any{"url": url, "events": []string{"member.joined"}})
		require.Equal(t, 400, r.Status, "%s: %s", url, r.Body)
		require.Equal(t, "blocked_url", r.ErrorCode(), "%s: %s", url, r.Body)
	}
}

// TestWebhookDNS: names are resolved at save time (through
// WEBHOOK_DNS_SERVER, a test server here): a private answer is
// blocked_url, no name is invalid_url, no answer at once is 503 dns_busy;
// a name that rebinds to loopback after the save is refused at dial time.
func TestWebhookDNS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rcv := newReceiver(t)
	dns := newWhDNS(t, func(name string, n int) ([]string, bool, bool) {
		switch name {
		case "public.hooks.test":
			return []string{"93.184.216.34"}, true, false
		case "internal.hooks.test":
			return []string{"127.0.0.1"}, true, false
		case "mixed.hooks.test":
			return []string{"93.184.216.34", "10.0.0.5"}, true, false
		case "mapped.hooks.test":
			return []string{"::ffff:192.168.1.1"}, true, false
		case "slow.hooks.test":
			return nil, true, true
		case "example.com": // public when saved, loopback when dialled
			if n == 0 {
				return []string{"93.184.216.34"}, true, false
			}
			return []string{"127.0.0.1"}, true, false
		}
		return nil, false, false
	})
	// No allowlist: loopback is off limits, as in production.
	h := &hookService{url: freshDatabase(t, "wh_dns"), env: []string{"WEBHOOK_DNS_SERVER=" + dns.addr(), "WEBHOOK_CA_FILE=" + rcv.PEM()}}
	h.start(t)
	f, api := h.team(t)
	post := func(url string) *harness.Response {
		r, err := api.Do(ctx, "POST", "/webhooks", map[string]any{"url": url, "events": []string{"member.joined"}})
		require.NoError(t, err)
		return r
	}
	requireCode(t, post("https://internal.hooks.test/"), 400, "blocked_url")
	requireCode(t, post("https://mixed.hooks.test/"), 400, "blocked_url")
	requireCode(t, post("https://mapped.hooks.test/"), 400, "blocked_url")
	requireCode(t, post("https://nowhere.hooks.test/"), 400, "invalid_url")
	busy := post("https://slow.hooks.test/")
	requireCode(t, busy, 503, "dns_busy")
	require.Equal(t, "60", busy.Header.Get("Retry-After"))
	require.Equal(t, 201, post("https://public.hooks.test/hook").Status)

	w := whCreate(t, api, "https://example.com:"+receiverPort(rcv)+"/rebind", "member.joined")
	require.Equal(t, 1, dns.aQueries("example.com"))
	whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Rebind Probe", "phone": "2025550101"})
	as := whWaitAttempts(t, h.admin, f.TeamID, w.ID, 1)
	require.False(t, as[0].Success)
	require.Nil(t, as[0].StatusCode)
	require.NotNil(t, as[0].Error)
	require.Contains(t, *as[0].Error, "refused")
	require.GreaterOrEqual(t, dns.aQueries("example.com"), 2, "resolved again when dialling")
	require.Empty(t, rcv.Requests(""), "the loopback receiver never heard from the service")
}

// TestWebhookDelivery: a real HTTPS receiver gets the stored envelope,
// signed (verified here independently), one delivery per webhook with its
// own delivery id; test events go to one webhook; redirects are not followed.
func TestWebhookDelivery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rcv := newReceiver(t)
	dns := newWhDNS(t, func(name string, _ int) ([]string, bool, bool) {
		if name == "example.com" { // a public name... that redirects to the metadata address
			return []string{"127.0.0.1"}, true, false
		}
		return nil, false, false
	})
	h := startHookService(t, "wh_delivery", rcv, "WEBHOOK_DNS_SERVER="+dns.addr())
	f, api := h.team(t)
	a := whCreate(t, api, rcv.URL("/a"), "member.joined")
	b := whCreate(t, api, rcv.URL("/b"), "member.joined", "member.opted_out")
	c := whCreate(t, api, "https://example.com:"+receiverPort(rcv)+"/redirect", "member.joined")
	whCreate(t, api, rcv.URL("/other"), "message.status") // not subscribed: gets nothing

	memberID := whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Ada Lovelace", "phone": "(202) 555-0110", "email": "ada@example.com"})
	ra := waitRequests(t, rcv, "/a", 1)[0]
	rb := waitRequests(t, rcv, "/b", 1)[0]
	now := time.Now()

	for _, x := range []struct {
		req    harness.Hook
		secret string
	}{{ra, a.Secret}, {rb, b.Secret}} {
		require.Equal(t, "application/json", x.req.Header.Get("Content-Type"))
		require.Equal(t, "member.joined", x.req.Header.Get("X-Service-Event"))
		require.NotEmpty(t, x.req.Header.Get("X-Service-Delivery"))
		whVerifySignature(t, x.secret, x.req, now)
	}
	require.NotEqual(t, ra.Header.Get("X-Service-Delivery"), rb.Header.Get("X-Service-Delivery"), "one delivery id per webhook")
	require.Equal(t, ra.Body, rb.Body, "the stored envelope, byte for byte")

	env1 := envelope(t, ra)
	require.True(t, strings.HasPrefix(env1.ID, "evt_"), env1.ID)
	require.Equal(t, "member.joined", env1.Type)
	require.Regexp(t, regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`), env1.CreatedAt)
	require.Equal(t, f.TeamID, env1.Team.ID)
	require.NotEmpty(t, env1.Team.Code)
	var data struct {
		Member map[string]any `json:"member"`
	}
	require.NoError(t, json.Unmarshal(env1.Data, &data))
	require.Equal(t, memberID, data.Member["id"])
	require.Equal(t, "+12025550110", data.Member["phone"])
	for _, k := range []string{"name", "email", "role", "status", "is_blocked", "created_at"} {
		require.Contains(t, data.Member, k)
	}

	// The attempts log: success, 200, the same ids the receiver saw.
	as := whWaitAttempts(t, h.admin, f.TeamID, a.ID, 1)
	require.True(t, as[0].Success)
	require.Equal(t, 200, *as[0].StatusCode)
	require.Nil(t, as[0].Error)
	require.Nil(t, as[0].NextAttemptAt)
	require.Equal(t, env1.ID, as[0].EventID)
	require.Equal(t, ra.Header.Get("X-Service-Delivery"), as[0].DeliveryID)

	// The redirect is the answer: a failure, recorded, and not followed.
	cs := whWaitAttempts(t, h.admin, f.TeamID, c.ID, 1)
	require.False(t, cs[0].Success)
	require.Equal(t, http.StatusFound, *cs[0].StatusCode)
	require.Contains(t, *cs[0].Error, "redirect")
	require.NotNil(t, cs[0].NextAttemptAt, "retried later, like any failure")
	require.WithinDuration(t, cs[0].AttemptedAt.Add(time.Minute), *cs[0].NextAttemptAt, 5*time.Second)
	require.Len(t, rcv.Requests("/redirect"), 1)

	// A pending member approved joins too: a second event, new ids.
	var pending struct {
		ID string `json:"id"`
	}
	require.NoError(t, h.admin.Expect(ctx, 201, "POST", "/teams/"+f.TeamID+"/members",
		map[string]any{"name": "Pending Pat", "phone": "2025550111", "role": "guardian", "status": "pending"}, &pending))
	require.NoError(t, h.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/members/"+pending.ID+"/approve", nil, nil))
	ra2 := waitRequests(t, rcv, "/a", 2)[1]
	env2 := envelope(t, ra2)
	require.NotEqual(t, env1.ID, env2.ID)
	require.NotEqual(t, ra.Header.Get("X-Service-Delivery"), ra2.Header.Get("X-Service-Delivery"))
	require.Contains(t, string(env2.Data), pending.ID)

	// webhook.test goes to that webhook only. (First the second member.joined
	// must have reached b: deliveries are concurrent jobs, so on a busy machine
	// it could otherwise arrive after the test event.)
	waitRequests(t, rcv, "/b", 2)
	var sent struct {
		EventID    string `json:"event_id"`
		DeliveryID string `json:"delivery_id"`
		Skipped    bool   `json:"skipped"`
	}
	require.NoError(t, h.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/webhooks/"+b.ID+"/test", map[string]any{"message": "hello from the dashboard"}, &sent))
	require.False(t, sent.Skipped)
	rt := waitRequests(t, rcv, "/b", 3)[2]
	require.Equal(t, "webhook.test", rt.Header.Get("X-Service-Event"))
	require.Equal(t, sent.DeliveryID, rt.Header.Get("X-Service-Delivery"))
	et := envelope(t, rt)
	require.Equal(t, sent.EventID, et.ID)
	require.JSONEq(t, `{"message":"hello from the dashboard"}`, string(et.Data))
	whVerifySignature(t, b.Secret, rt, time.Now())
	require.Equal(t, "0", whQuery(t, "wh_delivery", "SELECT count(*) FROM webhook_deliveries WHERE event_id = '"+sent.EventID+"' AND webhook_id <> '"+b.ID+"'"))
	require.Len(t, rcv.Requests("/a"), 2, "the test event went to b only")
	require.Empty(t, rcv.Requests("/other"))
}

// TestWebhookRetrySchedule: a failing receiver gets attempts at 0, 1 min,
// 6 min, 36 min, 2 h 36 min and 14 h 36 min of the test clock, never
// early, each signed afresh, one delivery id throughout; then nothing.
func TestWebhookRetrySchedule(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t)
	rcv.SetStatus(http.StatusInternalServerError)
	h := startHookService(t, "wh_retry", rcv, "CLOCK=test")
	f, api := h.team(t)
	w := whCreate(t, api, rcv.URL("/fail"), "member.joined")
	whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Retry Rita", "phone": "2025550120"})

	gaps := []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 12 * time.Hour}
	as := whWaitAttempts(t, h.admin, f.TeamID, w.ID, 1)
	for i, gap := range gaps {
		require.NotNil(t, as[0].NextAttemptAt, "attempt %d schedules a retry", i+1)
		wait := as[0].NextAttemptAt.Sub(as[0].AttemptedAt)
		require.GreaterOrEqual(t, wait, gap, "gap after attempt %d", i+1)
		require.Less(t, wait, gap+5*time.Second, "gap after attempt %d", i+1)
		h.advance(t, gap+2*time.Second)
		as = whWaitAttempts(t, h.admin, f.TeamID, w.ID, i+2)
	}
	require.Len(t, as, 6)
	require.Nil(t, as[0].NextAttemptAt, "abandoned after the sixth attempt")

	reqs := rcv.Requests("/fail")
	require.Len(t, reqs, 6)
	offsets := []time.Duration{0, time.Minute, 6 * time.Minute, 36 * time.Minute, 2*time.Hour + 36*time.Minute, 14*time.Hour + 36*time.Minute}
	first := as[5].AttemptedAt
	var lastT int64
	for i := range 6 {
		a := as[5-i] // newest first
		require.Equal(t, i+1, a.Attempt)
		require.False(t, a.Success)
		require.Equal(t, 500, *a.StatusCode)
		require.Equal(t, as[5].DeliveryID, a.DeliveryID, "a retry keeps its delivery id")
		require.Equal(t, a.DeliveryID, reqs[i].Header.Get("X-Service-Delivery"))
		at := a.AttemptedAt.Sub(first)
		require.GreaterOrEqual(t, at, offsets[i], "attempt %d is never early", i+1)
		require.Less(t, at, offsets[i]+time.Duration(i+1)*time.Minute, "attempt %d is late by little", i+1)
		ts := whVerifySignature(t, w.Secret, reqs[i], a.AttemptedAt)
		require.Equal(t, a.AttemptedAt.Unix(), ts, "signed with the attempt's time")
		require.Greater(t, ts, lastT, "each retry signed afresh")
		lastT = ts
	}
	require.Equal(t, "abandoned", whQuery(t, "wh_retry", "SELECT state FROM webhook_deliveries WHERE id = '"+as[0].DeliveryID+"'"))
	// The last attempt is recorded inside the job; River marks the job done
	// just after (its completer batches), so wait for that.
	waitFor(t, 10*time.Second, func() bool {
		return whQuery(t, "wh_retry", "SELECT count(*) FROM river_job WHERE kind = 'webhooks.deliver' AND state NOT IN ('completed', 'discarded', 'cancelled')") == "0"
	})
}

// TestWebhookAutoDisable: the 20th failed attempt in a row, across
// deliveries, turns the webhook off and e-mails the head coaches and team
// directors; another key owner turns it back on and becomes its owner.
func TestWebhookAutoDisable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rcv := newReceiver(t)
	rcv.SetStatus(http.StatusServiceUnavailable)
	h := startHookService(t, "wh_disable", rcv)
	f, api := h.team(t)
	coach2 := whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Second Coach", "phone": "2025550130", "role": "head_coach", "email": "coach2@example.com"})
	director := whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Team Director", "phone": "2025550131", "role": "team_director", "email": "director@example.com"})
	whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Assistant", "phone": "2025550132", "role": "coach", "email": "assistant@example.com"})
	w := whCreate(t, api, rcv.URL("/down"), "member.joined")

	for i := 1; i <= 19; i++ {
		whJoin(t, h.admin, f.TeamID, map[string]any{"name": fmt.Sprintf("Athlete %d", i), "phone": fmt.Sprintf("20255502%02d", i)})
	}
	whWaitAttempts(t, h.admin, f.TeamID, w.ID, 19)
	got := whAdminGet(t, h.admin, f.TeamID, w.ID)
	require.True(t, got.Enabled, "19 failures in a row leave it on")
	require.Equal(t, 19, got.ConsecutiveFailures)

	whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Athlete 20", "phone": "2025550220"})
	waitFor(t, 30*time.Second, func() bool { return !whAdminGet(t, h.admin, f.TeamID, w.ID).Enabled })
	got = whAdminGet(t, h.admin, f.TeamID, w.ID)
	require.Equal(t, "consecutive_failures", *got.DisabledReason)
	require.Equal(t, 20, got.ConsecutiveFailures)
	require.Len(t, whAttempts(t, h.admin, f.TeamID, w.ID), 20)
	require.Len(t, rcv.Requests("/down"), 20)

	// The e-mail, recorded for each head coach and team director.
	var notes []struct {
		MemberID  string    `json:"member_id"`
		To        string    `json:"to"`
		Subject   string    `json:"subject"`
		Body      string    `json:"body"`
		Status    string    `json:"status"`
		CreatedAt time.Time `json:"created_at"`
	}
	require.NoError(t, h.admin.Expect(ctx, 200, "GET", "/teams/"+f.TeamID+"/notifications", nil, &notes))
	to := map[string]string{}
	for _, n := range notes {
		to[n.MemberID] = n.To + " " + n.Status
		require.Contains(t, n.Subject, "turned off")
		require.Contains(t, n.Body, w.ID)
		require.False(t, n.CreatedAt.IsZero())
	}
	require.Equal(t, map[string]string{
		coach2: "coach2@example.com recorded", director: "director@example.com recorded", f.CoachID: " no_address",
	}, to, "head coaches and team directors only; the assistant coach gets none")

	// Off means off: no delivery is made for new events, and no test.
	whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Late Joiner", "phone": "2025550141"})
	require.Equal(t, "20", whQuery(t, "wh_disable", "SELECT count(*) FROM webhook_deliveries WHERE webhook_id = '"+w.ID+"'"))
	r, err := h.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/webhooks/"+w.ID+"/test", nil)
	require.NoError(t, err)
	requireCode(t, r, 409, "conflict")

	// Turned on again by a key owner, who becomes its owner; an athlete cannot.
	athlete := whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Not Staff", "phone": "2025550142"})
	r, err = h.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/webhooks/"+w.ID+"/enable", map[string]any{"member_id": athlete})
	require.NoError(t, err)
	requireCode(t, r, 403, "forbidden")
	var on whHook
	require.NoError(t, h.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/webhooks/"+w.ID+"/enable", map[string]any{"member_id": coach2}, &on))
	require.True(t, on.Enabled)
	require.Nil(t, on.DisabledReason)
	require.Equal(t, coach2, on.OwnerID)
	require.Zero(t, on.ConsecutiveFailures)
	rcv.SetStatus(http.StatusNoContent)
	require.NoError(t, h.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/webhooks/"+w.ID+"/test", nil, nil))
	as := whWaitAttempts(t, h.admin, f.TeamID, w.ID, 21)
	require.True(t, as[0].Success)
	require.Equal(t, 204, *as[0].StatusCode)
}

// TestWebhookSkippedBelowTeamPlus: an event that happens while the team is
// below Team Plus is stored as skipped and never sent, even after the
// upgrade; later events are.
func TestWebhookSkippedBelowTeamPlus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rcv := newReceiver(t)
	h := startHookService(t, "wh_skipped", rcv)
	f, api := h.team(t)
	w := whCreate(t, api, rcv.URL("/hook"), "member.joined")
	require.NoError(t, h.admin.Expect(ctx, 200, "PATCH", "/teams/"+f.TeamID, map[string]any{"plan": "team"}, nil))
	skipped := whJoin(t, h.admin, f.TeamID, map[string]any{"name": "While Downgraded", "phone": "2025550150"})
	var test struct {
		EventID string `json:"event_id"`
		Skipped bool   `json:"skipped"`
	}
	require.NoError(t, h.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/webhooks/"+w.ID+"/test", nil, &test))
	require.True(t, test.Skipped)
	require.NoError(t, h.admin.Expect(ctx, 200, "PATCH", "/teams/"+f.TeamID, map[string]any{"plan": "team_plus_season"}, nil))
	sent := whJoin(t, h.admin, f.TeamID, map[string]any{"name": "After Upgrade", "phone": "2025550151"})

	r := waitRequests(t, rcv, "/hook", 1)[0]
	require.Contains(t, string(envelope(t, r).Data), sent)
	// Both skipped events are on record, with no delivery, and a later test
	// event overtakes them: they are never sent.
	require.Equal(t, "2", whQuery(t, "wh_skipped", "SELECT count(*) FROM webhook_events e WHERE team_id = '"+f.TeamID+
		"' AND skipped AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)"))
	require.NoError(t, h.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/webhooks/"+w.ID+"/test", nil, nil))
	reqs := waitRequests(t, rcv, "/hook", 2)
	require.Len(t, reqs, 2)
	for _, q := range reqs {
		require.NotContains(t, string(q.Body), skipped)
		require.NotEqual(t, test.EventID, envelope(t, q).ID)
	}
}

// TestWebhookCrashLosesNothing: the event commits, the service is killed
// (SIGKILL) before any attempt, and the restarted service delivers it. The
// window between commit and delivery is held open by pausing the
// deliveries' River queue (River's own API) for the first process's whole
// life.
func TestWebhookCrashLosesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rcv := newReceiver(t)
	h := &hookService{url: freshDatabase(t, "wh_crash")}
	h.env = harness.ReceiverEnv(rcv.PEM())
	psql(t, "wh_crash", "INSERT INTO river_queue (name, created_at, metadata, paused_at, updated_at) VALUES ('webhooks', now(), '{}', now(), now())")
	h.start(t)
	f, api := h.team(t)
	w := whCreate(t, api, rcv.URL("/hook"), "member.joined")
	memberID := whJoin(t, h.admin, f.TeamID, map[string]any{"name": "Crash Test", "phone": "2025550160"})
	require.Equal(t, "pending 0", whQuery(t, "wh_crash", "SELECT state || ' ' || attempts FROM webhook_deliveries WHERE webhook_id = '"+w.ID+"'"),
		"committed, not yet attempted")

	require.NoError(t, h.svc.Kill())
	h.start(t) // the queue is still paused: nothing is lost, nothing sent yet
	require.Empty(t, rcv.Requests(""))

	pool, err := pgxpool.New(ctx, h.url)
	require.NoError(t, err)
	defer pool.Close()
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	require.NoError(t, rc.QueueResume(ctx, "webhooks", nil)) // deliveries' own queue (WEBHOOK_WORKERS)

	r := waitRequests(t, rcv, "/hook", 1)[0]
	require.Contains(t, string(envelope(t, r).Data), memberID)
	whVerifySignature(t, w.Secret, r, time.Now())
	as := whWaitAttempts(t, h.admin, f.TeamID, w.ID, 1)
	require.True(t, as[0].Success)
	require.Equal(t, as[0].DeliveryID, r.Header.Get("X-Service-Delivery"))
}

// TestWebhookStateRules: a revoked key takes its webhooks with it; a
// dashboard-made webhook turns off when its creator stops being a key owner,
// and another head coach turns it on and becomes its owner.
func TestWebhookStateRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f, api := newTeam(t, harness.TeamOptions{})
	coach2 := whJoin(t, env.admin, f.TeamID, map[string]any{"name": "Coach Two", "phone": "2025550170", "role": "head_coach"})
	athlete := whJoin(t, env.admin, f.TeamID, map[string]any{"name": "Athlete", "phone": "2025550171"})
	byKey := whCreate(t, api, publicHook+"/k1", "member.opted_in")
	whCreate(t, api, publicHook+"/k2", "member.opted_in")

	// Dashboard-made, by coach2; an athlete cannot make one.
	r, err := env.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/webhooks", map[string]any{"url": publicHook + "/d", "events": []string{"member.opted_in"}, "member_id": athlete})
	require.NoError(t, err)
	requireCode(t, r, 403, "forbidden")
	var dash whHook
	require.NoError(t, env.admin.Expect(ctx, 201, "POST", "/teams/"+f.TeamID+"/webhooks",
		map[string]any{"url": publicHook + "/d", "events": []string{"member.opted_in"}, "member_id": coach2}, &dash))
	require.Equal(t, "dashboard", dash.Source)
	require.Equal(t, coach2, dash.CreatedBy)
	require.Nil(t, dash.KeyID)
	require.True(t, strings.HasPrefix(dash.Secret, "whsec_"))
	require.Equal(t, f.KeyID, *whAdminGet(t, env.admin, f.TeamID, byKey.ID).KeyID)
	r, err = env.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/webhooks", map[string]any{"url": "https://10.0.0.1/", "events": []string{"member.joined"}, "member_id": coach2})
	require.NoError(t, err)
	requireCode(t, r, 400, "blocked_url")

	// The key is revoked in the dashboard: its two webhooks go, the dashboard one stays.
	require.NoError(t, env.admin.Expect(ctx, 200, "DELETE", "/teams/"+f.TeamID+"/api-keys/"+f.KeyID, nil, nil))
	var left []whHook
	require.NoError(t, env.admin.Expect(ctx, 200, "GET", "/teams/"+f.TeamID+"/webhooks", nil, &left))
	require.Len(t, left, 1)
	require.Equal(t, dash.ID, left[0].ID)

	// coach2 is demoted: the dashboard webhook turns off (creator_inactive).
	patchMember(t, f, coach2, map[string]any{"role": "coach"})
	got := whAdminGet(t, env.admin, f.TeamID, dash.ID)
	require.False(t, got.Enabled)
	require.Equal(t, "creator_inactive", *got.DisabledReason)
	// coach2 cannot turn it on any more; the other head coach can, and owns it.
	r, err = env.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/webhooks/"+dash.ID+"/enable", map[string]any{"member_id": coach2})
	require.NoError(t, err)
	requireCode(t, r, 403, "forbidden")
	var on whHook
	require.NoError(t, env.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/webhooks/"+dash.ID+"/enable", map[string]any{"member_id": f.CoachID}, &on))
	require.True(t, on.Enabled)
	require.Nil(t, on.DisabledReason)
	require.Equal(t, f.CoachID, on.OwnerID)
	require.Equal(t, coach2, on.CreatedBy, "the creator stays on record")

	// The new owner loses broadcast permission: off again.
	patchMember(t, f, f.CoachID, map[string]any{"can_send_broadcasts": false})
	require.Equal(t, "creator_inactive", *whAdminGet(t, env.admin, f.TeamID, dash.ID).DisabledReason)
}
