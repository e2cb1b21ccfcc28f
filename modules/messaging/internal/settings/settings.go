// Package settings is a team's messaging settings that rule sending: its
// quiet hours, and whether its texts fail over between carrier
// accounts. The HELP reply is inbound's (inbound.Replies).
package settings

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/fault"
)

// Store keeps a team's setting (postgres.Repo).
type Store interface {
	QuietHours(ctx context.Context, teamID string) (domain.QuietHoursSetting, error)
	SetQuietHours(ctx context.Context, teamID string, s domain.QuietHoursSetting, at time.Time) error
	CarrierFailover(ctx context.Context, teamID string) (bool, error)
	SetCarrierFailover(ctx context.Context, teamID string, on bool, at time.Time) error
	// LockSettings holds the team's settings for the caller's transaction.
	LockSettings(ctx context.Context, teamID string, at time.Time) error
}

// Transactor runs fn in one transaction (*db.DB).
type Transactor interface {
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Deps are the service's collaborators.
type Deps struct {
	Tx     Transactor
	Store  Store
	Teams  rosterapi.Teams
	Clock  clock.Clock
	Config config.Config // QuietHoursDefault
}

// Service reads and changes a team's quiet hours.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

// Quiet is a team's quiet hours as the admin API and the dashboard show
// them: the rule, and whether Enabled follows the operator's default.
type Quiet struct {
	domain.QuietHours
	EnabledDefault bool // the team has not chosen: Enabled is QUIET_HOURS_DEFAULT
}

// QuietHoursPatch changes any of a team's quiet-hours fields; nil leaves
// one as it is. Start and End are "HH:MM".
type QuietHoursPatch struct {
	Enabled    *bool
	Start, End *string
}

// QuietHours is the rule the planner applies to a team's routine texts:
// the team's own, or the default window with QUIET_HOURS_DEFAULT when the
// team has not chosen. The planner's team exists, so this reads the one
// settings row and nothing else (Quiet answers 404 for an unknown team).
func (s *Service) QuietHours(ctx context.Context, teamID string) (domain.QuietHours, error) {
	set, err := s.d.Store.QuietHours(ctx, teamID)
	if err != nil {
		return domain.QuietHours{}, err
	}
	return set.Rule(s.d.Config.QuietHoursDefault), nil
}

// Quiet is the team's quiet hours with whether they follow the default.
func (s *Service) Quiet(ctx context.Context, teamID string) (Quiet, error) {
	if _, err := s.d.Teams.Team(ctx, teamID); err != nil {
		return Quiet{}, err
	}
	set, err := s.d.Store.QuietHours(ctx, teamID)
	if err != nil {
		return Quiet{}, err
	}
	return Quiet{QuietHours: set.Rule(s.d.Config.QuietHoursDefault), EnabledDefault: set.Enabled == nil}, nil
}

// SetQuietHours changes the fields p names and answers with the result. A
// time that is not HH:MM, or a start equal to the end, is a 400
// invalid_request naming the field; nothing is changed then.
func (s *Service) SetQuietHours(ctx context.Context, teamID string, p QuietHoursPatch) (Quiet, error) {
	if _, err := s.d.Teams.Team(ctx, teamID); err != nil {
		return Quiet{}, err
	}
	start, err := clockOf("quiet_hours.start", p.Start)
	if err != nil {
		return Quiet{}, err
	}
	end, err := clockOf("quiet_hours.end", p.End)
	if err != nil {
		return Quiet{}, err
	}
	err = s.d.Tx.Tx(ctx, func(ctx context.Context) error {
		now := s.d.Clock.Now().UTC()
		if err := s.d.Store.LockSettings(ctx, teamID, now); err != nil {
			return err
		}
		set, err := s.d.Store.QuietHours(ctx, teamID)
		if err != nil {
			return err
		}
		if p.Enabled != nil {
			on := *p.Enabled
			set.Enabled = &on
		}
		if start != nil {
			set.Start = *start
		}
		if end != nil {
			set.End = *end
		}
		if _, err := domain.NewQuietHours(false, set.Start, set.End); err != nil {
			return err
		}
		return s.d.Store.SetQuietHours(ctx, teamID, set, now)
	})
	if err != nil {
		return Quiet{}, err
	}
	return s.Quiet(ctx, teamID)
}

// clockOf parses an optional field's time of day, naming the field when
// it is refused.
func clockOf(field string, v *string) (*domain.Clock, error) {
	if v == nil {
		return nil, nil
	}
	c, err := domain.ParseClock(*v)
	if err != nil {
		return nil, fault.Invalidf("%s must be a time of day HH:MM, from 00:00 to 23:59 (got %q)", field, *v)
	}
	return &c, nil
}

// CarrierFailover reports whether the team's queued texts move to its
// numbers on healthy carrier accounts while one is down (404 for an
// unknown team).
func (s *Service) CarrierFailover(ctx context.Context, teamID string) (bool, error) {
	if _, err := s.d.Teams.Team(ctx, teamID); err != nil {
		return false, err
	}
	return s.d.Store.CarrierFailover(ctx, teamID)
}

// SetCarrierFailover turns the team's failover on or off.
func (s *Service) SetCarrierFailover(ctx context.Context, teamID string, on bool) error {
	if _, err := s.d.Teams.Team(ctx, teamID); err != nil {
		return err
	}
	return s.d.Tx.Tx(ctx, func(ctx context.Context) error {
		now := s.d.Clock.Now().UTC()
		if err := s.d.Store.LockSettings(ctx, teamID, now); err != nil {
			return err
		}
		return s.d.Store.SetCarrierFailover(ctx, teamID, on, now)
	})
}
