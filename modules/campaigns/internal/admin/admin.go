// Package admin is the campaigns module's part of the admin API
// (/admin/v1), the dashboard's side of campaigns: create them (urgent-alert
// steps allowed), list and read them, and resume them (urgent steps included).
package admin

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/campaigns/internal/domain"
	"github.com/teamtext/teamtext/modules/campaigns/internal/httpapi"
	"github.com/teamtext/teamtext/modules/campaigns/internal/service"
	platformhttp "github.com/teamtext/teamtext/platform/httpapi"
)

// StepBody is one step of a new campaign.
type StepBody struct {
	SendAt       string `json:"send_at,omitempty" doc:"When the step goes out: ISO 8601 with a time zone offset, after now and at most a year ahead. Give send_at or delay_seconds." example:"2027-03-06T17:30:00-05:00"`
	DelaySeconds *int64 `json:"delay_seconds,omitempty" doc:"Seconds after the campaign's start (its creation), 0 to 31536000. Give send_at or delay_seconds."`
	Text         string `json:"text,omitempty" doc:"The text (at most 1200 characters). Give text or template_id."`
	TemplateID   string `json:"template_id,omitempty" doc:"A template of the team to send instead of text."`
	Urgent       bool   `json:"urgent,omitempty" doc:"An urgent-alert step. A campaign with one can be resumed from the dashboard only."`
}

// CreateBody is the body of POST /teams/{team_id}/campaigns.
type CreateBody struct {
	Name     string     `json:"name" doc:"1 to 100 characters."`
	Audience string     `json:"audience" enum:"all,staff,families,group" doc:"Who every step goes to, resolved when each step runs."`
	GroupID  string     `json:"group_id,omitempty" doc:"Required with audience group (400 invalid_group otherwise, or if it is not a group of the team)."`
	Steps    []StepBody `json:"steps" doc:"1 to 50 steps; position follows this order."`
	MemberID string     `json:"member_id,omitempty" doc:"Optional: the staff member creating the campaign, an active head coach or team director who may send broadcasts (403 forbidden otherwise; 404 not_found if not on the team); steps send on their behalf. Without it the campaign is the dashboard's own: created_by is empty and steps send on no one's behalf."`
}

type campaignPath struct {
	TeamID     string `path:"team_id" doc:"Team id."`
	CampaignID string `path:"campaign_id" doc:"Campaign id."`
}

// Register adds the campaigns admin operations.
func Register(api huma.API, svc *service.Service) {
	tags := []string{"Campaigns"}

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-create-campaign", Method: http.MethodPost, Path: "/teams/{team_id}/campaigns", Tags: tags, DefaultStatus: http.StatusCreated,
		Summary: "Create a campaign",
		Description: "Creates a drip campaign in status scheduled (201). Each step is a job at its due time (send_at, or now + delay_seconds), " +
			"inserted in the same transaction. Urgent-alert steps are allowed here (never through the API). When a step's time comes it is sent " +
			"through messaging like any send (gates, approval rules and billing included), on behalf of member_id when given; a refused step becomes failed " +
			"with the refusal's code and the campaign goes on. After the last step the campaign is completed. " +
			"Errors: 404 not_found (team, or a given member_id not on the team); 403 forbidden (a given member_id is not an active head coach or team director " +
			"who may send broadcasts); 400 invalid_request (name; steps: 1 to 50, each with exactly one of send_at and delay_seconds and exactly " +
			"one of text and template_id); 400 invalid_group (group_id missing with audience group, given with another audience, or not the team's).",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id" doc:"Team id."`
		Body   CreateBody
	}) (*platformhttp.DataOutput[httpapi.Campaign], error) {
		steps := make([]domain.StepInput, len(in.Body.Steps))
		for i, s := range in.Body.Steps {
			steps[i] = domain.StepInput{SendAt: s.SendAt, DelaySeconds: s.DelaySeconds, Text: s.Text, TemplateID: s.TemplateID, Urgent: s.Urgent}
		}
		v, err := svc.Create(ctx, service.NewCampaign{TeamID: in.TeamID, MemberID: in.Body.MemberID, Name: in.Body.Name,
			Audience: in.Body.Audience, GroupID: in.Body.GroupID, Steps: steps})
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(httpapi.From(v)), nil
	}, http.StatusForbidden)

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-list-campaigns", Method: http.MethodGet, Path: "/teams/{team_id}/campaigns", Tags: tags,
		Summary: "List a team's campaigns", Description: "Newest first, with status and steps, as GET /api/v1/campaigns. 404 not_found for an unknown team.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id" doc:"Team id."`
		platformhttp.PageParams
	}) (*platformhttp.ListOutput[httpapi.Campaign], error) {
		vs, err := svc.TeamCampaigns(ctx, in.TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		return platformhttp.List(in.PageParams, httpapi.Views(vs)), nil
	})

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-get-campaign", Method: http.MethodGet, Path: "/teams/{team_id}/campaigns/{campaign_id}", Tags: tags,
		Summary: "Get a campaign", Description: "One campaign with its status and steps. " + httpapi.NotFoundRule,
	}, func(ctx context.Context, in *campaignPath) (*platformhttp.DataOutput[httpapi.Campaign], error) {
		v, err := svc.Campaign(ctx, in.TeamID, in.CampaignID)
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(httpapi.From(v)), nil
	})

	platformhttp.Register(api, huma.Operation{
		OperationID: "admin-resume-campaign", Method: http.MethodPost, Path: "/teams/{team_id}/campaigns/{campaign_id}/resume", Tags: tags,
		Summary: "Resume a campaign (urgent steps included)",
		Description: "Resumes a paused campaign, including one with urgent-alert steps (which the API refuses with 403 forbidden). " +
			httpapi.ResumeRule + " A campaign that is not paused gives 409 campaign_state, whose message names the current status. No body. " +
			httpapi.NotFoundRule,
	}, func(ctx context.Context, in *campaignPath) (*platformhttp.DataOutput[httpapi.Campaign], error) {
		v, err := svc.Resume(ctx, in.TeamID, in.CampaignID, true)
		if err != nil {
			return nil, err
		}
		return platformhttp.Data(httpapi.From(v)), nil
	}, http.StatusConflict)
}
