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
