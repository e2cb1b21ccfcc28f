package rosterapi

import (
	"context"

	"github.com/teamtext/teamtext/platform/phone"
)

// Zones reads members' own time zones.
type Zones interface {
	// TimeZones returns, for each of phones that has a live (not deleted)
	// roster entry of the team with time_zone set, that zone (the oldest
	// such entry's when several differ), in one statement. Phones without
	// one are absent.
	TimeZones(ctx context.Context, teamID string, phones []phone.Number) (map[phone.Number]string, error)
}
