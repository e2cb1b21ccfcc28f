package service

import (
	"context"

	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// Directory answers rosterapi.Teams straight from the repository. It is
// separate from Service so that modules the Service depends on (the event
// publisher) can read teams without an import cycle in the wiring.
type Directory struct{ repo *postgres.Repo }

// NewDirectory returns the team directory.
func NewDirectory(repo *postgres.Repo) *Directory { return &Directory{repo: repo} }

// Team implements rosterapi.Teams.
func (d *Directory) Team(ctx context.Context, teamID string) (rosterapi.Team, error) {
	t, err := d.repo.Team(ctx, teamID)
	if err != nil {
		return rosterapi.Team{}, mapNotFound(err, errTeamNotFound)
	}
	return t.API(), nil
}

// Member implements rosterapi.Members.
func (d *Directory) Member(ctx context.Context, teamID, memberID string) (rosterapi.Member, error) {
	m, err := d.repo.Member(ctx, teamID, memberID, false)
	if err != nil {
		return rosterapi.Member{}, mapNotFound(err, errMemberNotFound)
	}
	return MemberAPI(m), nil
}

// KeyOwners implements rosterapi.Members.
func (d *Directory) KeyOwners(ctx context.Context, teamID string) ([]rosterapi.Member, error) {
	ms, err := d.repo.MembersByRole(ctx, teamID, rosterapi.RoleHeadCoach, rosterapi.RoleTeamDirector)
	if err != nil {
		return nil, err
	}
	out := make([]rosterapi.Member, len(ms))
	for i := range ms {
		out[i] = MemberAPI(&ms[i])
	}
	return out, nil
}

// MemberAPI converts a row to the contract type.
func MemberAPI(m *postgres.Member) rosterapi.Member {
	return rosterapi.Member{ID: m.ID, TeamID: m.TeamID, Name: m.Name, Phone: m.Phone, Email: m.Email, Role: m.Role,
		Status: m.Status, IsBlocked: m.IsBlocked, DashboardLogin: m.DashboardLogin, CanSendBroadcasts: m.CanSendBroadcasts,
		CreatedAt: m.CreatedAt}
}
