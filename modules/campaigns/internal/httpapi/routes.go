package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/campaigns/internal/domain"
	"github.com/teamtext/teamtext/modules/campaigns/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Register is the campaigns module's route table: every operation of the
// public API (the team's key) and of the admin API (the dashboard), one
// line each, with the handler method that serves it. Descriptions are in
// docs.go.
func Register(public, admin huma.API, svc *service.Service) {
	h := &handler{svc: svc}
	tags := []string{"Campaigns"}
	get, post := http.MethodGet, http.MethodPost

	httpapi.Register(public, huma.Operation{OperationID: "list-campaigns", Method: get, Path: "/campaigns", Tags: tags,
		Summary: "List campaigns", Description: listDoc}, h.list)
	httpapi.Register(public, huma.Operation{OperationID: "get-campaign", Method: get, Path: "/campaigns/{campaign_id}", Tags: tags,
		Summary: "Get a campaign", Description: getDoc}, h.get)
	httpapi.Register(public, huma.Operation{OperationID: "pause-campaign", Method: post, Path: "/campaigns/{campaign_id}/pause", Tags: tags,
		Summary: "Pause a campaign", Description: pauseDoc}, h.pause, http.StatusConflict)
	httpapi.Register(public, huma.Operation{OperationID: "resume-campaign", Method: post, Path: "/campaigns/{campaign_id}/resume", Tags: tags,
		Summary: "Resume a campaign", Description: resumeDoc}, h.resume, http.StatusConflict)
	httpapi.Register(public, huma.Operation{OperationID: "cancel-campaign", Method: post, Path: "/campaigns/{campaign_id}/cancel", Tags: tags,
		Summary: "Cancel a campaign", Description: cancelDoc}, h.cancel, http.StatusConflict)

	httpapi.Register(admin, huma.Operation{OperationID: "admin-create-campaign", Method: post, Path: "/teams/{team_id}/campaigns", Tags: tags,
		DefaultStatus: http.StatusCreated, Summary: "Create a campaign", Description: adminCreateDoc}, h.adminCreate, http.StatusForbidden)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-campaigns", Method: get, Path: "/teams/{team_id}/campaigns", Tags: tags,
		Summary: "List a team's campaigns", Description: adminListDoc}, h.adminList)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-get-campaign", Method: get, Path: "/teams/{team_id}/campaigns/{campaign_id}", Tags: tags,
		Summary: "Get a campaign", Description: getDoc}, h.adminGet)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-resume-campaign", Method: post, Path: "/teams/{team_id}/campaigns/{campaign_id}/resume", Tags: tags,
		Summary: "Resume a campaign (urgent steps included)", Description: adminResumeDoc}, h.adminResume, http.StatusConflict)
}

// handler serves both APIs: the public handlers act on the key's team,
// the admin ones on the team in the path.
type handler struct {
	svc *service.Service
}

// campaignPath names one campaign of the key's team.
type campaignPath struct {
	CampaignID string `path:"campaign_id" doc:"Campaign id."`
}

// teamCampaignPath names one campaign of a team (admin).
type teamCampaignPath struct {
	TeamID     string `path:"team_id" doc:"Team id."`
	CampaignID string `path:"campaign_id" doc:"Campaign id."`
}

// teamOf is the key's team.
func teamOf(ctx context.Context) string { return auth.MustPrincipal(ctx).TeamID }

// view renders one campaign, or passes the error on.
func view(v *service.View, err error) (*httpapi.DataOutput[Campaign], error) {
	if err != nil {
		return nil, err
	}
	return httpapi.Data(From(v)), nil
}

// page renders a page of campaigns, or passes the error on.
func page(p httpapi.PageParams, vs []service.View, err error) (*httpapi.ListOutput[Campaign], error) {
	if err != nil {
		return nil, err
	}
	return httpapi.List(p, Views(vs)), nil
}

func (h *handler) list(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[Campaign], error) {
	vs, err := h.svc.Campaigns(ctx, teamOf(ctx), in.Limit, in.Offset)
	return page(in.PageParams, vs, err)
}

func (h *handler) get(ctx context.Context, in *campaignPath) (*httpapi.DataOutput[Campaign], error) {
	return view(h.svc.Campaign(ctx, teamOf(ctx), in.CampaignID))
}

func (h *handler) pause(ctx context.Context, in *campaignPath) (*httpapi.DataOutput[Campaign], error) {
	return view(h.svc.Pause(ctx, teamOf(ctx), in.CampaignID))
}

// resume refuses a campaign with urgent-alert steps (403): the dashboard
// resumes those (adminResume).
func (h *handler) resume(ctx context.Context, in *campaignPath) (*httpapi.DataOutput[Campaign], error) {
	return view(h.svc.Resume(ctx, teamOf(ctx), in.CampaignID, false))
}

func (h *handler) cancel(ctx context.Context, in *campaignPath) (*httpapi.DataOutput[Campaign], error) {
	return view(h.svc.Cancel(ctx, teamOf(ctx), in.CampaignID))
}

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

func (h *handler) adminCreate(ctx context.Context, in *struct {
	TeamID string `path:"team_id" doc:"Team id."`
	Body   CreateBody
}) (*httpapi.DataOutput[Campaign], error) {
	steps := make([]domain.StepInput, len(in.Body.Steps))
	for i, s := range in.Body.Steps {
		steps[i] = domain.StepInput{SendAt: s.SendAt, DelaySeconds: s.DelaySeconds, Text: s.Text, TemplateID: s.TemplateID, Urgent: s.Urgent}
	}
	return view(h.svc.Create(ctx, service.NewCampaign{TeamID: in.TeamID, MemberID: in.Body.MemberID, Name: in.Body.Name,
		Audience: in.Body.Audience, GroupID: in.Body.GroupID, Steps: steps}))
}

func (h *handler) adminList(ctx context.Context, in *struct {
	TeamID string `path:"team_id" doc:"Team id."`
	httpapi.PageParams
}) (*httpapi.ListOutput[Campaign], error) {
	vs, err := h.svc.TeamCampaigns(ctx, in.TeamID, in.Limit, in.Offset)
	return page(in.PageParams, vs, err)
}

func (h *handler) adminGet(ctx context.Context, in *teamCampaignPath) (*httpapi.DataOutput[Campaign], error) {
	return view(h.svc.Campaign(ctx, in.TeamID, in.CampaignID))
}

// adminResume resumes urgent-alert campaigns too.
func (h *handler) adminResume(ctx context.Context, in *teamCampaignPath) (*httpapi.DataOutput[Campaign], error) {
	return view(h.svc.Resume(ctx, in.TeamID, in.CampaignID, true))
}
