package twilio_test

import (
	"context"
	"log/slog"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/twiliotest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
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
	ctx := context.Background()
	cb := setupCallback(t)
	fake := twiliotest.NewServer(t, accountSID, authToken)
	c, err := twilio.New(twilio.Config{AccountSID: accountSID, AuthToken: authToken, APIURL: fake.URL,
		PublicBaseURL: cb.url}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return carriertest.Harness{
		Carrier: c,
		SetOutcome: func(t *testing.T, number, outcome, errorCode string) {
			switch outcome {
			case carriertest.Delivered:
				fake.SetOutcome(number, twiliotest.Outcome{Status: "delivered"})
			case carriertest.Failed:
				fake.SetOutcome(number, twiliotest.Outcome{Status: "undelivered", ErrorCode: errorCode})
			case carriertest.Unconfirmed:
				fake.SetOutcome(number, twiliotest.Outcome{})
			default:
				t.Fatalf("unknown outcome %q", outcome)
			}
		},
		Settle: func(t *testing.T) { require.NoError(t, fake.Flush(ctx)) },
		Texts: func(*testing.T) []carriertest.Text {
			var out []carriertest.Text
			for _, m := range fake.Messages() {
				out = append(out, carriertest.Text{To: m.To, From: m.From, Body: m.Body, ProviderMessageID: m.Sid})
			}
			return out
		},
		Statuses: func(t *testing.T) []carrier.StatusArgs {
			ss, err := carriertest.StatusJobs(ctx, cb.db)
			require.NoError(t, err)
			return ss
		},
		Refuse: func(t *testing.T, number, code string) {
			n, err := strconv.Atoi(code)
			require.NoError(t, err)
			fake.Refuse(number, n)
		},
		// Twilio has no idempotency key: see the crash window on twilio.Carrier.
		DedupesOnDeliveryID: false,
	}
}
