package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// countRows runs a count query on the suite's database. Suites use it to
// observe the event log until webhooks deliver what they assert on.
func countRows(t *testing.T, sql string, args ...any) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), env.pg.URL)
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

func eventCount(t *testing.T, teamID, typ string) int {
	return countRows(t, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = $2`, teamID, typ)
}
