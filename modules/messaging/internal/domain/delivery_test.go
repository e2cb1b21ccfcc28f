package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestDeliveryMovesOnlyForward(t *testing.T) {
	t.Parallel()
	d := Delivery{Status: DeliveryQueued}
	require.True(t, d.Apply(Report{Status: DeliverySent, CarrierStatus: "queued", ProviderMessageID: "SM1", At: t0}))
	require.Equal(t, t0, *d.SentAt)
	require.False(t, d.Apply(Report{Status: DeliverySent, CarrierStatus: "sent", At: t0.Add(time.Second)}), "a duplicate")
	require.True(t, d.Apply(Report{Status: DeliveryFailed, CarrierStatus: "undelivered", ErrorCode: "30003", ErrorMessage: "unreachable", At: t0.Add(2 * time.Second)}))
	require.False(t, d.Apply(Report{Status: DeliveryDelivered, CarrierStatus: "delivered", At: t0.Add(3 * time.Second)}), "the first final status wins")
	require.False(t, d.Apply(Report{Status: DeliverySent, At: t0.Add(4 * time.Second)}), "a late 'sent'")
	require.Equal(t, Delivery{Status: DeliveryFailed, CarrierStatus: "undelivered", ProviderMessageID: "SM1", ErrorCode: "30003",
		ErrorMessage: "unreachable", SentAt: d.SentAt, UpdatedAt: t0.Add(2 * time.Second)}, d)
}

func TestOptedOutDeliveryWasNeverSent(t *testing.T) {
	t.Parallel()
	d := Delivery{Status: DeliveryQueued}
	require.True(t, d.Apply(OptedOutReport(t0)))
	require.Equal(t, DeliveryFailed, d.Status)
	require.Equal(t, CodeOptedOut, d.ErrorCode)
	require.Equal(t, CarrierNotSent, d.CarrierStatus)
	require.Nil(t, d.SentAt)
}

// However reports arrive (late, repeated, reordered), the final status is
// the first final one in arrival order, and it is reached exactly once.
func TestDeliveryReportsInAnyOrder(t *testing.T) {
	t.Parallel()
	statuses := []string{DeliverySent, DeliveryDelivered, DeliveryFailed, DeliveryUnconfirmed}
	rapid.Check(t, func(t *rapid.T) {
		d := Delivery{Status: DeliveryQueued}
		reports := rapid.SliceOfN(rapid.SampledFrom(statuses), 1, 12).Draw(t, "reports")
		finals, firstFinal := 0, ""
		for i, st := range reports {
			was := d.Status
			changed := d.Apply(Report{Status: st, At: t0.Add(time.Duration(i) * time.Second)})
			require.GreaterOrEqual(t, Rank(d.Status), Rank(was), "never backwards")
			if changed && IsFinal(d.Status) {
				finals++
			}
			if firstFinal == "" && IsFinal(st) {
				firstFinal = st
			}
		}
		if firstFinal != "" {
			require.Equal(t, firstFinal, d.Status)
			require.Equal(t, 1, finals, "one final status, so one message.status")
		}
	})
}
