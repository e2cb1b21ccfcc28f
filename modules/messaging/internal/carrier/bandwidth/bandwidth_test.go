package bandwidth_test

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/bandwidthtest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/bandwidth"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carriertest"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
)

func TestMain(m *testing.M) { os.Exit(carriertest.Main(m)) }

const (
	bwAccount = "9900001"
	user      = "api-user"
	pass      = "api-pass-0123456789"
	appID     = "93de2206-9669-4e07-948d-329f4b722ee2"
	cbUser    = "teamtext-callbacks"
	cbPass    = "cb-secret-0123456789"
	accountID = "cac_bandwidth_test"
	team      = "+12025550100"
	member    = "+12025550101"
)

type env struct {
	fake    *bandwidthtest.Server
	carrier *bandwidth.Carrier
	sink    *carriertest.Sink
}

func config(fake *bandwidthtest.Server) bandwidth.Config {
	return bandwidth.Config{AccountID: bwAccount, Username: user, Password: pass, ApplicationID: appID,
		CallbackUsername: cbUser, CallbackPassword: cbPass, APIURL: fake.URL}
}

func setup(t *testing.T) *env {
	t.Helper()
	fake := bandwidthtest.NewServer(t, bwAccount, user, pass, appID, cbUser, cbPass)
	sink := carriertest.NewDBSink(t)
	h := bandwidth.NewHandler(sink, cbUser, cbPass, clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)), slog.New(slog.DiscardHandler))
	path := bandwidth.CallbackPath + "/" + accountID
	fake.CallbackURL = carriertest.CallbackServer(t, path, h) + path
	c, err := bandwidth.New(config(fake), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return &env{fake: fake, carrier: c, sink: sink}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	carriertest.RunConformance(t, func(t *testing.T) carriertest.Harness {
		e := setup(t)
		return carriertest.Harness{
			Carrier: e.carrier,
			SetOutcome: carriertest.SetOutcomes(e.fake.SetOutcome, bandwidthtest.Outcome{Type: "message-delivered"}, bandwidthtest.Outcome{},
				func(t *testing.T, code string) bandwidthtest.Outcome {
					n, err := strconv.Atoi(code)
					require.NoError(t, err)
					return bandwidthtest.Outcome{Type: "message-failed", ErrorCode: n}
				}),
			Settle: carriertest.Flushes(e.fake.Flush),
			Texts: carriertest.FakeTexts(e.fake.Messages, func(m bandwidthtest.Message) carriertest.Text {
				return carriertest.Text{To: m.To, From: m.From, Body: m.Text, ProviderMessageID: m.ID}
			}),
			Statuses: e.sink.Statuses,
			Refuse:   func(_ *testing.T, number, code string) { e.fake.Refuse(number, code) },
			// Bandwidth takes no idempotency key (tag is echoed, not deduplicated).
			DedupesOnDeliveryID: false,
			Codes:               carriertest.Codes{Refused: "request-validation", Failed: "4720", Failed2: "4721"},
		}
	})
}

func send(e *env, deliveryID string) (carrier.Receipt, error) {
	return e.carrier.Send(context.Background(), carrier.Message{DeliveryID: deliveryID, TeamID: "team_x", From: team, To: member,
		Body: "Bus leaves at 7.", Segments: 1})
}

func TestSendAnswers(t *testing.T) {
	t.Parallel()
	t.Run("RateLimitIsBusy", func(t *testing.T) {
		t.Parallel()
		e := setup(t)
		e.fake.FailNext(bandwidthtest.Fault{Status: http.StatusTooManyRequests, Type: "too-many-requests", RetryAfter: "2"})
		_, err := send(e, "dlv_busy")
		b, ok := carrier.IsBusy(err)
		require.True(t, ok, "want BusyError, got %v", err)
		require.Equal(t, 2*time.Second, b.RetryAfter)
		require.Empty(t, e.fake.Messages())
	})
	t.Run("OutageIsTransient", func(t *testing.T) {
		t.Parallel()
		e := setup(t)
		e.fake.Down(bandwidthtest.Fault{Status: http.StatusServiceUnavailable, Type: "service-unavailable"})
		_, err := send(e, "dlv_down")
		_, perm := carrier.IsPermanent(err)
		require.Error(t, err)
		require.False(t, perm)
		e.fake.Up()
		_, err = send(e, "dlv_down")
		require.NoError(t, err)
		require.Len(t, e.fake.Messages(), 1)
	})
	// sendMisconfigured sends deliveryID through an adapter whose
	// configuration tune changed, to the same fake.
	sendMisconfigured := func(t *testing.T, deliveryID string, tune func(*bandwidth.Config)) error {
		t.Helper()
		e := setup(t)
		cfg := config(e.fake)
		tune(&cfg)
		c, err := bandwidth.New(cfg, slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		_, err = c.Send(context.Background(), carrier.Message{DeliveryID: deliveryID, From: team, To: member, Body: "x", Segments: 1})
		return err
	}
	t.Run("WrongApplicationIsTheOperatorsToFix", func(t *testing.T) {
		t.Parallel()
		err := sendMisconfigured(t, "dlv_app", func(c *bandwidth.Config) { c.ApplicationID = "other-app" })
		require.ErrorContains(t, err, "HTTP 400")
		_, perm := carrier.IsPermanent(err)
		require.False(t, perm, "a 400 about the application is not the recipient's fault")
	})
	t.Run("WrongPasswordIsTransient", func(t *testing.T) {
		t.Parallel()
		err := sendMisconfigured(t, "dlv_pw", func(c *bandwidth.Config) { c.Password = "nope-nope" })
		require.ErrorContains(t, err, "HTTP 401")
		require.NotContains(t, err.Error(), "nope-nope")
	})
}

func TestCallbackCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	_, err := send(e, "dlv_auth")
	require.NoError(t, err)
	body := []byte(`[{"type":"message-delivered","time":"2026-03-01T12:00:00Z","description":"ok","to":"+12025550101",` +
		`"message":{"id":"m1","tag":"dlv_auth","from":"+12025550100","to":["+12025550101"],"text":"x"}}]`)
	for name, creds := range map[string][2]string{
		"wrong password": {cbUser, "guess"},
		"wrong user":     {"someone", cbPass},
		"api creds":      {user, pass},
		"none":           {"", ""},
	} {
		err := e.fake.Post(ctx, body, creds[0], creds[1])
		var he *bandwidthtest.HTTPError
		require.ErrorAs(t, err, &he, name)
		require.Equal(t, http.StatusForbidden, he.Status, name)
	}
	require.Empty(t, e.sink.Statuses(t), "a refused callback records nothing")
	require.NoError(t, e.fake.Post(ctx, body, cbUser, cbPass))
	ss := e.sink.Statuses(t)
	require.Len(t, ss, 1)
	require.Equal(t, carrier.StatusArgs{DeliveryID: "dlv_auth", ProviderMessageID: "m1", Status: "delivered",
		CarrierStatus: "message-delivered", At: ss[0].At}, ss[0])
}

func TestInboundAndKeywords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	texts := []string{"Running late", "STOP", "START", "HELP"}
	for _, text := range texts {
		_, err := e.fake.Inbound(ctx, member, team, text)
		require.NoError(t, err)
	}
	got := e.sink.Received()
	require.Len(t, got, len(texts))
	for i, text := range texts {
		require.Equal(t, carrier.InboundText{From: member, To: team, Body: text, ProviderMessageID: got[i].ProviderMessageID,
			ReceivedAt: got[i].ReceivedAt}, got[i])
		require.NotEmpty(t, got[i].ProviderMessageID)
	}
}

func TestFailureCodes(t *testing.T) {
	t.Parallel()
	require.Equal(t, domain.FaultInvalid, bandwidth.NumberFault("4720"))
	require.Equal(t, domain.FaultLandline, bandwidth.NumberFault("4721"))
	require.Equal(t, domain.NumberFault(""), bandwidth.NumberFault("4470"), "spam filtering says nothing about the number")
	_, ok := bandwidth.MapStatus("message-received")
	require.False(t, ok)
}

func TestNewRefusesMissingCredentials(t *testing.T) {
	t.Parallel()
	fake := bandwidthtest.NewServer(t, bwAccount, user, pass, appID, cbUser, cbPass)
	for name, f := range map[string]func(*bandwidth.Config){
		"account_id":        func(c *bandwidth.Config) { c.AccountID = "" },
		"password":          func(c *bandwidth.Config) { c.Password = " " },
		"callback_password": func(c *bandwidth.Config) { c.CallbackPassword = "" },
		"api_url":           func(c *bandwidth.Config) { c.APIURL = "not a url" },
	} {
		c := config(fake)
		f(&c)
		_, err := bandwidth.New(c, slog.New(slog.DiscardHandler))
		require.ErrorContains(t, err, name)
		require.NotContains(t, err.Error(), pass)
	}
}
