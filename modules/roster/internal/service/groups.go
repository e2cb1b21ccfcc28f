package service

import (
	"context"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// maxGroupChoices bounds a picker's list; a team has a few dozen groups.
const maxGroupChoices = 500

// GroupChoices implements rosterapi.Groups.
func (d *Directory) GroupChoices(ctx context.Context, teamID string) ([]rosterapi.GroupChoice, error) {
	gs, err := d.repo.Groups(ctx, teamID, maxGroupChoices, 0)
	if err != nil {
		return nil, err
	}
	out := make([]rosterapi.GroupChoice, 0, min(len(gs), maxGroupChoices))
	for _, g := range gs[:min(len(gs), maxGroupChoices)] {
		out = append(out, rosterapi.GroupChoice{ID: g.ID, Name: g.Name})
	}
	return out, nil
}

// FieldValues implements rosterapi.MergeFields.
func (d *Directory) FieldValues(ctx context.Context, teamID string, keys []string) (map[string]map[string]string, error) {
	if len(keys) == 0 {
		return map[string]map[string]string{}, nil
	}
	return d.repo.FieldValues(ctx, teamID, keys)
}
