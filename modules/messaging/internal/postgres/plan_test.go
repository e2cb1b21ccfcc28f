package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

// planDB is a database of its own with messaging's migrations and fixture (SQL)
// loaded: the rows and statistics a plan test's statement meets.
func planDB(t *testing.T, fixture string) *db.DB {
	t.Helper()
	d := srv.Migrated(t, postgres.Migrations())
	_, err := d.Pool.Exec(context.Background(), fixture)
	require.NoError(t, err)
	return d
}

// TestDeliveriesPage: a page of a message's deliveries comes through pgx in
// position order, with its nullable and array columns as bun read them, and
// its generic plan (pgx prepares the text; Postgres switches to a generic
// plan after five runs) walks the (message_id, seq) index of a 20,000-row
// table instead of scanning it.
func TestDeliveriesPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := planDB(t, `
INSERT INTO messaging_messages (id, team_id, source, audience, text, rendered, encoding, segments, recipients, status, created_at)
  SELECT 'msg_' || k, 'team_plan', 'api', 'all', 'hi', 'hi', 'GSM-7', 1, 10000, 'sent', now() FROM generate_series(1, 2) k;
INSERT INTO messaging_deliveries (id, team_id, message_id, seq, phone, member_ids, status, error_code, sent_at, updated_at)
  SELECT 'dlv_' || k || '_' || lpad(i::text, 6, '0'), 'team_plan', 'msg_' || k, i, '+1202' || lpad(i::text, 7, '0'),
         CASE WHEN i % 3 = 0 THEN '{}'::text[] ELSE ARRAY['mem_' || i, 'mem_x' || i] END,
         CASE WHEN i % 2 = 0 THEN 'delivered' ELSE 'failed' END, CASE WHEN i % 2 = 0 THEN '' ELSE '30003' END,
         CASE WHEN i % 2 = 0 THEN timestamptz '2026-11-24 12:00:00+00' END, timestamptz '2026-11-24 12:00:01+00'
  FROM generate_series(1, 10000) i, generate_series(1, 2) k;
ANALYZE messaging_messages, messaging_deliveries;`)

	repo := postgres.NewRepo(d, nil)

	_, err := repo.Deliveries(ctx, "team_other", "msg_2", "", 3, 4) // another team's message: not found, not an empty page
	require.ErrorIs(t, err, postgres.ErrNotFound)
	ds, err := repo.Deliveries(ctx, "team_plan", "msg_2", "", 3, 4) // positions 5..8: a page of 3 and the one that says there is more
	require.NoError(t, err)
	require.Len(t, ds, 4)
	for i, dl := range ds {
		n := 5 + i
		require.Equal(t, n, dl.Seq)
		require.Equal(t, "msg_2", dl.MessageID)
		require.Equal(t, "team_plan", dl.TeamID)
		require.Equal(t, fmt.Sprintf("dlv_2_%06d", n), dl.ID)
		if n%3 == 0 {
			require.Empty(t, dl.MemberIDs)
		} else {
			require.Len(t, dl.MemberIDs, 2)
		}
		if n%2 == 0 {
			require.Equal(t, "delivered", dl.Status)
			require.Empty(t, dl.ErrorCode)
			require.NotNil(t, dl.SentAt)
			require.True(t, dl.SentAt.Equal(dl.UpdatedAt.Add(-1e9)), dl.SentAt)
		} else {
			require.Equal(t, "30003", dl.ErrorCode)
			require.Nil(t, dl.SentAt)
		}
	}
	require.NotSame(t, ds[1].SentAt, ds[3].SentAt) // each row its own time, not the scan buffer's
	require.Equal(t, []string{"mem_7", "mem_x7"}, ds[2].MemberIDs)

	for i, status := range []string{"", "failed"} { // all, and the dashboard's filter by status
		text := dbtest.GenericPlan(t, d, fmt.Sprintf(`PREPARE deliveries_page_%d(text, bigint, bigint, text) AS `, i)+postgres.DeliveriesPageSQL,
			fmt.Sprintf(`EXECUTE deliveries_page_%d('msg_2', 201, 9000, '%s')`, i, status))
		require.NotContains(t, text, "Seq Scan", text)
		require.NotContains(t, text, "Sort", text)
		require.Contains(t, text, "messaging_deliveries_message_seq", text)
	}
}

// TestLatestTo: a member's page lists the latest texts their number got
// from the team, newest first, each as that number got it (its own body
// when merge tags rendered one, else the message's text), and the
// statement walks the team's messages by index and probes each one's
// deliveries by index: no scan of the deliveries.
func TestLatestTo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := planDB(t, `
INSERT INTO messaging_messages (id, team_id, source, audience, text, rendered, encoding, segments, recipients, status, created_at)
  SELECT 'msg_' || lpad(k::text, 3, '0'), CASE WHEN k = 7 THEN 'team_other' ELSE 'team_latest' END, 'api', 'all', 'text ' || k,
         'text ' || k, 'GSM-7', 1, 2000, 'sent', now() FROM generate_series(1, 12) k;
INSERT INTO messaging_deliveries (id, team_id, message_id, seq, phone, member_ids, status, error_code, updated_at, body)
  SELECT 'dlv_' || lpad(k::text, 3, '0') || '_' || lpad(i::text, 5, '0'), CASE WHEN k = 7 THEN 'team_other' ELSE 'team_latest' END,
         'msg_' || lpad(k::text, 3, '0'), i, '+1202' || lpad(i::text, 7, '0'), '{}'::text[],
         CASE WHEN k = 12 THEN 'failed' ELSE 'delivered' END, CASE WHEN k = 12 THEN '30003' ELSE '' END, now(),
         CASE WHEN k = 11 THEN 'Hi Ava, text 11' END
  FROM generate_series(1, 12) k, generate_series(1, 2000) i;
ANALYZE messaging_messages, messaging_deliveries;`)
	repo := postgres.NewRepo(d, nil)
	ds, err := repo.LatestTo(ctx, "team_latest", "+12020000005", 3)
	require.NoError(t, err)
	require.Len(t, ds, 3)
	require.Equal(t, []string{"msg_012", "msg_011", "msg_010"}, []string{ds[0].MessageID, ds[1].MessageID, ds[2].MessageID})
	require.Equal(t, "failed", ds[0].Status)
	require.Equal(t, "30003", ds[0].ErrorCode)
	require.Equal(t, "Hi Ava, text 11", ds[1].Text, "the number's own rendered text")
	require.Equal(t, "text 10", ds[2].Text)
	ds, err = repo.LatestTo(ctx, "team_latest", "+12020000005", 20)
	require.NoError(t, err)
	require.Len(t, ds, 11, "another team's texts to the same number are not listed")

	text := dbtest.GenericPlan(t, d, `PREPARE latest_to(text, text, int) AS `+postgres.LatestToSQL,
		`EXECUTE latest_to('team_latest', '+12020000005', 10)`)
	require.NotContains(t, text, "Seq Scan on messaging_deliveries", text)
	require.Contains(t, text, "messaging_messages_team_created", text)
	require.Contains(t, text, "messaging_deliveries_message_seq", text)
}
