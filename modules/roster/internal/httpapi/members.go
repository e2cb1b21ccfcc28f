package httpapi

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/view"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
)

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

func (h *handler) listMembers(ctx context.Context, in *struct {
	GroupID string `query:"group_id" doc:"Only members of this group."`
	Role    string `query:"role" doc:"Only this role."`
	Status  string `query:"status" enum:"pending,active,opted_out"`
	Phone   string `query:"phone" doc:"Any common US format."`
	Email   string `query:"email" doc:"Case-insensitive."`
	Sort    string `query:"sort" enum:"created_at,-created_at" default:"created_at"`
	httpapi.PageParams
}) (*httpapi.ListOutput[view.Member], error) {
	p := auth.MustPrincipal(ctx)
	return httpapi.ListOf(in.PageParams, view.MemberFrom)(h.svc.ListMembers(ctx, p.TeamID, domain.MemberFilter{GroupID: in.GroupID, Role: in.Role, Status: in.Status,
		Phone: in.Phone, Email: in.Email, NewestFirst: in.Sort == "-created_at", Limit: in.Limit, Offset: in.Offset}))
}

func (h *handler) createMember(ctx context.Context, in *struct {
	Body struct {
		Name     string   `json:"name"`
		Phone    string   `json:"phone" doc:"Any common US format."`
		Email    string   `json:"email,omitempty"`
		Role     string   `json:"role,omitempty" doc:"athlete (default), guardian, outside or emergency_contact."`
		TimeZone *string  `json:"time_zone,omitempty" required:"false" nullable:"true" doc:"The member's own IANA time zone for quiet hours, such as America/Chicago (UTC, or a name with a /; not Local). Omitted, empty or null: unset (the phone's area code decides). Anything else that is not a known zone is 400 invalid_request."`
		GroupIDs []string `json:"group_ids,omitempty"`
		ReadOnly
		Consent *view.ConsentInput `json:"consent,omitempty" doc:"The consent record; every part optional."`
	}
}) (*httpapi.DataOutput[view.Member], error) {
	if err := in.Body.check(); err != nil {
		return nil, err
	}
	p := auth.MustPrincipal(ctx)
	b := in.Body
	return httpapi.DataOf(view.MemberFrom)(h.svc.AddMember(ctx, p.TeamID, service.NewMember{Name: b.Name, Phone: b.Phone, Email: b.Email, Role: b.Role,
		TimeZone: optionalString(b.TimeZone), GroupIDs: b.GroupIDs, Consent: b.Consent.Domain()}, service.FromAPI()))
}

func (h *handler) getMember(ctx context.Context, in *memberPath) (*httpapi.DataOutput[view.Member], error) {
	return httpapi.DataOf(view.MemberFrom)(h.svc.GetMember(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID))
}

func (h *handler) updateMember(ctx context.Context, in *struct {
	MemberID string `path:"member_id"`
	Body     struct {
		Name     *string   `json:"name,omitempty"`
		Phone    *string   `json:"phone,omitempty"`
		Email    *string   `json:"email,omitempty"`
		Role     *string   `json:"role,omitempty"`
		TimeZone clearable `json:"time_zone,omitempty" required:"false" doc:"The member's own IANA time zone for quiet hours, such as America/Chicago (UTC, or a name with a /; not Local); an empty string or null clears it (the phone's area code decides); omitted: unchanged. An unknown zone is 400 invalid_request."`
		Groups   *[]string `json:"groups,omitempty" doc:"Group ids; replaces the member's groups."`
		GroupIDs *[]string `json:"group_ids,omitempty" doc:"Same as groups."`
		ReadOnly
	}
}) (*httpapi.DataOutput[view.Member], error) {
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
	return httpapi.DataOf(view.MemberFrom)(h.svc.ChangeMember(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID, service.MemberChange{
		Name: b.Name, Phone: b.Phone, Email: b.Email, Role: b.Role, TimeZone: b.TimeZone.change(), GroupIDs: groups}))
}

func (h *handler) deleteMember(ctx context.Context, in *memberPath) (*struct{}, error) {
	return nil, h.svc.RemoveMember(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID)
}
