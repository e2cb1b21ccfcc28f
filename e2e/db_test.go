package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// countRows runs a count query on the suite's database. Suites use it to
// observe the event log until webhooks deliver what they assert on.
func countRows(t testing.TB, sql string, args ...any) int {
	t.Helper()
	return countRowsIn(t, env.pg.URL, sql, args...)
}

// countRowsIn is countRows on another database (a test's own).
func countRowsIn(t testing.TB, url, sql string, args ...any) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// analyze refreshes the planner's statistics of tables on the suite's
// database, so that a check over rows just written by the hundred thousand
// is planned for them, not for the near-empty tables autovacuum last saw
// (a nested loop over 100,000 × 100,000 rows that does not end).
func analyze(t testing.TB, tables string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), env.pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "ANALYZE "+tables); err != nil {
		t.Fatal(err)
	}
}

func eventCount(t *testing.T, teamID, typ string) int {
	return countRows(t, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = $2`, teamID, typ)
}

// deliveries counts a message's deliveries in a status (polling through the
// API would spend the key's request limit).
func deliveries(t testing.TB, url, messageID, status string) int {
	return countRowsIn(t, url, `SELECT count(*) FROM messaging_deliveries WHERE message_id = $1 AND status = $2`, messageID, status)
}

func messageCount(t *testing.T, url, teamID string) int {
	return countRowsIn(t, url, `SELECT count(*) FROM messaging_messages WHERE team_id = $1`, teamID)
}
