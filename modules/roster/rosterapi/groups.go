package rosterapi

import (
	"context"

	"github.com/teamtext/teamtext/platform/phone"
)

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

// GroupJoin puts a phone's roster entries on a team in a group.
type GroupJoin struct {
	TeamID  string
	GroupID string
	Phone   phone.Number
}

// GroupMembers lets other modules put roster entries in groups: a member
// who texts a team keyword joins the keyword's group (messaging).
type GroupMembers interface {
	// IsGroup reports whether groupID is a group of the team.
	IsGroup(ctx context.Context, teamID, groupID string) (bool, error)
	// JoinGroups adds every live roster entry of each join's team with its
	// phone to its group, in the caller's transaction and in one statement
	// whatever their number. Already a member: nothing; a group gone, or
	// of another team: nothing. It returns how many memberships it added.
	JoinGroups(ctx context.Context, joins []GroupJoin) (int, error)
}
