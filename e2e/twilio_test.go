package e2e

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// twilioSignature is Twilio's X-Twilio-Signature, written from Twilio's
// documentation: base64(HMAC-SHA1(auth token, URL + each POST parameter's
// name and value, sorted by name)).
func twilioSignature(token, fullURL string, form url.Values) string {
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(fullURL)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteString(form.Get(k))
	}
	m := hmac.New(sha1.New, []byte(token))
	m.Write([]byte(b.String()))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// TestTwilioInbound: a text arriving through Twilio's webhook with a valid
// signature is ingested like any other; a bad signature is refused and
// nothing is stored.
func TestTwilioInbound(t *testing.T) {
	t.Parallel()
	const token, base = "twiliotestauthtoken0123456789ab", "https://teamtext.example.test"
	svc := startService(t, "CARRIER=twilio", "TWILIO_ACCOUNT_SID=AC0123456789abcdef0123456789abcdef",
		"TWILIO_AUTH_TOKEN="+token, "TWILIO_API_URL=http://127.0.0.1:9", "PUBLIC_BASE_URL="+base)
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
	form := url.Values{"MessageSid": {"SMtwilioinbound0001"}, "AccountSid": {"AC0123456789abcdef0123456789abcdef"},
		"From": {"+12025550601"}, "To": {number}, "Body": {"Running late, sorry"}, "NumMedia": {"0"}}
	good := twilioSignature(token, base+"/carrier/twilio/inbound", form)

	bad := post(form, twilioSignature("wrong-token", base+"/carrier/twilio/inbound", form))
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
		return countRows(t, `SELECT count(*) FROM messaging_inbound WHERE team_id = $1`, f.TeamID) == 1
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
	require.Equal(t, 1, countRows(t, `SELECT count(*) FROM messaging_inbound WHERE provider_message_id = 'SMtwilioinbound0001'`))
	require.Equal(t, 1, eventCount(t, f.TeamID, "message.received"))
}
