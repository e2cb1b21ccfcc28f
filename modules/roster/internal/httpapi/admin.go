package httpapi

import (
	"context"
	"slices"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/adminview"
	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/view"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/httpapi"
)

type teamPath struct {
	TeamID string `path:"team_id"`
}

type teamMemberPath struct {
	TeamID   string `path:"team_id"`
	MemberID string `path:"member_id"`
}

func (h *handler) adminCreateTeam(ctx context.Context, in *struct {
	Body struct {
		Name             string `json:"name"`
		Code             string `json:"code"`
		Number           string `json:"number,omitempty" doc:"Team phone number, any US format."`
		TimeZone         string `json:"time_zone" doc:"IANA time zone."`
		Plan             string `json:"plan"`
		CardOnFile       bool   `json:"card_on_file,omitempty"`
		ApprovalRequired bool   `json:"approval_required,omitempty"`
		Trial            bool   `json:"trial,omitempty"`
		TrialCredits     int    `json:"trial_credits,omitempty"`
		// JoinApprovalRequired defaults to true.
		JoinApprovalRequired *bool `json:"join_approval_required,omitempty" doc:"People who join by text or on the team's sign-up page are pending until approved (true, the default) or active at once (false)."`
	}
}) (*httpapi.DataOutput[adminview.Team], error) {
	b := in.Body
	return httpapi.DataOf(adminview.TeamFrom)(h.svc.CreateTeam(ctx, service.NewTeam{Name: b.Name, Code: b.Code, Number: b.Number, TimeZone: b.TimeZone,
		Plan: billingapi.Plan(b.Plan), CardOnFile: b.CardOnFile, ApprovalRequired: b.ApprovalRequired, Trial: b.Trial, TrialCredits: b.TrialCredits,
		JoinApprovalRequired: b.JoinApprovalRequired}))
}

func (h *handler) adminGetTeam(ctx context.Context, in *teamPath) (*httpapi.DataOutput[adminview.Team], error) {
	return httpapi.DataOf(adminview.TeamFrom)(h.svc.TeamView(ctx, in.TeamID))
}

func (h *handler) adminPatchTeam(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	Body   struct {
		Name             *string `json:"name,omitempty"`
		Plan             *string `json:"plan,omitempty"`
		CardOnFile       *bool   `json:"card_on_file,omitempty"`
		ApprovalRequired *bool   `json:"approval_required,omitempty"`
		PaymentState     *string `json:"payment_state,omitempty" enum:"ok,overdue"`
		Trial            *bool   `json:"trial,omitempty"`
		TrialCredits     *int    `json:"trial_credits,omitempty"`
		Disabled         *bool   `json:"disabled,omitempty"`
		Locked           *bool   `json:"locked,omitempty"`
		// JoinApprovalRequired: see the team's view.
		JoinApprovalRequired *bool `json:"join_approval_required,omitempty" doc:"Whether people who join by text or on the team's sign-up page are pending until approved (true) or active at once (false). Joiners already pending stay pending."`
	}
}) (*httpapi.DataOutput[adminview.Team], error) {
	b := in.Body
	p := service.TeamPatch{Name: b.Name, ApprovalRequired: b.ApprovalRequired, JoinApprovalRequired: b.JoinApprovalRequired, Disabled: b.Disabled, Locked: b.Locked,
		Billing: billingapi.Patch{CardOnFile: b.CardOnFile, PaymentState: b.PaymentState, Trial: b.Trial, TrialCredits: b.TrialCredits}}
	if b.Plan != nil {
		plan := billingapi.Plan(*b.Plan)
		p.Billing.Plan = &plan
	}
	return httpapi.DataOf(adminview.TeamFrom)(h.svc.PatchTeam(ctx, in.TeamID, p))
}

func (h *handler) adminCreateMember(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	Body   struct {
		Name              string   `json:"name"`
		Phone             string   `json:"phone"`
		Email             string   `json:"email,omitempty"`
		Role              string   `json:"role,omitempty" doc:"athlete when omitted; staff roles allowed here."`
		GroupIDs          []string `json:"group_ids,omitempty"`
		DashboardLogin    bool     `json:"dashboard_login,omitempty"`
		CanSendBroadcasts *bool    `json:"can_send_broadcasts,omitempty"`
		Status            string   `json:"status,omitempty" enum:"pending,active"`
		TimeZone          *string  `json:"time_zone,omitempty" required:"false" nullable:"true" doc:"The member's own IANA time zone for quiet hours, such as America/Chicago (UTC, or a name with a /; not Local). Omitted, empty or null: unset (the phone's area code decides). Anything else that is not a known zone is 400 invalid_request."`

		Consent *view.ConsentInput `json:"consent,omitempty" doc:"The consent record; every part optional (source dashboard when omitted)."`
	}
}) (*httpapi.DataOutput[adminview.Member], error) {
	b := in.Body
	v, err := h.svc.AddMember(ctx, in.TeamID, service.NewMember{Name: b.Name, Phone: b.Phone, Email: b.Email, Role: b.Role,
		TimeZone: optionalString(b.TimeZone), Status: b.Status, DashboardLogin: b.DashboardLogin, CanSendBroadcasts: b.CanSendBroadcasts, GroupIDs: b.GroupIDs,
		Consent: b.Consent.Domain()}, service.FromDashboard())
	if err != nil {
		return nil, err
	}
	out := adminview.MemberFrom(&v.Member)
	out.Deliverability = view.DeliverabilityFrom(v.UndeliverableSince)
	for _, g := range b.GroupIDs { // the groups joined, each once, as given
		if !slices.Contains(out.GroupIDs, g) {
			out.GroupIDs = append(out.GroupIDs, g)
		}
	}
	return httpapi.Data(out), nil
}

func (h *handler) adminPatchMember(ctx context.Context, in *struct {
	TeamID   string `path:"team_id"`
	MemberID string `path:"member_id"`
	Body     struct {
		Role              *string   `json:"role,omitempty"`
		DashboardLogin    *bool     `json:"dashboard_login,omitempty"`
		CanSendBroadcasts *bool     `json:"can_send_broadcasts,omitempty"`
		IsBlocked         *bool     `json:"is_blocked,omitempty"`
		TimeZone          clearable `json:"time_zone,omitempty" required:"false" doc:"The member's own IANA time zone for quiet hours, such as America/Chicago (UTC, or a name with a /; not Local); an empty string or null clears it (the phone's area code decides); omitted: unchanged. An unknown zone is 400 invalid_request."`
	}
}) (*httpapi.DataOutput[adminview.Member], error) {
	b := in.Body
	m, err := h.svc.PatchMember(ctx, in.TeamID, in.MemberID, service.MemberPatch{Role: b.Role, DashboardLogin: b.DashboardLogin,
		CanSendBroadcasts: b.CanSendBroadcasts, IsBlocked: b.IsBlocked, TimeZone: b.TimeZone.change()})
	if err != nil {
		return nil, err
	}
	return markedData(ctx, h.svc, m)
}

func (h *handler) adminApproveMember(ctx context.Context, in *teamMemberPath) (*httpapi.DataOutput[adminview.Member], error) {
	m, err := h.svc.ApproveMember(ctx, in.TeamID, in.MemberID)
	if err != nil {
		return nil, err
	}
	return markedData(ctx, h.svc, m)
}

func (h *handler) adminCreateKey(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	Body   struct {
		MemberID string `json:"member_id"`
		Name     string `json:"name"`
	}
}) (*httpapi.DataOutput[adminview.CreatedKey], error) {
	k, err := h.svc.CreateKey(ctx, in.TeamID, in.Body.MemberID, in.Body.Name)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(adminview.CreatedKey{Key: adminview.KeyFrom(&k.Key), Value: k.Value}), nil
}

func (h *handler) adminListKeys(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	httpapi.PageParams
}) (*httpapi.ListOutput[adminview.Key], error) {
	return httpapi.ListOf(in.PageParams, adminview.KeyFrom)(h.svc.Keys(ctx, in.TeamID, in.Limit, in.Offset))
}

func (h *handler) adminListActivity(ctx context.Context, in *struct {
	TeamID   string `path:"team_id"`
	MemberID string `query:"member_id" maxLength:"64" doc:"Only this person's entries."`
	Action   string `query:"action" maxLength:"100" doc:"Only entries of this action, as listed (for example \"created key\")."`
	httpapi.PageParams
}) (*httpapi.ListOutput[adminview.Activity], error) {
	if _, err := h.svc.TeamView(ctx, in.TeamID); err != nil {
		return nil, err
	}
	f := domain.ActivityFilter{MemberID: in.MemberID, Action: in.Action, Limit: in.Limit, Offset: in.Offset}
	return httpapi.ListOf(in.PageParams, adminview.ActivityFrom)(h.signIn.ActivityLog(ctx, in.TeamID, f))
}

func (h *handler) adminRevokeKey(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	KeyID  string `path:"key_id"`
}) (*httpapi.DataOutput[adminview.Key], error) {
	return httpapi.DataOf(adminview.KeyFrom)(h.svc.RevokeKey(ctx, in.TeamID, in.KeyID))
}
