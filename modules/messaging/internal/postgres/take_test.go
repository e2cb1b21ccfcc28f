package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

// TestTakesReadTheirBatchOnly: a filer's take of 500 from a lane of
// 20,000 staged statuses, or texts, reads its batch from the staging
// table, not the lane or the table: the rows are chosen by an index and
// deleted by key, on fresh statistics. (A send to a large team puts its
// statuses in one lane; read whole, each batch of 500 read all of them.)
func TestTakesReadTheirBatchOnly(t *testing.T) {
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	_, err := d.Pool.Exec(ctx, `
INSERT INTO messaging_status_pending (lane, delivery_id, provider_message_id, status, carrier_status, error_code, error_message, staged_at)
SELECT 3, 'dlv_' || g, 'pm' || g, 'delivered', 'delivered', '', '', now() FROM generate_series(1, 20000) g;
INSERT INTO messaging_status_pending (lane, delivery_id, provider_message_id, status, carrier_status, error_code, error_message, staged_at)
SELECT 6, 'dlvx_' || g, 'px' || g, 'delivered', 'delivered', '', '', now() FROM generate_series(1, 10) g;
INSERT INTO messaging_inbound_pending (provider_message_id, from_phone, to_phone, body, keyword, lane, received_at)
SELECT 'pm' || g, '+1202' || lpad((g % 2000)::text, 7, '0'), '+15550000000', 'hi', false, 3, now() FROM generate_series(1, 20000) g;
ANALYZE messaging_status_pending, messaging_inbound_pending`)
	require.NoError(t, err)

	for _, c := range []struct {
		name, table, sql string
		attempts         int
		bound            float64
	}{
		// 500 chosen by an index, found by key, deleted.
		{"statuses", "messaging_status_pending", postgres.TakeStatusesSQL, domain.StatusMaxAttempts, 1500},
		// The same. (A lane holding a keyword text reads the lane once
		// more for that sender's earlier texts, which go first: one
		// batch per STOP, START or HELP.)
		{"texts", "messaging_inbound_pending", postgres.TakeInboundSQL, domain.InboundMaxAttempts, 1500},
	} {
		t.Run(c.name, func(t *testing.T) {
			tx, err := d.Pool.Begin(ctx)
			require.NoError(t, err)
			defer func() { _ = tx.Rollback(ctx) }() // EXPLAIN ANALYZE deletes what it takes
			read := dbtest.RowsRead(t, tx, c.sql, 3, 500, c.attempts)
			require.LessOrEqual(t, read[c.table], c.bound, "rows read from %s to take 500 of 20,000", c.table)
			require.Positive(t, read[c.table])
		})
	}
}
