package outbound

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/phone"
)

// QuietRules tell the planner a team's quiet hours (its messaging
// settings, package settings).
type QuietRules interface {
	QuietHours(ctx context.Context, teamID string) (domain.QuietHours, error)
}

// MemberZones are members' own time zones, by phone (rosterapi.Zones).
type MemberZones interface {
	TimeZones(ctx context.Context, teamID string, phones []phone.Number) (map[phone.Number]string, error)
}

// hoursOf resolves each recipient's Hours for a send of team, once per
// number (not per slot), and returns nil when the team's quiet hours are
// off. The zone comes from the member's own time_zone, else the area
// code's zones (all of whose windows must allow), else the team's zone;
// recipients with the same zones share one *Hours, so the planner treats
// them as one class.
func (s *Service) hoursOf(ctx context.Context, teamID, teamZone string, phones []string, now time.Time) ([]*domain.Hours, error) {
	if s.Quiet == nil {
		return nil, nil
	}
	q, err := s.Quiet.QuietHours(ctx, teamID)
	if err != nil || !q.Enabled {
		return nil, err
	}
	start, end := int(q.Start), int(q.End)
	own := map[phone.Number]string{}
	if s.Zones != nil {
		numbers := make([]phone.Number, len(phones))
		for i, p := range phones {
			numbers[i] = phone.Number(p)
		}
		if own, err = s.Zones.TimeZones(ctx, teamID, numbers); err != nil {
			return nil, fmt.Errorf("quiet hours: members' zones: %w", err)
		}
	}
	locs := map[string]*time.Location{}
	load := func(name string) *time.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		l, err := time.LoadLocation(name)
		if err != nil {
			l = nil
		}
		locs[name] = l
		return l
	}
	team := load(teamZone)
	if team == nil {
		team = time.UTC
	}
	classes := map[string]*domain.Hours{}
	class := func(names []string) *domain.Hours {
		key := strings.Join(names, ",")
		if h, ok := classes[key]; ok {
			return h
		}
		h := &domain.Hours{Open: end, Close: start, Guard: domain.QuietGuard} // allowed: from the quiet window's end to its start
		for _, n := range names {
			if l := load(n); l != nil {
				h.Zones = append(h.Zones, l)
			}
		}
		if len(h.Zones) == 0 || !h.Overlap(now) {
			h.Zones = []*time.Location{team}
		}
		classes[key] = h
		return h
	}
	out := make([]*domain.Hours, len(phones))
	byPhone := map[string]*domain.Hours{}
	for i, p := range phones {
		if h, ok := byPhone[p]; ok {
			out[i] = h
			continue
		}
		var names []string
		if z := own[phone.Number(p)]; z != "" {
			names = []string{z}
		} else if names = phone.TimeZones(p); len(names) == 0 {
			names = []string{teamZone}
		}
		out[i] = class(names)
		byPhone[p] = out[i]
	}
	return out, nil
}
