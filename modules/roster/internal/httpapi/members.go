package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Member is a roster entry as the API shows it.
type Member struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Phone          string    `json:"phone" doc:"E.164."`
	Email          string    `json:"email"`
	Role           string    `json:"role" enum:"athlete,guardian,outside,emergency_contact,head_coach,team_director,coach,board_member"`
	Status         string    `json:"status" enum:"pending,active,opted_out" doc:"pending: awaiting approval in the dashboard; active; opted_out: texted STOP or an opt-out was recorded."`
	IsBlocked      bool      `json:"is_blocked"`
	DashboardLogin bool      `json:"dashboard_login" doc:"Staff and members with a login cannot be changed through the API."`
	GroupIDs       []string  `json:"group_ids"`
	CreatedAt      time.Time `json:"created_at"`

	// Consent is the consent record (consent.go).
	Consent *Consent `json:"consent" doc:"How and when the member agreed to receive texts; the number's history is at GET /members/{member_id}/consent. Null for members added before teamtext kept consent records (none is invented for them)."`
	Deliverability
}

// Deliverability is issue 18's mark on a member's number, shown on every
// roster entry with the number.
type Deliverability struct {
	Undeliverable      bool       `json:"undeliverable" doc:"The member's number is marked undeliverable: its texts failed with a permanent carrier code (landline, unreachable, invalid, blocked) UNDELIVERABLE_AFTER times in a row. Sends skip it (counted as skipped_undeliverable, charged nothing) until a text to it is delivered, it texts the team, or the dashboard clears the mark. Read-only (an addition to v1)."`
	UndeliverableSince *time.Time `json:"undeliverable_since" doc:"When the number was marked undeliverable; null when it is not."`
}

// DeliverabilityFrom renders the mark.
func DeliverabilityFrom(since *time.Time) Deliverability {
	return Deliverability{Undeliverable: since != nil, UndeliverableSince: since}
}

// MemberFrom renders a member view.
func MemberFrom(v *service.MemberView) Member {
	return Member{ID: v.ID, Name: v.Name, Phone: v.Phone, Email: v.Email, Role: string(v.Role), Status: v.Status,
		IsBlocked: v.IsBlocked, DashboardLogin: v.DashboardLogin, GroupIDs: v.GroupIDs, CreatedAt: v.CreatedAt,
		Consent: ConsentFrom(v.MemberConsent), Deliverability: DeliverabilityFrom(v.UndeliverableSince)}
}

// ReadOnly are fields the API shows but never takes: setting them gives 400 read_only_field.
type ReadOnly struct {
	Status    *string    `json:"status,omitempty" doc:"Read-only: setting it gives 400 read_only_field."`
	IsBlocked *bool      `json:"is_blocked,omitempty" doc:"Read-only (dashboard)."`
	ID        *string    `json:"id,omitempty" doc:"Read-only."`
	CreatedAt *time.Time `json:"created_at,omitempty" doc:"Read-only."`
}

func (r ReadOnly) check() error {
	for name, set := range map[string]bool{"status": r.Status != nil, "is_blocked": r.IsBlocked != nil, "id": r.ID != nil, "created_at": r.CreatedAt != nil} {
		if set {
			return fault.Newf(fault.Invalid, domain.CodeReadOnlyField, "%s is read-only", name)
		}
	}
	return nil
}

type memberPath struct {
	MemberID string `path:"member_id"`
}

const (
	memberExistsDoc = "409 member_exists (with existing_member_id) when a member with the same phone and the same name (compared trimmed, case-insensitively) exists; the same phone with another name is a separate entry (a parent of two athletes). "
	optedOutDoc     = "409 opted_out when the number opted out (texted STOP, or was recorded through /opt-outs even if it was not on the roster). "
)

func registerMembers(api huma.API, svc *service.Service) {
	tags := []string{"Members"}
	httpapi.Register(api, huma.Operation{
		OperationID: "list-members", Method: http.MethodGet, Path: "/members", Tags: tags,
		Summary:     "List members",
		Description: "Lists the roster, oldest first (sort=-created_at: newest first). Filters combine with AND. Removed opted-out members are not listed.",
	}, func(ctx context.Context, in *struct {
		GroupID string `query:"group_id" doc:"Only members of this group."`
		Role    string `query:"role" doc:"Only this role."`
		Status  string `query:"status" enum:"pending,active,opted_out"`
		Phone   string `query:"phone" doc:"Any common US format."`
		Email   string `query:"email" doc:"Case-insensitive."`
		Sort    string `query:"sort" enum:"created_at,-created_at" default:"created_at"`
		httpapi.PageParams
	}) (*httpapi.ListOutput[Member], error) {
		p := auth.MustPrincipal(ctx)
		vs, err := svc.ListMembers(ctx, p.TeamID, postgres.MemberFilter{GroupID: in.GroupID, Role: in.Role, Status: in.Status,
			Phone: in.Phone, Email: in.Email, NewestFirst: in.Sort == "-created_at", Limit: in.Limit, Offset: in.Offset})
		if err != nil {
			return nil, err
		}
		out := make([]Member, len(vs))
		for i := range vs {
			out[i] = MemberFrom(&vs[i])
		}
		return httpapi.List(in.PageParams, out), nil
	}, http.StatusBadRequest)

	httpapi.Register(api, huma.Operation{
		OperationID: "create-member", Method: http.MethodPost, Path: "/members", Tags: tags, DefaultStatus: http.StatusCreated,
		Summary: "Add a member",
		Description: "Adds someone to the roster (status active) and emits member.joined. role defaults to athlete; staff roles give 400 role_not_allowed. " +
			memberExistsDoc + optedOutDoc + "403 staff_member_protected when that same person is staff or has a dashboard login. 400 invalid_group for an unknown group id. " +
			"consent records how and when the member agreed (source api and now when omitted); it is kept in the number's consent history. " +
			"An unknown source, a time in the future or before 2000, or evidence that is too long or has control characters is 400 invalid_request, and nothing is written.",
	}, func(ctx context.Context, in *struct {
		Body struct {
			Name     string   `json:"name"`
			Phone    string   `json:"phone" doc:"Any common US format."`
			Email    string   `json:"email,omitempty"`
			Role     string   `json:"role,omitempty" doc:"athlete (default), guardian, outside or emergency_contact."`
			GroupIDs []string `json:"group_ids,omitempty"`
			ReadOnly
			Consent *ConsentInput `json:"consent,omitempty" doc:"The consent record; every part optional."`
		}
	}) (*httpapi.DataOutput[Member], error) {
		if err := in.Body.check(); err != nil {
			return nil, err
		}
		p := auth.MustPrincipal(ctx)
		b := in.Body
		v, err := svc.AddMember(ctx, p.TeamID, service.NewMember{Name: b.Name, Phone: b.Phone, Email: b.Email, Role: b.Role,
			GroupIDs: b.GroupIDs, Consent: b.Consent.Domain()}, service.FromAPI())
		if err != nil {
			return nil, err
		}
		return httpapi.Data(MemberFrom(v)), nil
	}, http.StatusConflict)

	httpapi.Register(api, huma.Operation{
		OperationID: "get-member", Method: http.MethodGet, Path: "/members/{member_id}", Tags: tags,
		Summary: "Get a member", Description: "Returns one member of the team.",
	}, func(ctx context.Context, in *memberPath) (*httpapi.DataOutput[Member], error) {
		v, err := svc.GetMember(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(MemberFrom(v)), nil
	})

	httpapi.Register(api, huma.Operation{
		OperationID: "update-member", Method: http.MethodPatch, Path: "/members/{member_id}", Tags: tags,
		Summary: "Change a member",
		Description: "Changes any of name, phone, email, role, groups (group_ids is accepted as the same field; it replaces the member's groups). " +
			"status is read-only (400 read_only_field). Staff and members with a dashboard login give 403 staff_member_protected. " +
			"Changing the number of an opted-out member would re-subscribe them: 409 opted_out_member. " + memberExistsDoc + optedOutDoc,
	}, func(ctx context.Context, in *struct {
		MemberID string `path:"member_id"`
		Body     struct {
			Name     *string   `json:"name,omitempty"`
			Phone    *string   `json:"phone,omitempty"`
			Email    *string   `json:"email,omitempty"`
			Role     *string   `json:"role,omitempty"`
			Groups   *[]string `json:"groups,omitempty" doc:"Group ids; replaces the member's groups."`
			GroupIDs *[]string `json:"group_ids,omitempty" doc:"Same as groups."`
			ReadOnly
		}
	}) (*httpapi.DataOutput[Member], error) {
		b := in.Body
		if err := b.check(); err != nil {
			return nil, err
		}
		groups := b.Groups
		if b.GroupIDs != nil {
			if groups != nil {
				return nil, fault.Invalidf("send groups or group_ids, not both")
			}
			groups = b.GroupIDs
		}
		v, err := svc.ChangeMember(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID, service.MemberChange{
			Name: b.Name, Phone: b.Phone, Email: b.Email, Role: b.Role, GroupIDs: groups})
		if err != nil {
			return nil, err
		}
		return httpapi.Data(MemberFrom(v)), nil
	}, http.StatusForbidden, http.StatusConflict)

	httpapi.Register(api, huma.Operation{
		OperationID: "delete-member", Method: http.MethodDelete, Path: "/members/{member_id}", Tags: tags, DefaultStatus: http.StatusNoContent,
		Summary: "Remove a member",
		Description: "Removes the member (204). An opted-out member is kept on record so the opt-out stays: they disappear from lists and reads. " +
			"Staff and members with a login give 403 staff_member_protected.",
	}, func(ctx context.Context, in *memberPath) (*struct{}, error) {
		return nil, svc.RemoveMember(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID)
	}, http.StatusForbidden)
}
