package twilio_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/twiliotest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
)

// statusForm is the body Twilio posts for a status change.
func statusForm(status, errorCode string) url.Values {
	v := url.Values{"AccountSid": {accountSID}, "ApiVersion": {"2010-04-01"}, "MessageSid": {"SM0123"}, "SmsSid": {"SM0123"},
		"MessageStatus": {status}, "SmsStatus": {status}, "To": {member}, "From": {teamNumber}}
	if errorCode != "" {
		v.Set("ErrorCode", errorCode)
	}
	return v
}

// post sends a callback the way Twilio does and returns the answer.
func post(t *testing.T, target string, form url.Values, signature string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if signature != "" {
		req.Header.Set("X-Twilio-Signature", signature)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func TestCallbackValidSignatureEnqueuesStatus(t *testing.T) {
	t.Parallel()
	b := setupCallback(t)
	target := b.url + twilio.StatusPath + "?d=dlv_1"
	form := statusForm("undelivered", "30003")

	resp := post(t, target, form, twiliotest.Sign(authToken, target, form))
	require.Equal(t, http.StatusNoContent, resp.StatusCode)

	ss := b.sink.Statuses(t)
	require.Len(t, ss, 1)
	require.Equal(t, carrier.StatusArgs{DeliveryID: "dlv_1", ProviderMessageID: "SM0123", Status: "failed",
		CarrierStatus: "undelivered", ErrorCode: "30003", ErrorMessage: "unreachable destination handset",
		At: b.clock.Now()}, ss[0])
}

func TestCallbackRefusesBadSignatures(t *testing.T) {
	t.Parallel()
	b := setupCallback(t)
	target := b.url + twilio.StatusPath + "?d=dlv_1"
	form := statusForm("delivered", "")
	tampered := statusForm("failed", "30007")
	for name, sig := range map[string]string{
		"Missing":        "",
		"Garbage":        "bm90IGEgc2lnbmF0dXJl",
		"OtherToken":     twiliotest.Sign("0000000000000000000000000000000", target, form),
		"OtherParams":    twiliotest.Sign(authToken, target, tampered),
		"OtherQuery":     twiliotest.Sign(authToken, b.url+twilio.StatusPath+"?d=dlv_2", form),
		"WithoutQuery":   twiliotest.Sign(authToken, b.url+twilio.StatusPath, form),
		"OtherPublicURL": twiliotest.Sign(authToken, "https://elsewhere.example.com"+twilio.StatusPath+"?d=dlv_1", form),
	} {
		resp := post(t, target, form, sig)
		require.Equal(t, http.StatusForbidden, resp.StatusCode, name)
		require.Equal(t, "application/json", resp.Header.Get("Content-Type"), name)
		var body struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body), name)
		require.Equal(t, "forbidden", body.Error.Code, name)
		require.NotEmpty(t, body.Error.Message, name)
	}
	require.Empty(t, b.sink.Statuses(t), "nothing is recorded from an unsigned callback")
}

func TestCallbackIgnoresEarlyStatuses(t *testing.T) {
	t.Parallel()
	b := setupCallback(t)
	target := b.url + twilio.StatusPath + "?d=dlv_1"
	for _, st := range []string{"queued", "accepted", "scheduled", "sending", "receiving", "received", "some_new_status"} {
		form := statusForm(st, "")
		resp := post(t, target, form, twiliotest.Sign(authToken, target, form))
		require.Equal(t, http.StatusNoContent, resp.StatusCode, st)
	}
	require.Empty(t, b.sink.Statuses(t))
}

func TestCallbackRequiresDeliveryID(t *testing.T) {
	t.Parallel()
	b := setupCallback(t)
	target := b.url + twilio.StatusPath
	form := statusForm("delivered", "")
	resp := post(t, target, form, twiliotest.Sign(authToken, target, form))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Empty(t, b.sink.Statuses(t))
}

func TestCallbackIsPostOnly(t *testing.T) {
	t.Parallel()
	b := setupCallback(t)
	resp, err := http.Get(b.url + twilio.StatusPath + "?d=dlv_1")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	require.Equal(t, http.MethodPost, resp.Header.Get("Allow"))
}

func TestCallbackFromFakeTwilio(t *testing.T) {
	t.Parallel()
	cb := setupCallback(t)
	c, b := setup(t, func(cfg *twilio.Config) { cfg.PublicBaseURL = cb.url })
	b.fake.SetOutcome(member, twiliotest.Outcome{Status: "delivered"})
	rc, err := c.Send(context.Background(), text("dlv_1"))
	require.NoError(t, err)
	require.NoError(t, b.fake.Flush(context.Background()))

	ss := cb.sink.Statuses(t)
	require.Len(t, ss, 2)
	require.Equal(t, []string{"sent", "delivered"}, []string{ss[0].Status, ss[1].Status})
	for _, s := range ss {
		require.Equal(t, "dlv_1", s.DeliveryID)
		require.Equal(t, rc.ProviderMessageID, s.ProviderMessageID)
	}
}

func TestMapStatus(t *testing.T) {
	t.Parallel()
	// Every MessageStatus Twilio documents for outbound and inbound messages.
	for twilioStatus, want := range map[string]string{
		"queued":              "",
		"accepted":            "",
		"scheduled":           "",
		"sending":             "",
		"sent":                "sent",
		"delivered":           "delivered",
		"read":                "delivered",
		"partially_delivered": "delivered",
		"undelivered":         "failed",
		"failed":              "failed",
		"canceled":            "failed",
		"receiving":           "",
		"received":            "",
		"":                    "",
	} {
		got, ok := twilio.MapStatus(twilioStatus)
		require.Equal(t, want != "", ok, twilioStatus)
		require.Equal(t, want, got, twilioStatus)
	}
}

func TestCallbackStatusArgs(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("EST", -5*3600))
	for _, tc := range []struct {
		cb   twilio.Callback
		want carrier.StatusArgs
	}{
		{twilio.Callback{DeliveryID: "d", MessageSid: "SM1", MessageStatus: "sent"},
			carrier.StatusArgs{DeliveryID: "d", ProviderMessageID: "SM1", Status: "sent", CarrierStatus: "sent", At: at.UTC()}},
		{twilio.Callback{DeliveryID: "d", MessageSid: "SM1", MessageStatus: "delivered", ErrorCode: "0"},
			carrier.StatusArgs{DeliveryID: "d", ProviderMessageID: "SM1", Status: "delivered", CarrierStatus: "delivered", At: at.UTC()}},
		{twilio.Callback{DeliveryID: "d", MessageSid: "SM1", MessageStatus: "failed", ErrorCode: "30008"},
			carrier.StatusArgs{DeliveryID: "d", ProviderMessageID: "SM1", Status: "failed", CarrierStatus: "failed",
				ErrorCode: "30008", ErrorMessage: "unknown error", At: at.UTC()}},
		{twilio.Callback{DeliveryID: "d", MessageSid: "SM1", MessageStatus: "undelivered", ErrorCode: "39999"},
			carrier.StatusArgs{DeliveryID: "d", ProviderMessageID: "SM1", Status: "failed", CarrierStatus: "undelivered",
				ErrorCode: "39999", At: at.UTC()}},
		{twilio.Callback{DeliveryID: "d", MessageSid: "SM1", MessageStatus: "canceled"},
			carrier.StatusArgs{DeliveryID: "d", ProviderMessageID: "SM1", Status: "failed", CarrierStatus: "canceled",
				ErrorMessage: "canceled before it was sent", At: at.UTC()}},
	} {
		got, ok := tc.cb.StatusArgs(at)
		require.True(t, ok, tc.cb.MessageStatus)
		require.Equal(t, tc.want, got, tc.cb.MessageStatus)
	}
	_, ok := twilio.Callback{DeliveryID: "d", MessageStatus: "queued"}.StatusArgs(at)
	require.False(t, ok)
}

func TestErrorMessageKnowsTheCarrierCodes(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"21211", "21408", "21610", "21614", "30003", "30004", "30005", "30006", "30007", "30008"} {
		require.NotEmpty(t, twilio.ErrorMessage(code), code)
	}
	require.Empty(t, twilio.ErrorMessage(""))
	require.Empty(t, twilio.ErrorMessage("12345"))
}
