package rosterapi

import "context"

// GroupChoice is a group as a picker shows it.
type GroupChoice struct {
	ID, Name string
}

// Groups lists a team's groups for pickers (Compose's audience).
type Groups interface {
	// GroupChoices returns every group of the team, by name.
	GroupChoices(ctx context.Context, teamID string) ([]GroupChoice, error)
}
