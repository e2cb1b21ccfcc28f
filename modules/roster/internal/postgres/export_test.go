package postgres

import (
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/teamtext/teamtext/platform/db"
)

// The statement builders the benchmarks (package postgres_test) send raw
// through pgx beside the repository's own path: the texts the service
// sends, not copies of them.

// MemberPageSQL is MemberPage's statement for a filter, and its arguments.
var MemberPageSQL = memberPageSQL

// The import's statements besides ImportEntriesSQL, and its COPY columns.
const (
	ImportPlanSQL    = importPlanSQL
	ImportOptOutsSQL = importOptOutsSQL
	ImportGroupsSQL  = importGroupsSQL
)

var (
	MemberCopyColumns     = memberCopyColumns
	MembershipCopyColumns = membershipCopyColumns
	ConsentEventColumns   = consentEventColumns
)

// LockPhonesText is LockPhones' statement as bun sends it: the team and
// the numbers formatted into the text.
func LockPhonesText(d *db.DB, teamID string, phones []string) string {
	return d.Bun.QueryGen().FormatQuery(lockPhonesSQL, teamID, pgdialect.Array(phones))
}

// TeamText is Team's statement as bun sends it.
func TeamText(d *db.DB, id string) string { return selectTeam(d.Bun, new(teamRow), id).String() }
