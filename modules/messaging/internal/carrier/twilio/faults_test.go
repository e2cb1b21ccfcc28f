package twilio_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/simulator"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// TestNumberFaults: Twilio's codes for a number that cannot take texts, and
// some that say nothing about the number.
func TestNumberFaults(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]domain.NumberFault{
		"30003": domain.FaultUnreachable, "21612": domain.FaultUnreachable,
		"30005": domain.FaultInvalid, "21211": domain.FaultInvalid,
		"30006": domain.FaultLandline, "21614": domain.FaultLandline, "21635": domain.FaultLandline,
		"30004": domain.FaultBlocked,
		"30001": domain.FaultNone, "30007": domain.FaultNone, "30008": domain.FaultNone, "21610": domain.FaultNone,
		"21617": domain.FaultNone, "21606": domain.FaultNone, "": domain.FaultNone, "99999": domain.FaultNone,
	} {
		require.Equal(t, want, twilio.NumberFault(code), code)
		require.Equal(t, want, simulator.NumberFault(code), "the simulator speaks Twilio's codes: %s", code)
	}
	var c carrier.Carrier = &twilio.Carrier{}
	require.Equal(t, domain.FaultLandline, carrier.Classifier(c)("30006"), "the adapter is the port's classifier")
}
