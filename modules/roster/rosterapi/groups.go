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

// MergeFields gives the dashboard's merge tags their custom values.
type MergeFields interface {
	// FieldValues returns, for each member of the team with a value for
	// one of keys (custom field keys, lowercased), their values by key, in
	// one statement. Members without any value are absent.
	FieldValues(ctx context.Context, teamID string, keys []string) (map[string]map[string]string, error)
}
