package postgres

import (
	"context"
	"fmt"
	"time"
)

// CountStats counts, for analytics, the team's roster entries created in
// [from, to) that are still on the roster and not pending, and its opt-out
// records created in [from, to). Both are range scans of an index on
// (team_id, created_at): roster_members_team_created (partial, not deleted)
// and roster_opt_outs_team_created.
func (r *Repo) CountStats(ctx context.Context, teamID string, from, to time.Time) (newMembers, optOuts int, err error) {
	err = r.db.IDB(ctx).QueryRowContext(ctx, `SELECT
  (SELECT count(*) FROM roster_members
    WHERE team_id = ? AND deleted_at IS NULL AND created_at >= ? AND created_at < ? AND status <> 'pending'),
  (SELECT count(*) FROM roster_opt_outs
    WHERE team_id = ? AND created_at >= ? AND created_at < ?)`,
		teamID, from, to, teamID, from, to).Scan(&newMembers, &optOuts)
	if err != nil {
		return 0, 0, fmt.Errorf("roster stats: %w", err)
	}
	return newMembers, optOuts, nil
}
