package postgres

import "github.com/teamtext/teamtext/platform/db"

// The statement builders the benchmarks (package postgres_test) send raw
// through pgx beside the store's own path: the texts the service sends,
// not copies of them.

// CreditsUsedSQL is CreditsUsed's statement.
const CreditsUsedSQL = creditsUsed

// AccountText is Get's statement as bun sends it.
func AccountText(d *db.DB, teamID string) string {
	return selectAccount(d.Bun, new(accountRow), teamID).String()
}
