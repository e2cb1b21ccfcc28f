package telnyx_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/telnyxtest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carriertest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/telnyx"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
)

func TestMain(m *testing.M) { os.Exit(carriertest.Main(m)) }

const (
	apiKey    = "KEY0123456789ABCDEF_test"
	profileID = "40017f5e-0000-4000-8000-000000000001"
	accountID = "cac_telnyx_test"
	team      = "+12025550100"
	member    = "+12025550101"
)

// env is an adapter talking to a fake Telnyx whose webhooks reach the
// account's handler, which enqueues status jobs in Postgres.
type env struct {
	fake    *telnyxtest.Server
	carrier *telnyx.Carrier
	sink    *carriertest.Sink
	hookURL string // the account's webhook URL (without ?d=)
	clock   *clock.Fake
	logs    *bytes.Buffer
}

func setup(t *testing.T) *env {
	t.Helper()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := clock.NewFake(now)
	fake := telnyxtest.NewServer(t, apiKey, profileID)
	fake.Now = clk.Now
	sink := carriertest.NewDBSink(t)
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	h, err := telnyx.NewHandler(sink, fake.PublicKey(), clk, log)
	require.NoError(t, err)
	path := telnyx.CallbackPath + "/" + accountID
	base := carriertest.CallbackServer(t, path, h)
	c, err := telnyx.New(telnyx.Config{AccountID: accountID, APIKey: apiKey, PublicKey: fake.PublicKey(),
		MessagingProfileID: profileID, APIURL: fake.URL, PublicBaseURL: base}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return &env{fake: fake, carrier: c, sink: sink, hookURL: base + path, clock: clk, logs: logs}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	carriertest.RunConformance(t, func(t *testing.T) carriertest.Harness {
		e := setup(t)
		return carriertest.Harness{
			Carrier: e.carrier,
			SetOutcome: carriertest.SetOutcomes(e.fake.SetOutcome, telnyxtest.Outcome{Status: "delivered"},
				telnyxtest.Outcome{Status: "delivery_unconfirmed"}, func(_ *testing.T, code string) telnyxtest.Outcome {
					return telnyxtest.Outcome{Status: "delivery_failed", ErrorCode: code}
				}),
			Settle: carriertest.Flushes(e.fake.Flush),
			Texts: carriertest.FakeTexts(e.fake.Messages, func(m telnyxtest.Message) carriertest.Text {
				return carriertest.Text{To: m.To, From: m.From, Body: m.Text, ProviderMessageID: m.ID}
			}),
			Statuses: e.sink.Statuses,
			Refuse:   func(_ *testing.T, number, code string) { e.fake.Refuse(number, code) },
			// POST /v2/messages takes no idempotency key.
			DedupesOnDeliveryID: false,
			Codes:               carriertest.Codes{Refused: "40310", Failed: "40008", Failed2: "40001"},
		}
	})
}

func send(t *testing.T, e *env, deliveryID string) (carrier.Receipt, error) {
	t.Helper()
	return e.carrier.Send(context.Background(), carrier.Message{DeliveryID: deliveryID, TeamID: "team_x", From: team, To: member,
		Body: "Game moved to 5pm.", Segments: 1})
}

func TestSendAnswers(t *testing.T) {
	t.Parallel()
	t.Run("RateLimitIsBusyWithRetryAfter", func(t *testing.T) {
		t.Parallel()
		e := setup(t)
		e.fake.FailNext(telnyxtest.Fault{Status: http.StatusTooManyRequests, Code: "10011", Title: "Too many requests", RetryAfter: "3"})
		_, err := send(t, e, "dlv_busy")
		b, ok := carrier.IsBusy(err)
		require.True(t, ok, "want BusyError, got %v", err)
		require.Equal(t, 3*time.Second, b.RetryAfter)
		require.ErrorIs(t, err, telnyx.ErrRateLimited)
		require.Empty(t, e.fake.Messages())
	})
	t.Run("OutageIsTransient", func(t *testing.T) {
		t.Parallel()
		e := setup(t)
		e.fake.Down(telnyxtest.Fault{Status: http.StatusServiceUnavailable, Code: "10007", Title: "Unexpected error"})
		_, err := send(t, e, "dlv_down")
		require.Error(t, err)
		_, perm := carrier.IsPermanent(err)
		_, busy := carrier.IsBusy(err)
		require.False(t, perm || busy, "a 503 is retried later, not a refusal: %v", err)
		e.fake.Up()
		rc, err := send(t, e, "dlv_down")
		require.NoError(t, err)
		require.Equal(t, "queued", rc.Status)
	})
	t.Run("WrongKeyIsTransientNotARefusal", func(t *testing.T) {
		t.Parallel()
		e := setup(t)
		c, err := telnyx.New(telnyx.Config{AccountID: accountID, APIKey: "wrong", PublicKey: e.fake.PublicKey(),
			MessagingProfileID: profileID, APIURL: e.fake.URL, PublicBaseURL: "https://teamtext.example"}, slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		_, err = c.Send(context.Background(), carrier.Message{DeliveryID: "dlv_key", From: team, To: member, Body: "x", Segments: 1})
		require.ErrorContains(t, err, "HTTP 401")
		_, perm := carrier.IsPermanent(err)
		require.False(t, perm, "an operator's key fix lets the delivery through")
		require.NotContains(t, err.Error(), "wrong", "the key is not repeated")
	})
	t.Run("RefusalMasksTheNumber", func(t *testing.T) {
		t.Parallel()
		e := setup(t)
		e.fake.Refuse(member, "40300")
		_, err := send(t, e, "dlv_stop")
		pe, ok := carrier.IsPermanent(err)
		require.True(t, ok)
		require.Equal(t, "40300", pe.Code)
		require.NotContains(t, err.Error(), member[2:])
	})
}

func TestWebhookSignatures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	_, err := send(t, e, "dlv_sig")
	require.NoError(t, err)
	body := []byte(`{"data":{"event_type":"message.finalized","id":"ev1","payload":{"id":"m1","to":[{"phone_number":"+12025550101","status":"delivered"}]}}}`)
	url := e.hookURL + "?d=dlv_sig"
	now := strconv.FormatInt(e.clock.Now().Unix(), 10)

	refused := func(t *testing.T, err error) {
		t.Helper()
		var he *telnyxtest.HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, http.StatusForbidden, he.Status)
	}
	t.Run("TamperedBody", func(t *testing.T) {
		sig := e.fake.Sign(now, body)
		tampered := bytes.Replace(body, []byte("delivered"), []byte("delivery_failed"), 1)
		refused(t, e.fake.PostSigned(ctx, url, tampered, now, sig))
	})
	t.Run("StaleTimestamp", func(t *testing.T) {
		old := strconv.FormatInt(e.clock.Now().Add(-6*time.Minute).Unix(), 10)
		refused(t, e.fake.PostSigned(ctx, url, body, old, e.fake.Sign(old, body)))
	})
	t.Run("FutureTimestamp", func(t *testing.T) {
		ahead := strconv.FormatInt(e.clock.Now().Add(6*time.Minute).Unix(), 10)
		refused(t, e.fake.PostSigned(ctx, url, body, ahead, e.fake.Sign(ahead, body)))
	})
	t.Run("Unsigned", func(t *testing.T) {
		refused(t, e.fake.PostSigned(ctx, url, body, now, ""))
	})
	t.Run("OtherAccountsKey", func(t *testing.T) {
		other := telnyxtest.NewServer(t, apiKey, profileID)
		refused(t, other.PostSigned(ctx, url, body, now, other.Sign(now, body)))
	})
	require.Empty(t, e.sink.Statuses(t), "a refused webhook records nothing")
	require.Empty(t, e.sink.Received())

	t.Run("SignedWithinFiveMinutesIsTaken", func(t *testing.T) {
		ts := strconv.FormatInt(e.clock.Now().Add(-4*time.Minute).Unix(), 10)
		require.NoError(t, e.fake.PostSigned(ctx, url, body, ts, e.fake.Sign(ts, body)))
		ss := e.sink.Statuses(t)
		require.Len(t, ss, 1)
		require.Equal(t, "delivered", ss[0].Status)
	})
}

func TestInboundAndKeywords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	for _, text := range []string{"See you there", "STOP", "START", "HELP"} {
		_, err := e.fake.Inbound(ctx, e.hookURL, member, team, text)
		require.NoError(t, err)
	}
	got := e.sink.Received()
	require.Len(t, got, 4)
	for i, text := range []string{"See you there", "STOP", "START", "HELP"} {
		require.Equal(t, member, got[i].From)
		require.Equal(t, team, got[i].To)
		require.Equal(t, text, got[i].Body, "keywords arrive as texts and messaging acts on them")
		require.NotEmpty(t, got[i].ProviderMessageID)
	}
	require.Empty(t, e.sink.Statuses(t))
}

func TestFailureCodes(t *testing.T) {
	t.Parallel()
	require.Equal(t, domain.FaultLandline, telnyx.NumberFault("40001"))
	require.Equal(t, domain.FaultInvalid, telnyx.NumberFault("40310"))
	require.Equal(t, domain.NumberFault(""), telnyx.NumberFault("40002"), "spam filtering says nothing about the number")
	require.Equal(t, domain.NumberFault(""), telnyx.NumberFault("40300"), "an opt-out is not a number fault")
	require.True(t, telnyx.Permanent("40310"))
	require.False(t, telnyx.Permanent("10009"), "authentication is the operator's to fix")
	require.False(t, telnyx.Permanent("40006"), "a carrier outage is temporary")
	st, ok := telnyx.MapStatus("delivery_unconfirmed")
	require.False(t, ok, "unconfirmed has no final status: %q", st)
}

func TestNewRefusesBadConfig(t *testing.T) {
	t.Parallel()
	good := telnyx.Config{AccountID: accountID, APIKey: apiKey, PublicKey: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		MessagingProfileID: profileID, PublicBaseURL: "https://teamtext.example"}
	_, err := telnyx.New(good, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	for name, f := range map[string]func(*telnyx.Config){
		"no key":         func(c *telnyx.Config) { c.APIKey = "" },
		"short pub key":  func(c *telnyx.Config) { c.PublicKey = "AAAA" },
		"no profile":     func(c *telnyx.Config) { c.MessagingProfileID = "" },
		"no public base": func(c *telnyx.Config) { c.PublicBaseURL = "" },
		"bad api url":    func(c *telnyx.Config) { c.APIURL = "ftp://x" },
	} {
		c := good
		f(&c)
		_, err := telnyx.New(c, slog.New(slog.DiscardHandler))
		require.Error(t, err, name)
		require.NotContains(t, err.Error(), apiKey, name)
	}
}
