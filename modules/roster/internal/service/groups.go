package service

import (
	"context"
	"errors"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// maxGroupChoices bounds a picker's list; a team has a few dozen groups.
const maxGroupChoices = 500

// GroupChoices implements rosterapi.Groups.
func (d *Directory) GroupChoices(ctx context.Context, teamID string) ([]rosterapi.GroupChoice, error) {
	gs, err := d.st.Groups.Groups(ctx, teamID, maxGroupChoices, 0)
	if err != nil {
		return nil, err
	}
	out := make([]rosterapi.GroupChoice, 0, min(len(gs), maxGroupChoices))
	for _, g := range gs[:min(len(gs), maxGroupChoices)] {
		out = append(out, rosterapi.GroupChoice{ID: g.ID, Name: g.Name})
	}
	return out, nil
}

// IsGroup implements rosterapi.GroupMembers.
func (d *Directory) IsGroup(ctx context.Context, teamID, groupID string) (bool, error) {
	if groupID == "" {
		return false, nil
	}
	_, err := d.st.Groups.Group(ctx, teamID, groupID)
	if errors.Is(err, domain.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// JoinGroups implements rosterapi.GroupMembers.
func (d *Directory) JoinGroups(ctx context.Context, joins []rosterapi.GroupJoin) (int, error) {
	if len(joins) == 0 {
		return 0, nil
	}
	return d.st.Groups.JoinGroups(ctx, joins)
}

// FieldValues implements rosterapi.MergeFields.
func (d *Directory) FieldValues(ctx context.Context, teamID string, keys []string) (map[string]map[string]string, error) {
	if len(keys) == 0 {
		return map[string]map[string]string{}, nil
	}
	return d.st.Groups.FieldValues(ctx, teamID, keys)
}
