package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// QuietHours returns a team's stored quiet-hours setting; a team without a
// settings row has the default window and follows the operator's default.
func (r *Repo) QuietHours(ctx context.Context, teamID string) (domain.QuietHoursSetting, error) {
	var (
		enabled    sql.NullBool
		start, end string
	)
	err := r.db.IDB(ctx).QueryRowContext(ctx, `SELECT quiet_enabled, quiet_start, quiet_end FROM messaging_settings WHERE team_id = ?`, teamID).
		Scan(&enabled, &start, &end)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.QuietHoursSetting{Start: domain.DefaultQuietStart, End: domain.DefaultQuietEnd}, nil
	}
	if err != nil {
		return domain.QuietHoursSetting{}, fmt.Errorf("select quiet hours: %w", err)
	}
	s := domain.QuietHoursSetting{}
	if enabled.Valid {
		s.Enabled = &enabled.Bool
	}
	if s.Start, err = domain.ParseClock(start); err != nil {
		return s, fmt.Errorf("team %s quiet_start: %w", teamID, err)
	}
	if s.End, err = domain.ParseClock(end); err != nil {
		return s, fmt.Errorf("team %s quiet_end: %w", teamID, err)
	}
	return s, nil
}

// SetQuietHours stores a team's quiet-hours setting (Enabled nil: the
// operator's default), keeping its HELP reply.
func (r *Repo) SetQuietHours(ctx context.Context, teamID string, s domain.QuietHoursSetting, at time.Time) error {
	var enabled sql.NullBool
	if s.Enabled != nil {
		enabled = sql.NullBool{Bool: *s.Enabled, Valid: true}
	}
	_, err := r.db.IDB(ctx).ExecContext(ctx, `INSERT INTO messaging_settings (team_id, quiet_enabled, quiet_start, quiet_end, updated_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (team_id) DO UPDATE SET quiet_enabled = EXCLUDED.quiet_enabled, quiet_start = EXCLUDED.quiet_start, quiet_end = EXCLUDED.quiet_end,
	updated_at = EXCLUDED.updated_at`, teamID, enabled, s.Start.String(), s.End.String(), at)
	if err != nil {
		return fmt.Errorf("set quiet hours: %w", err)
	}
	return nil
}

// LockSettings makes sure the team has a settings row and locks it for the
// caller's transaction, so that changes of a few of its fields (a PATCH)
// do not overwrite each other.
func (r *Repo) LockSettings(ctx context.Context, teamID string, at time.Time) error {
	idb := r.db.IDB(ctx)
	if _, err := idb.ExecContext(ctx, `INSERT INTO messaging_settings (team_id, updated_at) VALUES (?, ?) ON CONFLICT (team_id) DO NOTHING`, teamID, at); err != nil {
		return fmt.Errorf("insert settings: %w", err)
	}
	if _, err := idb.ExecContext(ctx, `SELECT 1 FROM messaging_settings WHERE team_id = ? FOR UPDATE`, teamID); err != nil {
		return fmt.Errorf("lock settings: %w", err)
	}
	return nil
}

// CarrierFailover reports whether the team moves its queued texts to its
// numbers on healthy carrier accounts while one is down (default off).
func (r *Repo) CarrierFailover(ctx context.Context, teamID string) (bool, error) {
	var on bool
	err := r.db.IDB(ctx).QueryRowContext(ctx, `SELECT carrier_failover FROM messaging_settings WHERE team_id = ?`, teamID).Scan(&on)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("select carrier failover: %w", err)
	}
	return on, nil
}

// SetCarrierFailover stores the team's failover choice, keeping its other
// settings.
func (r *Repo) SetCarrierFailover(ctx context.Context, teamID string, on bool, at time.Time) error {
	_, err := r.db.IDB(ctx).ExecContext(ctx, `INSERT INTO messaging_settings (team_id, carrier_failover, updated_at) VALUES (?, ?, ?)
ON CONFLICT (team_id) DO UPDATE SET carrier_failover = EXCLUDED.carrier_failover, updated_at = EXCLUDED.updated_at`, teamID, on, at)
	if err != nil {
		return fmt.Errorf("set carrier failover: %w", err)
	}
	return nil
}
