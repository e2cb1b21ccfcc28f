package admin

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	rosterhttp "github.com/teamtext/teamtext/modules/roster/internal/httpapi"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/httpapi"
)

func registerRoster(api huma.API, svc *service.Service) {
	gtags := []string{"Groups"}
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-create-group", Method: http.MethodPost, Path: "/teams/{team_id}/groups", Tags: gtags, DefaultStatus: http.StatusCreated,
		Summary: "Create a group", Description: "Creates a group; a name in use (case-insensitive) gives 409 conflict.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		Body   struct {
			Name string `json:"name"`
		}
	}) (*httpapi.DataOutput[rosterhttp.Group], error) {
		g, err := svc.CreateGroup(ctx, in.TeamID, in.Body.Name)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(rosterhttp.GroupFrom(g)), nil
	}, http.StatusConflict)
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-rename-group", Method: http.MethodPatch, Path: "/teams/{team_id}/groups/{group_id}", Tags: gtags,
		Summary: "Rename a group", Description: "Renames a group.",
	}, func(ctx context.Context, in *struct {
		TeamID  string `path:"team_id"`
		GroupID string `path:"group_id"`
		Body    struct {
			Name string `json:"name"`
		}
	}) (*httpapi.DataOutput[rosterhttp.Group], error) {
		g, err := svc.RenameGroup(ctx, in.TeamID, in.GroupID, in.Body.Name)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(rosterhttp.GroupFrom(g)), nil
	}, http.StatusConflict)
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-delete-group", Method: http.MethodDelete, Path: "/teams/{team_id}/groups/{group_id}", Tags: gtags, DefaultStatus: http.StatusNoContent,
		Summary: "Delete a group", Description: "Deletes a group; its members stay on the roster.",
	}, func(ctx context.Context, in *struct {
		TeamID  string `path:"team_id"`
		GroupID string `path:"group_id"`
	}) (*struct{}, error) {
		return nil, svc.DeleteGroup(ctx, in.TeamID, in.GroupID)
	})

	ftags := []string{"Custom fields"}
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-update-custom-field", Method: http.MethodPatch, Path: "/teams/{team_id}/custom-fields/{field_id}", Tags: ftags,
		Summary: "Change a custom field", Description: "Renames a field or changes its privacy; unlike the API it may make a private field public.",
	}, func(ctx context.Context, in *struct {
		TeamID  string `path:"team_id"`
		FieldID string `path:"field_id"`
		Body    struct {
			Label   *string `json:"label,omitempty"`
			Private *bool   `json:"private,omitempty"`
		}
	}) (*httpapi.DataOutput[rosterhttp.CustomField], error) {
		f, err := svc.ChangeCustomField(ctx, in.TeamID, in.FieldID, service.FieldChange{Label: in.Body.Label, Private: in.Body.Private}, true)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(rosterhttp.FieldFrom(f)), nil
	}, http.StatusConflict)
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-delete-custom-field", Method: http.MethodDelete, Path: "/teams/{team_id}/custom-fields/{field_id}", Tags: ftags, DefaultStatus: http.StatusNoContent,
		Summary: "Delete a custom field", Description: "Deletes a field (private ones included) and all its values.",
	}, func(ctx context.Context, in *struct {
		TeamID  string `path:"team_id"`
		FieldID string `path:"field_id"`
	}) (*struct{}, error) {
		return nil, svc.DeleteCustomField(ctx, in.TeamID, in.FieldID, true)
	})

	httpapi.Register(api, huma.Operation{
		OperationID: "admin-create-opt-out", Method: http.MethodPost, Path: "/teams/{team_id}/opt-outs", Tags: []string{"Opt-outs"},
		Summary: "Record an opt-out (support)", Description: "Support opts a number out (source support), with the same rules as the API's POST /opt-outs.",
	}, func(ctx context.Context, in *struct {
		TeamID string `path:"team_id"`
		Body   struct {
			Phone    string `json:"phone,omitempty"`
			MemberID string `json:"member_id,omitempty"`
		}
	}) (*httpapi.DataOutput[rosterhttp.OptOut], error) {
		r, err := svc.RecordOptOut(ctx, in.TeamID, in.Body.Phone, in.Body.MemberID, service.SourceSupport)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(rosterhttp.OptOutFrom(r)), nil
	}, http.StatusForbidden)
}
