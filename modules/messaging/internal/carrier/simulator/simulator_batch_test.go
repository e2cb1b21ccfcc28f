package simulator_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carriertest"
)

// SendMany records a batch like as many Sends would, in one report job:
// texts once per delivery id (within the batch and across calls), receipts
// equal to Send's, outcomes per number, unconfirmed numbers unreported.
func TestSendManyIsABatchOfSends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	bs, ok := h.Carrier.(carrier.BatchSender)
	require.True(t, ok, "the simulator takes batches")
	h.SetOutcome(t, "+12025550102", carriertest.Failed, "30006")
	h.SetOutcome(t, "+12025550103", carriertest.Unconfirmed, "")
	msg := func(id, to string) carrier.Message {
		return carrier.Message{DeliveryID: id, TeamID: "team_batch", From: "+12025550100", To: to, Body: "Bus at 7", Segments: 1}
	}

	before, err := h.Carrier.Send(ctx, msg("dlv_before", "+12025550101"))
	require.NoError(t, err)
	batch := []carrier.Message{msg("dlv_1", "+12025550101"), msg("dlv_2", "+12025550102"), msg("dlv_3", "+12025550103"),
		msg("dlv_1", "+12025550101"), msg("dlv_before", "+12025550101")}
	rs, err := bs.SendMany(ctx, batch)
	require.NoError(t, err)
	require.Len(t, rs, len(batch))
	for i, r := range rs {
		require.NoError(t, r.Err)
		require.False(t, r.Receipt.At.IsZero(), "the carrier says when it took text %d", i)
		rs[i].Receipt.At = time.Time{} // compared below without it
	}
	before.At = time.Time{}
	require.Equal(t, rs[0].Receipt, rs[3].Receipt, "the same delivery id twice in a batch is one text")
	require.Equal(t, before, rs[4].Receipt, "a delivery sent before gets its receipt again")
	require.NotEqual(t, rs[0].Receipt.ProviderMessageID, rs[1].Receipt.ProviderMessageID)

	texts := h.Texts(t)
	require.Len(t, texts, 4, "dlv_before, dlv_1, dlv_2, dlv_3: no second text for a repeated id")
	require.Equal(t, []string{"+12025550101", "+12025550101", "+12025550102", "+12025550103"},
		[]string{texts[0].To, texts[1].To, texts[2].To, texts[3].To}, "the outbox keeps the batch's order")

	ss := h.Statuses(t)
	got := map[string]string{}
	for _, s := range ss {
		_, dup := got[s.DeliveryID]
		require.False(t, dup, "one report per text: %s twice", s.DeliveryID)
		got[s.DeliveryID] = s.Status + "/" + s.ErrorCode
	}
	require.Equal(t, map[string]string{"dlv_before": "delivered/", "dlv_1": "delivered/", "dlv_2": "failed/30006"}, got)

	again, err := bs.SendMany(ctx, batch[:3])
	require.NoError(t, err)
	for i := range again {
		again[i].Receipt.At = time.Time{}
	}
	require.Equal(t, rs[:3], again, "a retried batch gets the same receipts")
	require.Len(t, h.Texts(t), 4, "and texts nobody")
	require.Len(t, h.Statuses(t), 3, "and reports nothing again")
}
