package httpapi

import (
	"context"

	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/view"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/httpapi"
)

func (h *handler) adminCreateGroup(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	Body   struct {
		Name string `json:"name"`
	}
}) (*httpapi.DataOutput[view.Group], error) {
	return httpapi.DataOf(view.GroupFrom)(h.svc.CreateGroup(ctx, in.TeamID, in.Body.Name))
}

func (h *handler) adminRenameGroup(ctx context.Context, in *struct {
	TeamID  string `path:"team_id"`
	GroupID string `path:"group_id"`
	Body    struct {
		Name string `json:"name"`
	}
}) (*httpapi.DataOutput[view.Group], error) {
	return httpapi.DataOf(view.GroupFrom)(h.svc.RenameGroup(ctx, in.TeamID, in.GroupID, in.Body.Name))
}

func (h *handler) adminDeleteGroup(ctx context.Context, in *struct {
	TeamID  string `path:"team_id"`
	GroupID string `path:"group_id"`
}) (*struct{}, error) {
	return nil, h.svc.DeleteGroup(ctx, in.TeamID, in.GroupID)
}

func (h *handler) adminUpdateCustomField(ctx context.Context, in *struct {
	TeamID  string `path:"team_id"`
	FieldID string `path:"field_id"`
	Body    struct {
		Label   *string `json:"label,omitempty"`
		Private *bool   `json:"private,omitempty"`
	}
}) (*httpapi.DataOutput[view.CustomField], error) {
	return httpapi.DataOf(view.FieldFrom)(h.svc.ChangeCustomField(ctx, in.TeamID, in.FieldID, service.FieldChange{Label: in.Body.Label, Private: in.Body.Private}, true))
}

func (h *handler) adminDeleteCustomField(ctx context.Context, in *struct {
	TeamID  string `path:"team_id"`
	FieldID string `path:"field_id"`
}) (*struct{}, error) {
	return nil, h.svc.DeleteCustomField(ctx, in.TeamID, in.FieldID, true)
}

func (h *handler) adminCreateOptOut(ctx context.Context, in *struct {
	TeamID string `path:"team_id"`
	Body   struct {
		Phone    string `json:"phone,omitempty"`
		MemberID string `json:"member_id,omitempty"`
	}
}) (*httpapi.DataOutput[view.OptOut], error) {
	return httpapi.DataOf(view.OptOutFrom)(h.svc.RecordOptOut(ctx, in.TeamID, in.Body.Phone, in.Body.MemberID, service.SourceSupport))
}
