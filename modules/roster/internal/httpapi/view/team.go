// Package view holds the bodies of the roster's public API (/api/v1) and
// their renderings from the service's results; the admin API's bodies
// (adminview) reuse them.
package view

import (
	"github.com/teamtext/teamtext/modules/roster/internal/service"
)

// Team is the team record of GET /team.
type Team struct {
	ID              string `json:"id" doc:"Team id."`
	Name            string `json:"name"`
	Code            string `json:"code" doc:"Short team code, also in event envelopes."`
	Number          string `json:"number" doc:"Team phone number (E.164); empty if none."`
	TimeZone        string `json:"time_zone" doc:"IANA time zone used for weekly sends and repeat.until."`
	Plan            string `json:"plan" enum:"free,free_season,team,team_season,team_plus,team_plus_season,organization,organization_season,business,business_season"`
	CreditsUsed     int    `json:"credits_used" doc:"Credits used in the current period."`
	CreditsIncluded int    `json:"credits_included" doc:"Credits the plan includes per period."`
}

// TeamFrom renders a team view.
func TeamFrom(v *service.TeamView) Team {
	return Team{ID: v.Team.ID, Name: v.Team.Name, Code: v.Team.Code, Number: v.Team.Number, TimeZone: v.Team.TimeZone,
		Plan: string(v.Account.Plan), CreditsUsed: v.Account.CreditsUsed, CreditsIncluded: v.Account.CreditsIncluded}
}
