package twilio_test

import (
	"log/slog"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/twiliotest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carriertest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	carriertest.RunConformance(t, newConformanceHarness)
}

// newConformanceHarness wires the whole Twilio path: the adapter sends to
// the fake Twilio, which posts signed status callbacks to the callback
// handler (checked with twilio-go's validator), which enqueues ingestion
// jobs in Postgres, where the suite reads them.
func newConformanceHarness(t *testing.T) carriertest.Harness {
	t.Helper()
	cb := setupCallback(t)
	fake := twiliotest.NewServer(t, accountSID, authToken)
	c, err := twilio.New(twilio.Config{AccountSID: accountSID, AuthToken: authToken, APIURL: fake.URL,
		PublicBaseURL: cb.url}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return carriertest.Harness{
		Carrier: c,
		SetOutcome: carriertest.SetOutcomes(fake.SetOutcome, twiliotest.Outcome{Status: "delivered"}, twiliotest.Outcome{},
			func(_ *testing.T, errorCode string) twiliotest.Outcome {
				return twiliotest.Outcome{Status: "undelivered", ErrorCode: errorCode}
			}),
		Settle: carriertest.Flushes(fake.Flush),
		Texts: carriertest.FakeTexts(fake.Messages, func(m twiliotest.Message) carriertest.Text {
			return carriertest.Text{To: m.To, From: m.From, Body: m.Body, ProviderMessageID: m.Sid}
		}),
		Statuses: cb.sink.Statuses,
		Refuse: func(t *testing.T, number, code string) {
			n, err := strconv.Atoi(code)
			require.NoError(t, err)
			fake.Refuse(number, n)
		},
		// Twilio has no idempotency key: see the crash window on twilio.Carrier.
		DedupesOnDeliveryID: false,
	}
}
