package service

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

var _ rosterapi.Stats = (*Directory)(nil)

// Counts implements rosterapi.Stats: new members and opt-outs in [from, to),
// counted by index range scans (see postgres.Repo.CountStats).
func (d *Directory) Counts(ctx context.Context, teamID string, from, to time.Time) (newMembers, optOuts int, err error) {
	return d.st.Outcomes.CountStats(ctx, teamID, from, to)
}
