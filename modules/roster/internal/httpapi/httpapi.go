// Package httpapi is the roster's public API under /api/v1.
package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
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

// Register adds the roster's public operations.
func Register(api huma.API, svc *service.Service) {
	registerMembers(api, svc)
	registerRoster(api, svc)
	registerConsent(api, svc)
	httpapi.Register(api, huma.Operation{
		OperationID: "get-team", Method: http.MethodGet, Path: "/team", Tags: []string{"Team"},
		Summary:     "Get the team",
		Description: "Returns the key's team: name, code, number, plan, and credits used and included in the current period.",
	}, func(ctx context.Context, _ *struct{}) (*httpapi.DataOutput[Team], error) {
		p := auth.MustPrincipal(ctx)
		v, err := svc.TeamViewOf(ctx, p)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(TeamFrom(v)), nil
	}, http.StatusForbidden)
}
