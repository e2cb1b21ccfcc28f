package outbound_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/ingest"
)

// deliveryIDs returns a message's deliveries' ids in their order.
func (b *bundle) deliveryIDs(t *testing.T, messageID string) []string {
	t.Helper()
	rows, err := b.db.SQLDB.Query(`SELECT id FROM messaging_deliveries WHERE message_id = $1 ORDER BY seq`, messageID)
	require.NoError(t, err)
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	return ids
}

// TestStagedStatusesIngestedInBatches: a carrier's status callbacks only
// stage their reports, each message's in one lane; the filer ingests a
// lane's reports in one transaction, duplicate, late and contradicting
// reports included, so each delivery ends in its first final status, its
// message's counts follow, and each final status publishes message.status
// once. Nothing is ingested before the filer runs.
func TestStagedStatusesIngestedInBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	a, _ := b.send(t, phones(3, 0))
	c, _ := b.send(t, phones(2, 100))
	da, dc := b.deliveryIDs(t, a), b.deliveryIDs(t, c)
	at := b.clock.Now().Add(-time.Second)
	sink := ingest.Sink{Statuses: b.repo, Clock: b.clock}
	report := func(delivery, status, code string) {
		t.Helper()
		require.NoError(t, sink.Report(ctx, carrier.StatusArgs{DeliveryID: delivery, ProviderMessageID: "SM" + delivery, Status: status,
			CarrierStatus: status, ErrorCode: code, At: at}))
	}
	report(da[0], domain.DeliveryDelivered, "")
	report(da[0], domain.DeliverySent, "")              // late
	report(da[0], domain.DeliveryDelivered, "")         // the carrier's retry
	report(da[1], domain.DeliveryFailed, "30003")       //
	report(da[1], domain.DeliveryDelivered, "")         // contradicting: the first final status wins
	report(da[2], domain.DeliverySent, "")              //
	report(dc[0], domain.DeliveryDelivered, "")         //
	report(dc[1], domain.DeliverySent, "")              //
	report("rpl_unknown", domain.DeliveryDelivered, "") // a one-to-one text's: ignored

	require.Equal(t, 9, countRows(t, b.db, `SELECT count(*) FROM messaging_status_pending`))
	for _, ids := range [][]string{da, dc} {
		require.Equal(t, 1, countRows(t, b.db, `SELECT count(DISTINCT lane) FROM messaging_status_pending WHERE delivery_id = ANY($1)`, ids),
			"one message's reports share a lane")
	}
	require.Equal(t, 3, countRows(t, b.db, `SELECT queued_count FROM messaging_messages WHERE id = $1`, a), "staged, not ingested")

	filed := 0
	for range domain.StatusLanes + 1 {
		got, err := b.ingest.FileNext(ctx, 0)
		require.NoError(t, err)
		if len(got) == 0 {
			break
		}
		filed += len(got)
	}
	require.Equal(t, 9, filed)
	require.Equal(t, 0, countRows(t, b.db, `SELECT count(*) FROM messaging_status_pending`))

	type counts struct{ queued, sent, delivered, failed int }
	read := func(id string) counts {
		var n counts
		require.NoError(t, b.db.SQLDB.QueryRow(`SELECT queued_count, sent_count, delivered_count, failed_count FROM messaging_messages WHERE id = $1`, id).
			Scan(&n.queued, &n.sent, &n.delivered, &n.failed))
		return n
	}
	require.Equal(t, counts{sent: 1, delivered: 1, failed: 1}, read(a))
	require.Equal(t, counts{sent: 1, delivered: 1}, read(c))
	status := func(id string) (st, code string) {
		require.NoError(t, b.db.SQLDB.QueryRow(`SELECT status, error_code FROM messaging_deliveries WHERE id = $1`, id).Scan(&st, &code))
		return st, code
	}
	st, code := status(da[1])
	require.Equal(t, []string{domain.DeliveryFailed, "30003"}, []string{st, code})
	st, _ = status(da[0])
	require.Equal(t, domain.DeliveryDelivered, st)
	require.Equal(t, 3, countRows(t, b.db, `SELECT count(*) FROM test_events WHERE type = 'message.status'`), "one per final status")
	require.Equal(t, 1, countRows(t, b.db, `SELECT count(*) FROM test_events WHERE type = 'message.status' AND data->>'delivery_id' = $1`, da[0]))
}

// TestStagedStatusSetAsideAfterFailingAlone: a report that cannot be
// ingested does not hold its lane: the batch is ingested again report by
// report, the others go through, and the failing one is set aside after
// domain.StatusMaxAttempts tries, kept staged with its error.
func TestStagedStatusSetAsideAfterFailingAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	a, _ := b.send(t, phones(2, 0))
	da := b.deliveryIDs(t, a)
	// Postgres refuses this delivery's status update (a stand-in for any
	// fault of one report): the message's other report must still land.
	_, err := b.db.SQLDB.Exec(`CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'poison delivery'; END $$`)
	require.NoError(t, err)
	_, err = b.db.SQLDB.Exec(`CREATE TRIGGER poison BEFORE UPDATE ON messaging_deliveries FOR EACH ROW
WHEN (OLD.id = '` + da[0] + `') EXECUTE FUNCTION refuse_poison()`)
	require.NoError(t, err)
	sink := ingest.Sink{Statuses: b.repo, Clock: b.clock}
	for _, d := range da {
		require.NoError(t, sink.Report(ctx, carrier.StatusArgs{DeliveryID: d, ProviderMessageID: "SM" + d, Status: domain.DeliveryDelivered,
			CarrierStatus: "delivered", At: b.clock.Now()}))
	}
	got, err := b.ingest.FileNext(ctx, 0)
	require.NoError(t, err)
	require.Len(t, got, 1, "the healthy report")
	require.Equal(t, 1, countRows(t, b.db, `SELECT delivered_count FROM messaging_messages WHERE id = $1`, a))
	require.Equal(t, 1, countRows(t, b.db, `SELECT count(*) FROM messaging_status_pending WHERE delivery_id = $1 AND attempts = $2
AND last_error LIKE '%poison delivery%'`, da[0], domain.StatusMaxAttempts))
	got, err = b.ingest.FileNext(ctx, 0)
	require.NoError(t, err)
	require.Empty(t, got, "set aside: no longer taken")
	n, _, err := b.repo.PendingStatusStats(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "still staged, for an operator")
}

// TestIngestionLocksMessagesInIdOrder: a batch of reports on several
// messages takes the messages' rows in id order, as a hand-over of them
// does, so the two never deadlock: while the lowest message is held
// elsewhere, the batch waits for it holding none of the others.
func TestIngestionLocksMessagesInIdOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	var ids []string
	deliveryOf := map[string]string{}
	for i := range 8 {
		m, _ := b.send(t, phones(1, 100*i))
		ids = append(ids, m)
		deliveryOf[m] = b.deliveryIDs(t, m)[0]
	}
	slices.Sort(ids)

	holder, err := b.db.SQLDB.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = holder.Rollback() }()
	_, err = holder.Exec(`SELECT 1 FROM messaging_messages WHERE id = $1 FOR UPDATE`, ids[0])
	require.NoError(t, err)

	var reports []carrier.StatusArgs
	for i := len(ids) - 1; i >= 0; i-- { // the highest message's report first
		reports = append(reports, carrier.StatusArgs{DeliveryID: deliveryOf[ids[i]], ProviderMessageID: "SM" + ids[i],
			Status: domain.DeliveryDelivered, CarrierStatus: "delivered", At: b.clock.Now()})
	}
	applied := make(chan error, 1)
	go func() { applied <- b.ingest.Apply(ctx, reports) }()
	require.Eventually(t, func() bool {
		return countRows(t, b.db, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`) == 1
	}, 30*time.Second, 5*time.Millisecond, "the batch waits for the lowest message")

	other, err := b.db.SQLDB.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = other.Exec(`SELECT 1 FROM messaging_messages WHERE id = ANY($1) FOR UPDATE NOWAIT`, ids[1:])
	require.NoError(t, err, "no other message is held while the batch waits")
	require.NoError(t, other.Rollback())

	require.NoError(t, holder.Rollback())
	require.NoError(t, <-applied)
	require.Equal(t, len(ids), countRows(t, b.db, `SELECT sum(delivered_count) FROM messaging_messages`))
}
