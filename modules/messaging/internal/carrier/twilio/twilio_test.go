package twilio_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/twiliotest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
)

const (
	teamNumber = "+12025550100"
	member     = "+12025550123"
)

func text(deliveryID string) carrier.Message {
	return carrier.Message{DeliveryID: deliveryID, TeamID: "team_1", From: teamNumber, To: member, Body: "Game at 5.", Segments: 1}
}

func TestSendCreatesMessageWithStatusCallback(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	require.Equal(t, "twilio", c.Name())
	paced, perr := c.Paced(context.Background())
	require.NoError(t, perr)
	require.True(t, paced, "Twilio sends at each number's throughput")

	rc, err := c.Send(context.Background(), text("dlv 1/ä"))
	require.NoError(t, err)

	ms := b.fake.Messages()
	require.Len(t, ms, 1)
	require.Equal(t, ms[0].Sid, rc.ProviderMessageID)
	require.Equal(t, "queued", rc.Status)
	require.Equal(t, member, ms[0].To)
	require.Equal(t, teamNumber, ms[0].From)
	require.Equal(t, "Game at 5.", ms[0].Body)
	require.Equal(t, "https://teamtext.example.com/carrier/twilio/status?d=dlv+1%2F%C3%A4", ms[0].StatusCallback)
}

// A 429 is not waited out in the worker: Send returns at once with a
// BusyError carrying Twilio's Retry-After, and messaging holds the number
// back. Nothing was sent.
func TestSendRateLimitIsBusy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault twiliotest.Fault
		after time.Duration
	}{
		{"Code20429", twiliotest.Fault{Status: http.StatusTooManyRequests, Code: 20429, Message: "Too Many Requests"}, 0},
		{"StatusAlone", twiliotest.Fault{Status: http.StatusTooManyRequests, RawBody: "slow down"}, 0},
		{"CodeAlone", twiliotest.Fault{Status: http.StatusBadRequest, Code: 20429, Message: "Too Many Requests"}, 0},
		{"RetryAfter", twiliotest.Fault{Status: http.StatusTooManyRequests, Code: 20429, RetryAfter: "5"}, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, b := setup(t)
			b.fake.FailNext(tc.fault)
			_, err := c.Send(context.Background(), text("dlv_1"))
			busy, ok := carrier.IsBusy(err)
			require.True(t, ok, "want a BusyError, got %v", err)
			require.Equal(t, tc.after, busy.RetryAfter)
			require.ErrorIs(t, err, twilio.ErrRateLimited)
			_, permanent := carrier.IsPermanent(err)
			require.False(t, permanent)
			require.Equal(t, 1, b.fake.Creates(), "one request, no in-process retry")
			require.Empty(t, b.fake.Messages())
			require.NotContains(t, err.Error(), teamNumber[2:], "errors mask phone numbers")
		})
	}
}

func TestSendMapsErrors(t *testing.T) {
	t.Parallel()
	refusal := func(code int) twiliotest.Fault {
		return twiliotest.Fault{Status: http.StatusBadRequest, Code: code,
			Message: "The 'To' number " + member + " is not a valid phone number."}
	}
	for _, tc := range []struct {
		name      string
		fault     twiliotest.Fault
		permanent string // expected code; "" for a transient error
	}{
		{"InvalidTo", refusal(21211), "21211"},
		{"Unsubscribed", refusal(21610), "21610"},
		{"NotMobile", refusal(21614), "21614"},
		{"RegionNotEnabled", refusal(21408), "21408"},
		{"Unreachable", refusal(30003), "30003"},
		{"Filtered", refusal(30007), "30007"},
		{"UnknownCodeRefusal", refusal(21999), ""},
		{"QueueFull", refusal(21611), ""},
		{"ServerError", twiliotest.Fault{Status: http.StatusInternalServerError, Code: 20500, Message: "Internal Server Error"}, ""},
		{"BadGateway", twiliotest.Fault{Status: http.StatusBadGateway, RawBody: "<html>bad gateway</html>"}, ""},
		{"Unauthorized", twiliotest.Fault{Status: http.StatusUnauthorized, Code: 20003, Message: "Authenticate"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, b := setup(t)
			b.fake.FailNext(tc.fault)
			_, err := c.Send(context.Background(), text("dlv_1"))
			require.Error(t, err)
			require.NotContains(t, err.Error(), member[2:], "errors are logged: no full phone number")
			pe, permanent := carrier.IsPermanent(err)
			if tc.permanent == "" {
				require.False(t, permanent, "want a transient error, got %v", err)
				require.NotErrorIs(t, err, twilio.ErrRateLimited)
				var api *twilio.APIError
				require.ErrorAs(t, err, &api)
				require.Equal(t, tc.fault.Status, api.Status)
			} else {
				require.True(t, permanent, "want a permanent error, got %v", err)
				require.Equal(t, tc.permanent, pe.Code)
				require.NotEmpty(t, pe.Message)
				require.NotContains(t, pe.Message, member[2:])
			}
			require.Equal(t, 1, b.fake.Creates(), "no in-process retry")
			require.NotContains(t, b.logs.String(), member[2:])
		})
	}
}

func TestSendNetworkErrorIsTransient(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	c, _ := setup(t, func(cfg *twilio.Config) { cfg.APIURL = dead.URL })
	_, err := c.Send(context.Background(), text("dlv_1"))
	require.Error(t, err)
	_, permanent := carrier.IsPermanent(err)
	require.False(t, permanent)
}

func TestSendCancelledContext(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Send(ctx, text("dlv_1"))
	require.ErrorIs(t, err, context.Canceled)
	require.Empty(t, b.fake.Messages())
}

func TestSendAPIURLWithPathPrefix(t *testing.T) {
	t.Parallel()
	fake := twiliotest.NewServer(t, accountSID, authToken)
	proxy := httptest.NewServer(http.StripPrefix("/twilio", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := http.NewRequestWithContext(r.Context(), r.Method, fake.URL+r.URL.Path, r.Body)
		require.NoError(t, err)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})))
	t.Cleanup(proxy.Close)
	c, err := twilio.New(twilio.Config{AccountSID: accountSID, AuthToken: authToken, APIURL: proxy.URL + "/twilio/",
		PublicBaseURL: "https://teamtext.example.com"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	_, err = c.Send(context.Background(), text("dlv_1"))
	require.NoError(t, err)
	require.Len(t, fake.Messages(), 1)
}

func TestNewRefusesBadConfig(t *testing.T) {
	t.Parallel()
	good := twilio.Config{AccountSID: accountSID, AuthToken: authToken, PublicBaseURL: "https://teamtext.example.com"}
	for name, tune := range map[string]func(*twilio.Config){
		"NoAccountSID":     func(c *twilio.Config) { c.AccountSID = "" },
		"NotAnAccountSID":  func(c *twilio.Config) { c.AccountSID = "SK0123" },
		"NoAuthToken":      func(c *twilio.Config) { c.AuthToken = "" },
		"AuthTokenSymbols": func(c *twilio.Config) { c.AuthToken = "abc-def" },
		"NoPublicBaseURL":  func(c *twilio.Config) { c.PublicBaseURL = "" },
		"RelativeAPIURL":   func(c *twilio.Config) { c.APIURL = "api.twilio.test" },
	} {
		cfg := good
		tune(&cfg)
		_, err := twilio.New(cfg, slog.New(slog.DiscardHandler))
		require.Error(t, err, name)
		require.False(t, strings.Contains(err.Error(), authToken), "errors never show the token")
	}
	_, err := twilio.New(good, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
}

func TestAPIErrorUnwrapsFromSend(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	b.fake.FailNext(twiliotest.Fault{Status: http.StatusServiceUnavailable, Code: 20503, Message: "Service Unavailable"})
	_, err := c.Send(context.Background(), text("dlv_1"))
	var api *twilio.APIError
	require.True(t, errors.As(err, &api))
	require.Equal(t, 20503, api.Code)
}
