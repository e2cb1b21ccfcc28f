// Package admin is the roster's part of the admin API (/admin/v1): teams,
// members with dashboard-only attributes, and API keys.
package admin

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	rosterhttp "github.com/teamtext/teamtext/modules/roster/internal/httpapi"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Team is the admin's view of a team.
type Team struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	Code             string    `json:"code"`
	Number           string    `json:"number"`
	TimeZone         string    `json:"time_zone"`
	Plan             string    `json:"plan"`
	CardOnFile       bool      `json:"card_on_file"`
	ApprovalRequired bool      `json:"approval_required"`
	PaymentState     string    `json:"payment_state"`
	Trial            bool      `json:"trial"`
	TrialCredits     int       `json:"trial_credits"`
	CreditsUsed      int       `json:"credits_used"`
	CreditsIncluded  int       `json:"credits_included"`
	Disabled         bool      `json:"disabled"`
	Locked           bool      `json:"locked"`
	CreatedAt        time.Time `json:"created_at"`
}

func teamFrom(v *service.TeamView) Team {
	t, a := v.Team, v.Account
	return Team{ID: t.ID, Name: t.Name, Code: t.Code, Number: t.Number, TimeZone: t.TimeZone, Plan: string(a.Plan),
		CardOnFile: a.CardOnFile, ApprovalRequired: t.ApprovalRequired, PaymentState: a.PaymentState, Trial: a.Trial,
		TrialCredits: a.TrialCredits, CreditsUsed: a.CreditsUsed, CreditsIncluded: a.CreditsIncluded,
		Disabled: t.Disabled, Locked: t.Locked, CreatedAt: t.CreatedAt}
}

// Member is the admin's view of a member.
type Member struct {
	ID                string    `json:"id"`
	Name              string    `json:"name"`
	Phone             string    `json:"phone" doc:"E.164"`
	Email             string    `json:"email"`
	Role              string    `json:"role"`
	Status            string    `json:"status" enum:"pending,active,opted_out"`
	IsBlocked         bool      `json:"is_blocked"`
	DashboardLogin    bool      `json:"dashboard_login"`
	CanSendBroadcasts bool      `json:"can_send_broadcasts"`
	GroupIDs          []string  `json:"group_ids"`
	CreatedAt         time.Time `json:"created_at"`

	// Consent is the consent record (consent.go).
	Consent *rosterhttp.Consent `json:"consent" doc:"How and when the member agreed to receive texts. Null for members added before teamtext kept consent records."`

	rosterhttp.Deliverability
}

func memberFrom(m *postgres.Member) Member {
	return Member{ID: m.ID, Name: m.Name, Phone: m.Phone, Email: m.Email, Role: string(m.Role), Status: m.Status,
		IsBlocked: m.IsBlocked, DashboardLogin: m.DashboardLogin, CanSendBroadcasts: m.CanSendBroadcasts,
		GroupIDs: []string{}, CreatedAt: m.CreatedAt, Consent: rosterhttp.ConsentFrom(m.MemberConsent)}
}

// Key is an API key as listed (never its value).
type Key struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Prefix        string     `json:"prefix" doc:"The key's first 12 characters (tt_live_ and four more), a real prefix of the key, to recognise it in a list." example:"tt_live_neo4"`
	MemberID      string     `json:"member_id" doc:"The creator; the key acts on their behalf."`
	CreatedAt     time.Time  `json:"created_at"`
	RevokedAt     *time.Time `json:"revoked_at"`
	RevokedReason string     `json:"revoked_reason,omitempty"`
}

// CreatedKey is a new key, with its value shown once.
type CreatedKey struct {
	Key
	Value string `json:"key" doc:"The key itself. Shown only in this response."`
}

// keyDisplayLen is how many characters of the lookup part a list shows: the
// key's own first characters, enough to tell keys apart at a glance, far
// too few to guess the rest.
const keyDisplayLen = 4

func keyFrom(k *postgres.APIKey) Key {
	return Key{ID: k.ID, Name: k.Name, Prefix: auth.KeyPrefix + k.Lookup[:keyDisplayLen], MemberID: k.MemberID, CreatedAt: k.CreatedAt,
		RevokedAt: k.RevokedAt, RevokedReason: k.RevokedReason}
}

type teamPath struct {
	TeamID string `path:"team_id"`
}

type memberPath struct {
	TeamID   string `path:"team_id"`
	MemberID string `path:"member_id"`
}

// Register adds the roster's admin operations.
func Register(api huma.API, svc *service.Service) {
	registerRoster(api, svc)
	registerImport(api, svc)
	registerUndeliverable(api, svc)
	registerConsent(api, svc)
	tags := []string{"Teams"}
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-create-team", Method: http.MethodPost, Path: "/teams", Tags: tags, DefaultStatus: http.StatusCreated,
		Summary: "Create a team", Description: "Creates a team with its billing account.",
	}, func(ctx context.Context, in *struct {
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
		}
	}) (*httpapi.DataOutput[Team], error) {
		b := in.Body
		v, err := svc.CreateTeam(ctx, service.NewTeam{Name: b.Name, Code: b.Code, Number: b.Number, TimeZone: b.TimeZone,
			Plan: billingapi.Plan(b.Plan), CardOnFile: b.CardOnFile, ApprovalRequired: b.ApprovalRequired, Trial: b.Trial, TrialCredits: b.TrialCredits})
		if err != nil {
			return nil, err
		}
		return httpapi.Data(teamFrom(v)), nil
	}, http.StatusConflict)

	httpapi.Register(api, huma.Operation{
		OperationID: "admin-get-team", Method: http.MethodGet, Path: "/teams/{team_id}", Tags: tags,
		Summary: "Get a team", Description: "Returns a team with its billing facts.",
	}, func(ctx context.Context, in *teamPath) (*httpapi.DataOutput[Team], error) {
		v, err := svc.TeamView(ctx, in.TeamID)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(teamFrom(v)), nil
	})

	httpapi.Register(api, huma.Operation{
		OperationID: "admin-patch-team", Method: http.MethodPatch, Path: "/teams/{team_id}", Tags: tags,
		Summary: "Change a team", Description: "Changes any of name, plan, card_on_file, approval_required, payment_state, trial, trial_credits, disabled, locked. Takes effect at once.",
	}, func(ctx context.Context, in *struct {
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
		}
	}) (*httpapi.DataOutput[Team], error) {
		b := in.Body
		p := service.TeamPatch{Name: b.Name, ApprovalRequired: b.ApprovalRequired, Disabled: b.Disabled, Locked: b.Locked,
			Billing: billingapi.Patch{CardOnFile: b.CardOnFile, PaymentState: b.PaymentState, Trial: b.Trial, TrialCredits: b.TrialCredits}}
		if b.Plan != nil {
			plan := billingapi.Plan(*b.Plan)
			p.Billing.Plan = &plan
		}
		v, err := svc.PatchTeam(ctx, in.TeamID, p)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(teamFrom(v)), nil
	})

	mtags := []string{"Members"}
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-create-member", Method: http.MethodPost, Path: "/teams/{team_id}/members", Tags: mtags, DefaultStatus: http.StatusCreated,
		Summary: "Add a member", Description: "Adds a member with the public POST /members's fields (role athlete when omitted; group_ids: 400 invalid_group for a group the team does not have); staff roles, dashboard_login, can_send_broadcasts (default true for staff) and status (pending or active) are dashboard-only. An active member emits member.joined. consent as in the public POST /members, with source dashboard by default; it is kept in the number's consent history (channel admin).",
	}, func(ctx context.Context, in *struct {
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

			Consent *rosterhttp.ConsentInput `json:"consent,omitempty" doc:"The consent record; every part optional (source dashboard when omitted)."`
		}
	}) (*httpapi.DataOutput[Member], error) {
		b := in.Body
		v, err := svc.AddMember(ctx, in.TeamID, service.NewMember{Name: b.Name, Phone: b.Phone, Email: b.Email, Role: b.Role,
			Status: b.Status, DashboardLogin: b.DashboardLogin, CanSendBroadcasts: b.CanSendBroadcasts, GroupIDs: b.GroupIDs,
			Consent: b.Consent.Domain()}, service.FromDashboard())
		if err != nil {
			return nil, err
		}
		out := memberFrom(&v.Member)
		out.Deliverability = rosterhttp.DeliverabilityFrom(v.UndeliverableSince)
		for _, g := range b.GroupIDs { // the groups joined, each once, as given
			if !slices.Contains(out.GroupIDs, g) {
				out.GroupIDs = append(out.GroupIDs, g)
			}
		}
		return httpapi.Data(out), nil
	}, http.StatusConflict)

	httpapi.Register(api, huma.Operation{
		OperationID: "admin-patch-member", Method: http.MethodPatch, Path: "/teams/{team_id}/members/{member_id}", Tags: mtags,
		Summary: "Change a member's dashboard attributes", Description: "Changes any of role (staff roles included), dashboard_login, can_send_broadcasts, is_blocked. Demoting a key creator, or taking away their broadcast permission, revokes their keys for good.",
	}, func(ctx context.Context, in *struct {
		TeamID   string `path:"team_id"`
		MemberID string `path:"member_id"`
		Body     struct {
			Role              *string `json:"role,omitempty"`
			DashboardLogin    *bool   `json:"dashboard_login,omitempty"`
			CanSendBroadcasts *bool   `json:"can_send_broadcasts,omitempty"`
			IsBlocked         *bool   `json:"is_blocked,omitempty"`
		}
	}) (*httpapi.DataOutput[Member], error) {
		b := in.Body
		m, err := svc.PatchMember(ctx, in.TeamID, in.MemberID, service.MemberPatch{Role: b.Role, DashboardLogin: b.DashboardLogin,
			CanSendBroadcasts: b.CanSendBroadcasts, IsBlocked: b.IsBlocked})
		if err != nil {
			return nil, err
		}
		return markedData(ctx, svc, m)
	})

	httpapi.Register(api, huma.Operation{
		OperationID: "admin-approve-member", Method: http.MethodPost, Path: "/teams/{team_id}/members/{member_id}/approve", Tags: mtags,
		Summary: "Approve a pending member", Description: "A pending member joins the roster (member.joined). 409 conflict if the member is not pending.",
	}, func(ctx context.Context, in *memberPath) (*httpapi.DataOutput[Member], error) {
		m, err := svc.ApproveMember(ctx, in.TeamID, in.MemberID)
		if err != nil {
			return nil, err
		}
		return markedData(ctx, svc, m)
	}, http.StatusConflict)

	ktags := []string{"API keys"}
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-create-key", Method: http.MethodPost, Path: "/teams/{team_id}/api-keys", Tags: ktags, DefaultStatus: http.StatusCreated,
		Summary: "Create an API key", Description: "Creates a key acting for member_id, an active head coach or team director who may send broadcasts (else 403 forbidden). The key is shown once.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		Body   struct {
			MemberID string `json:"member_id"`
			Name     string `json:"name"`
		}
	}) (*httpapi.DataOutput[CreatedKey], error) {
		k, err := svc.CreateKey(ctx, in.TeamID, in.Body.MemberID, in.Body.Name)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(CreatedKey{Key: keyFrom(&k.Key), Value: k.Value}), nil
	}, http.StatusForbidden)

	httpapi.Register(api, huma.Operation{
		OperationID: "admin-list-keys", Method: http.MethodGet, Path: "/teams/{team_id}/api-keys", Tags: ktags,
		Summary: "List API keys", Description: "Lists the team's keys, newest first, revoked ones included; never the key values.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		httpapi.PageParams
	}) (*httpapi.ListOutput[Key], error) {
		ks, err := svc.Keys(ctx, in.TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]Key, len(ks))
		for i := range ks {
			out[i] = keyFrom(&ks[i])
		}
		return httpapi.List(in.PageParams, out), nil
	})

	httpapi.Register(api, huma.Operation{
		OperationID: "admin-revoke-key", Method: http.MethodDelete, Path: "/teams/{team_id}/api-keys/{key_id}", Tags: ktags,
		Summary: "Revoke an API key", Description: "Revokes a key for good, on any plan; webhooks made with it are deleted. Answers the revoked key.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		KeyID  string `path:"key_id"`
	}) (*httpapi.DataOutput[Key], error) {
		k, err := svc.RevokeKey(ctx, in.TeamID, in.KeyID)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(keyFrom(k)), nil
	})
}
