package domain

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// landlineOnly is a classifier where 30006 is a landline and 30004 blocked.
func landlineOnly(code string) NumberFault {
	switch code {
	case "30006":
		return FaultLandline
	case "30004":
		return FaultBlocked
	}
	return FaultNone
}

func TestOutcomeOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status, code string
		want         NumberOutcome
	}{
		{DeliveryDelivered, "", OutcomeDelivered},
		{DeliveryFailed, "30006", OutcomePermanent},
		{DeliveryFailed, "30004", OutcomePermanent},
		{DeliveryFailed, "30001", OutcomeNeutral}, // queue overflow: about the carrier, not the number
		{DeliveryFailed, "30007", OutcomeNeutral}, // filtered: about the text
		{DeliveryFailed, "", OutcomeNeutral},
		{DeliveryFailed, CodeOptedOut, OutcomeNeutral},
		{DeliveryUnconfirmed, "", OutcomeNeutral},
		{DeliverySent, "", OutcomeNeutral},
	} {
		require.Equal(t, c.want, OutcomeOf(c.status, c.code, landlineOnly), "%s %s", c.status, c.code)
	}
	require.Equal(t, OutcomeNeutral, OutcomeOf(DeliveryFailed, "30006", NoFaults), "a carrier without a mapping marks nothing")
	require.Equal(t, OutcomeNeutral, OutcomeOf(DeliveryFailed, "30006", nil))
}

func TestStreakFold(t *testing.T) {
	t.Parallel()
	var s Streak
	require.False(t, s.Changes())
	s = s.Add(OutcomePermanent, "30006")
	require.Equal(t, Streak{Failures: 1, LastCode: "30006"}, s)
	s = s.Add(OutcomeNeutral, "30001")
	require.Equal(t, Streak{Failures: 1, LastCode: "30006"}, s, "a neutral failure neither extends nor breaks the streak")
	s = s.Add(OutcomePermanent, "30004")
	require.Equal(t, Streak{Failures: 2, LastCode: "30004"}, s)
	s = s.Add(OutcomeDelivered, "")
	require.Equal(t, Streak{Reset: true}, s, "a delivery ends the streak")
	require.True(t, s.Changes())
	s = s.Add(OutcomePermanent, "30006")
	require.Equal(t, Streak{Reset: true, Failures: 1, LastCode: "30006"}, s, "reset, then one failure")
}

// TestStreakMatchesSequence: folding a run of outcomes and applying it to a
// stored streak gives what applying the outcomes one by one gives.
func TestStreakMatchesSequence(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		stored := rapid.IntRange(0, 5).Draw(t, "stored")
		outs := rapid.SliceOf(rapid.SampledFrom([]NumberOutcome{OutcomeNeutral, OutcomeDelivered, OutcomePermanent})).Draw(t, "outcomes")
		want := stored
		var s Streak
		for _, o := range outs {
			switch o {
			case OutcomeDelivered:
				want = 0
			case OutcomePermanent:
				want++
			}
			s = s.Add(o, "c")
		}
		got := stored
		if s.Reset {
			got = 0
		}
		got += s.Failures
		if got != want {
			t.Fatalf("fold gives %d, one by one %d", got, want)
		}
	})
}

func TestUndeliverableThreshold(t *testing.T) {
	t.Parallel()
	require.False(t, Undeliverable(1, DefaultUndeliverableAfter))
	require.True(t, Undeliverable(2, DefaultUndeliverableAfter))
	require.True(t, Undeliverable(3, DefaultUndeliverableAfter))
	require.True(t, Undeliverable(1, 1))
	require.False(t, Undeliverable(5, 0), "no threshold marks nothing")
}

func TestResendable(t *testing.T) {
	t.Parallel()
	require.True(t, Resendable(DeliveryFailed, "30001", landlineOnly), "queue overflow")
	require.True(t, Resendable(DeliveryFailed, "30007", landlineOnly), "filtered")
	require.True(t, Resendable(DeliveryFailed, "", landlineOnly))
	require.False(t, Resendable(DeliveryFailed, "30006", landlineOnly), "a landline")
	require.False(t, Resendable(DeliveryFailed, CodeOptedOut, landlineOnly), "opted out here")
	require.False(t, Resendable(DeliveryFailed, CodeCarrierOptedOut, landlineOnly), "opted out at the carrier")
	require.False(t, Resendable(DeliveryDelivered, "", landlineOnly))
	require.False(t, Resendable(DeliveryUnconfirmed, "", landlineOnly))
}
