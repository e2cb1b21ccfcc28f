package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/modules/messaging/fakes/twiliotest"
)

// The Twilio account of the e2e services run with CARRIER=twilio, and the
// public base URL they give Twilio to call back on.
const (
	twilioToken = "twiliotestauthtoken0123456789ab"
	twilioSID   = "AC0123456789abcdef0123456789abcdef"
	twilioBase  = "https://teamtext.example.test"
)

// startTwilioService starts a service on a database of its own (name: a
// Twilio service must not work other tests' jobs) whose carrier is the
// Twilio account above at apiURL; extraEnv is more of its environment.
// It returns the service and its database's URL.
func startTwilioService(t *testing.T, name, apiURL string, extraEnv ...string) (*harness.Service, string) {
	t.Helper()
	dbURL := freshDatabase(t, name)
	svc := startServiceOn(t, dbURL, append([]string{"CARRIER=twilio", "TWILIO_ACCOUNT_SID=" + twilioSID,
		"TWILIO_AUTH_TOKEN=" + twilioToken, "TWILIO_API_URL=" + apiURL, "PUBLIC_BASE_URL=" + twilioBase}, extraEnv...)...)
	return svc, dbURL
}

// postTwilioStatus posts to svc, signed as Twilio signs it, the status
// callback Twilio sends to cb (a callback URL the service gave it, on
// twilioBase) about its message messageSID to to, and requires 204.
func postTwilioStatus(t *testing.T, svc *harness.Service, cb, messageSID, to, twilioStatus, errorCode string) {
	t.Helper()
	require.True(t, strings.HasPrefix(cb, twilioBase+"/"), cb)
	form := url.Values{"MessageSid": {messageSID}, "AccountSid": {twilioSID}, "MessageStatus": {twilioStatus},
		"To": {to}, "From": {"+12025550100"}}
	if errorCode != "" {
		form.Set("ErrorCode", errorCode)
	}
	req, err := http.NewRequest("POST", svc.PublicURL+strings.TrimPrefix(cb, twilioBase), strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", twiliotest.Sign(twilioToken, cb, form))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 204, resp.StatusCode)
}

// TestTwilioInbound: a text arriving through Twilio's webhook with a valid
// signature is ingested like any other; a bad signature is refused and
// nothing is stored.
func TestTwilioInbound(t *testing.T) {
	t.Parallel()
	svc, dbURL := startTwilioService(t, "twilio_inbound", "http://127.0.0.1:9")
	admin := harness.NewClient(svc.AdminURL+"/admin/v1", harness.AdminToken)
	number := teamNumber()
	f, api := newTeamOn(t, admin, svc, harness.TeamOptions{Extra: map[string]any{"number": number}})
	addMember(t, api, map[string]any{"name": "Late Larry", "phone": "2025550601"})

	post := func(form url.Values, sig string) *http.Response {
		req, err := http.NewRequest("POST", svc.PublicURL+"/carrier/twilio/inbound", strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if sig != "" {
			req.Header.Set("X-Twilio-Signature", sig)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	form := url.Values{"MessageSid": {"SMtwilioinbound0001"}, "AccountSid": {twilioSID},
		"From": {"+12025550601"}, "To": {number}, "Body": {"Running late, sorry"}, "NumMedia": {"0"}}
	good := twiliotest.Sign(twilioToken, twilioBase+"/carrier/twilio/inbound", form)

	bad := post(form, twiliotest.Sign("wrong-token", twilioBase+"/carrier/twilio/inbound", form))
	require.Equal(t, 403, bad.StatusCode)
	require.Equal(t, 403, post(form, "").StatusCode)
	tampered := url.Values{}
	for k, v := range form {
		tampered[k] = v
	}
	tampered.Set("Body", "STOP")
	require.Equal(t, 403, post(tampered, good).StatusCode, "the signature covers the body")

	ok := post(form, good)
	require.Equal(t, 200, ok.StatusCode)
	require.Equal(t, "text/xml", ok.Header.Get("Content-Type"))
	waitFor(t, 30*time.Second, func() bool {
		return countRowsIn(t, dbURL, `SELECT count(*) FROM messaging_inbound WHERE team_id = $1`, f.TeamID) == 1
	})
	var texts []struct {
		From   string `json:"from"`
		To     string `json:"to"`
		Body   string `json:"body"`
		Member *struct {
			Name string `json:"name"`
		} `json:"member"`
		ProviderMessageID string `json:"provider_message_id"`
	}
	require.NoError(t, do(t, api, "GET", "/inbound-messages", nil).Data(&texts))
	require.Len(t, texts, 1)
	require.Equal(t, "+12025550601", texts[0].From)
	require.Equal(t, number, texts[0].To)
	require.Equal(t, "Running late, sorry", texts[0].Body)
	require.Equal(t, "SMtwilioinbound0001", texts[0].ProviderMessageID)
	require.Equal(t, "Late Larry", texts[0].Member.Name)
	// Twilio retrying the same webhook does not create a second text.
	require.Equal(t, 200, post(form, good).StatusCode)
	require.Equal(t, 1, countRowsIn(t, dbURL, `SELECT count(*) FROM messaging_inbound WHERE provider_message_id = 'SMtwilioinbound0001'`))
	require.Equal(t, 1, countRowsIn(t, dbURL, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.received'`, f.TeamID))

	// A text Postgres could not store as sent (a NUL, bytes that are not
	// UTF-8) is kept as it can be, and acknowledged: refusing it would make
	// Twilio retry it forever.
	odd := url.Values{"MessageSid": {"SMtwilioinbound0002"}, "AccountSid": {twilioSID},
		"From": {"+12025550601"}, "To": {number}, "Body": {"late\x00 caf\xe9"}, "NumMedia": {"0"}}
	require.Equal(t, 200, post(odd, twiliotest.Sign(twilioToken, twilioBase+"/carrier/twilio/inbound", odd)).StatusCode)
	waitFor(t, 30*time.Second, func() bool {
		return countRowsIn(t, dbURL, `SELECT count(*) FROM messaging_inbound WHERE team_id = $1`, f.TeamID) == 2
	})
	require.NoError(t, do(t, api, "GET", "/inbound-messages", nil).Data(&texts))
	bodies := []string{texts[0].Body, texts[1].Body}
	require.Contains(t, bodies, "late caf\uFFFD")
}

// fakeTwilioAPI accepts Twilio's Create Message calls and remembers each
// text's StatusCallback URL by recipient, and when each number sent.
type fakeTwilioAPI struct {
	*httptest.Server
	mu        sync.Mutex
	callbacks map[string]string      // To → StatusCallback
	sent      map[string][]time.Time // From → when each text was created
}

func newFakeTwilioAPI(t *testing.T) *fakeTwilioAPI {
	t.Helper()
	f := &fakeTwilioAPI{callbacks: map[string]string{}, sent: map[string][]time.Time{}}
	var n atomic.Int64
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/Messages.json") || r.ParseForm() != nil {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.callbacks[r.PostForm.Get("To")] = r.PostForm.Get("StatusCallback")
		f.sent[r.PostForm.Get("From")] = append(f.sent[r.PostForm.Get("From")], time.Now())
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"sid": "SMfake%04d", "status": "queued", "num_segments": "1", "to": %q}`, n.Add(1), r.PostForm.Get("To"))
	}))
	t.Cleanup(f.Close)
	return f
}

// sentFrom is when each text from number reached the fake, in order.
func (f *fakeTwilioAPI) sentFrom(number string) []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.sent[number]...)
}

func (f *fakeTwilioAPI) callback(to string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.callbacks[to]
}

// TestTwilioStatusCallbacksAreOrderSafe: Twilio's status callbacks arrive
// late, twice and out of order. Each delivery keeps the first final status
// it was given, never moves backwards, and publishes message.status once.
func TestTwilioStatusCallbacksAreOrderSafe(t *testing.T) {
	t.Parallel()
	fake := newFakeTwilioAPI(t)
	svc, dbURL := startTwilioService(t, "twilio_status", fake.URL)
	admin := harness.NewClient(svc.AdminURL+"/admin/v1", harness.AdminToken)
	f, api := newTeamOn(t, admin, svc, harness.TeamOptions{Extra: map[string]any{"number": teamNumber()}})
	addMember(t, api, map[string]any{"name": "Ada", "phone": "2025550611"})
	addMember(t, api, map[string]any{"name": "Bo", "phone": "2025550612"})
	r := do(t, api, "POST", "/messages", map[string]any{"text": "Practice at 6", "audience": "families"})
	require.Equal(t, 201, r.Status, string(r.Body))
	var m sent
	require.NoError(t, r.Data(&m))
	waitFor(t, 30*time.Second, func() bool {
		return fake.callback("+12025550611") != "" && fake.callback("+12025550612") != ""
	})

	status := func(to, twilioStatus, errorCode string) {
		t.Helper()
		postTwilioStatus(t, svc, fake.callback(to), "SMx"+to[len(to)-4:], to, twilioStatus, errorCode)
		// One callback at a time, so each lands after the one before.
		waitFor(t, 30*time.Second, func() bool {
			return countRowsIn(t, dbURL, `SELECT count(*) FROM messaging_status_pending`) == 0
		})
	}
	status("+12025550611", "delivered", "")
	status("+12025550611", "sent", "")             // late: a final status never moves back
	status("+12025550611", "delivered", "")        // Twilio's retry of the same callback
	status("+12025550611", "undelivered", "30003") // contradicting and late: the first final status wins
	status("+12025550612", "sent", "")
	status("+12025550612", "failed", "30005")
	status("+12025550612", "sent", "")
	status("+12025550612", "delivered", "")

	r = do(t, api, "GET", "/messages/"+m.ID+"/deliveries", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	var rows []struct {
		Phone     string `json:"phone"`
		Status    string `json:"status"`
		ErrorCode string `json:"error_code"`
	}
	require.NoError(t, r.Data(&rows))
	got := map[string]string{}
	for _, row := range rows {
		got[row.Phone] = row.Status + "/" + row.ErrorCode
	}
	require.Equal(t, map[string]string{"***0611": "delivered/", "***0612": "failed/30005"}, got)
	require.Equal(t, 2, countRowsIn(t, dbURL, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.status'`, f.TeamID),
		"one message.status per delivery")
	require.Equal(t, 1, countRowsIn(t, dbURL, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.status'
  AND body::jsonb -> 'data' ->> 'status' = 'failed' AND body::jsonb -> 'data' ->> 'error_code' = '30005'`, f.TeamID))
}
