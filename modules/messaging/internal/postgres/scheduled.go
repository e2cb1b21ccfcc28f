package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// This file is the scheduled-sends store: one-off and weekly sends waiting
// for their time (the service's ScheduledStore), and their stop when the
// key that made them is revoked.

// scheduledRow is a messaging_scheduled row.
type scheduledRow struct {
	bun.BaseModel `bun:"table:messaging_scheduled,alias:s"`
	ID            string          `bun:"id,pk"`
	TeamID        string          `bun:"team_id"`
	KeyID         string          `bun:"key_id"`
	MemberID      string          `bun:"member_id"`
	Request       json.RawMessage `bun:"request,type:jsonb"`
	ScheduledFor  time.Time       `bun:"scheduled_for"`
	RepeatEvery   string          `bun:"repeat_every"`
	RepeatUntil   *time.Time      `bun:"repeat_until,type:date"`
	Status        string          `bun:"status"`
	StatusReason  string          `bun:"status_reason"`
	Runs          int             `bun:"runs"`
	CreatedAt     time.Time       `bun:"created_at"`
	UpdatedAt     time.Time       `bun:"updated_at"`
}

// InsertScheduled stores a scheduled send.
func (r *Repo) InsertScheduled(ctx context.Context, s *domain.Scheduled) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(fromScheduled(s)).Exec(ctx); err != nil {
		return fmt.Errorf("insert scheduled: %w", err)
	}
	return nil
}

// Scheduled loads a scheduled send by id (and team, if given).
func (r *Repo) Scheduled(ctx context.Context, teamID, id string) (*domain.Scheduled, error) {
	s := new(scheduledRow)
	if err := r.selectScheduled(ctx, s, teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select scheduled")
	}
	return toScheduled(s), nil
}

// selectScheduled is the statement that reads a scheduled send by id (and
// team, if given) into s.
func (r *Repo) selectScheduled(ctx context.Context, s *scheduledRow, teamID, id string) *bun.SelectQuery {
	q := r.db.IDB(ctx).NewSelect().Model(s).Where("id = ?", id)
	if teamID != "" {
		q = q.Where("team_id = ?", teamID)
	}
	return q
}

// UpdateScheduled loads a scheduled send by id (and team, if given)
// locked, lets change alter it and writes every column back, in one
// transaction (the caller's, if ctx carries one). When change fails
// nothing is written. It answers the scheduled send as written.
func (r *Repo) UpdateScheduled(ctx context.Context, teamID, id string, change func(*domain.Scheduled) error) (*domain.Scheduled, error) {
	var out *domain.Scheduled
	err := r.db.Tx(ctx, func(ctx context.Context) error {
		row := new(scheduledRow)
		if err := r.selectScheduled(ctx, row, teamID, id).For("UPDATE").Scan(ctx); err != nil {
			return notFound(err, "select scheduled")
		}
		s := toScheduled(row)
		if err := change(s); err != nil {
			return err
		}
		if _, err := r.db.IDB(ctx).NewUpdate().Model(fromScheduled(s)).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("update scheduled: %w", err)
		}
		out = s
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PendingScheduled lists a team's pending scheduled sends, soonest first, limit+1 rows.
func (r *Repo) PendingScheduled(ctx context.Context, teamID string, limit, offset int) ([]domain.Scheduled, error) {
	var ss []scheduledRow
	err := r.db.IDB(ctx).NewSelect().Model(&ss).Where("team_id = ? AND status = 'pending'", teamID).
		OrderExpr("scheduled_for, id").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list scheduled: %w", err)
	}
	out := make([]domain.Scheduled, len(ss))
	for i := range ss {
		out[i] = *toScheduled(&ss[i])
	}
	return out, nil
}

// CountPendingScheduled counts a team's pending scheduled sends.
func (r *Repo) CountPendingScheduled(ctx context.Context, teamID string) (int, error) {
	n, err := r.db.IDB(ctx).NewSelect().Model((*scheduledRow)(nil)).Where("team_id = ? AND status = 'pending'", teamID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count scheduled: %w", err)
	}
	return int(n), nil
}

// StopKeyScheduled stops every pending scheduled send of a revoked key.
func (r *Repo) StopKeyScheduled(ctx context.Context, keyID, reason string, at time.Time) (int, error) {
	res, err := r.db.IDB(ctx).NewUpdate().Model((*scheduledRow)(nil)).Set("status = 'stopped'").Set("status_reason = ?", reason).
		Set("updated_at = ?", at).Where("key_id = ? AND status = 'pending'", keyID).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("stop key scheduled: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

func toScheduled(r *scheduledRow) *domain.Scheduled {
	return &domain.Scheduled{ID: r.ID, TeamID: r.TeamID, KeyID: r.KeyID, MemberID: r.MemberID, Request: r.Request,
		ScheduledFor: r.ScheduledFor, RepeatEvery: r.RepeatEvery, RepeatUntil: r.RepeatUntil, Status: r.Status,
		StatusReason: r.StatusReason, Runs: r.Runs, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func fromScheduled(s *domain.Scheduled) *scheduledRow {
	return &scheduledRow{ID: s.ID, TeamID: s.TeamID, KeyID: s.KeyID, MemberID: s.MemberID, Request: s.Request,
		ScheduledFor: s.ScheduledFor, RepeatEvery: s.RepeatEvery, RepeatUntil: s.RepeatUntil, Status: s.Status,
		StatusReason: s.StatusReason, Runs: s.Runs, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}
