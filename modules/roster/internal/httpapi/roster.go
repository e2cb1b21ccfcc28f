package httpapi

import (
	"context"

	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/view"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

func (h *handler) listGroups(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[view.Group], error) {
	return httpapi.ListOf(in.PageParams, view.GroupFrom)(h.svc.Groups(ctx, auth.MustPrincipal(ctx).TeamID, in.Limit, in.Offset))
}

func (h *handler) addGroupMember(ctx context.Context, in *struct {
	GroupID string `path:"group_id"`
	Body    struct {
		MemberID string `json:"member_id"`
	}
}) (*httpapi.DataOutput[view.Member], error) {
	return httpapi.DataOf(view.MemberFrom)(h.svc.AddToGroup(ctx, auth.MustPrincipal(ctx).TeamID, in.GroupID, in.Body.MemberID))
}

func (h *handler) removeGroupMember(ctx context.Context, in *struct {
	GroupID  string `path:"group_id"`
	MemberID string `path:"member_id"`
}) (*struct{}, error) {
	return nil, h.svc.RemoveFromGroup(ctx, auth.MustPrincipal(ctx).TeamID, in.GroupID, in.MemberID)
}

func (h *handler) listCustomFields(ctx context.Context, _ *struct{}) (*httpapi.DataOutput[[]view.CustomField], error) {
	fs, err := h.svc.CustomFields(ctx, auth.MustPrincipal(ctx).TeamID)
	if err != nil {
		return nil, err
	}
	out := make([]view.CustomField, len(fs))
	for i := range fs {
		out[i] = view.FieldFrom(&fs[i])
	}
	return httpapi.Data(out), nil
}

func (h *handler) createCustomField(ctx context.Context, in *struct {
	Body struct {
		Label   string `json:"label"`
		Key     string `json:"key,omitempty"`
		Private bool   `json:"private,omitempty"`
	}
}) (*httpapi.DataOutput[view.CustomField], error) {
	return httpapi.DataOf(view.FieldFrom)(h.svc.CreateCustomField(ctx, auth.MustPrincipal(ctx).TeamID, in.Body.Label, in.Body.Key, in.Body.Private))
}

func (h *handler) updateCustomField(ctx context.Context, in *struct {
	FieldID string `path:"field_id"`
	Body    struct {
		Label   *string `json:"label,omitempty"`
		Private *bool   `json:"private,omitempty"`
	}
}) (*httpapi.DataOutput[view.CustomField], error) {
	return httpapi.DataOf(view.FieldFrom)(h.svc.ChangeCustomField(ctx, auth.MustPrincipal(ctx).TeamID, in.FieldID, service.FieldChange{Label: in.Body.Label, Private: in.Body.Private}, false))
}

func (h *handler) deleteCustomField(ctx context.Context, in *struct {
	FieldID string `path:"field_id"`
}) (*struct{}, error) {
	return nil, h.svc.DeleteCustomField(ctx, auth.MustPrincipal(ctx).TeamID, in.FieldID, false)
}

func (h *handler) getMemberCustomFields(ctx context.Context, in *memberPath) (*httpapi.DataOutput[map[string]string], error) {
	v, err := h.svc.MemberValues(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(v), nil
}

func (h *handler) updateMemberCustomFields(ctx context.Context, in *struct {
	MemberID string `path:"member_id"`
	Body     struct {
		Values map[string]string `json:"values"`
	}
}) (*httpapi.DataOutput[map[string]string], error) {
	v, err := h.svc.SetMemberValues(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID, in.Body.Values)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(v), nil
}

func (h *handler) listOptOuts(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[view.OptOut], error) {
	return httpapi.ListOf(in.PageParams, view.OptOutFrom)(h.svc.OptOuts(ctx, auth.MustPrincipal(ctx).TeamID, in.Limit, in.Offset))
}

func (h *handler) createOptOut(ctx context.Context, in *struct {
	Body struct {
		Phone    string `json:"phone,omitempty"`
		MemberID string `json:"member_id,omitempty"`
	}
}) (*httpapi.DataOutput[view.OptOut], error) {
	return httpapi.DataOf(view.OptOutFrom)(h.svc.RecordOptOut(ctx, auth.MustPrincipal(ctx).TeamID, in.Body.Phone, in.Body.MemberID, service.SourceAPI))
}

func (h *handler) bulkOptOut(ctx context.Context, in *struct {
	Body struct {
		Items []struct {
			Phone string `json:"phone"`
		} `json:"items" minItems:"1" maxItems:"500"`
	}
}) (*httpapi.DataOutput[[]view.BulkResult], error) {
	phones := make([]string, len(in.Body.Items))
	for i, it := range in.Body.Items {
		phones[i] = it.Phone
	}
	items, err := h.svc.BulkOptOut(ctx, auth.MustPrincipal(ctx).TeamID, phones)
	if err != nil {
		return nil, err
	}
	out := make([]view.BulkResult, len(items))
	for i, it := range items {
		out[i] = view.BulkResult{Index: it.Index, Phone: it.Input, MemberIDs: []string{}}
		switch {
		case it.Err != nil:
			out[i].Status, out[i].Error = "failed", &view.ItemError{Code: it.Err.Code, Message: it.Err.Message}
		case it.Result.New:
			out[i].Status, out[i].MemberIDs = "opted_out", it.Result.MemberIDs
		default:
			out[i].Status, out[i].MemberIDs = "already_opted_out", it.Result.MemberIDs
		}
	}
	return httpapi.Data(out), nil
}

func (h *handler) validateRecipients(ctx context.Context, in *struct {
	Body struct {
		Phones []string `json:"phones" minItems:"1" maxItems:"100"`
	}
}) (*httpapi.DataOutput[[]view.Check], error) {
	cs, err := h.svc.Validate(ctx, auth.MustPrincipal(ctx).TeamID, in.Body.Phones)
	if err != nil {
		return nil, err
	}
	out := make([]view.Check, len(cs))
	for i, c := range cs {
		out[i] = view.Check{Input: c.Input, Valid: c.Valid, OnRoster: c.OnRoster, OptedOut: c.OptedOut, MemberIDs: c.MemberIDs, Undeliverable: c.Undeliverable}
		if c.Valid {
			phone := c.Phone
			out[i].Phone = &phone
		}
	}
	return httpapi.Data(out), nil
}
