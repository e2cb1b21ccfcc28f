package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Group is a group of members, usable as a send audience.
type Group struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	MemberCount int       `json:"member_count"`
	CreatedAt   time.Time `json:"created_at"`
}

// GroupFrom renders a group.
func GroupFrom(g *postgres.Group) Group {
	return Group{ID: g.ID, Name: g.Name, MemberCount: g.MemberCount, CreatedAt: g.CreatedAt}
}

// CustomField is an extra roster column.
type CustomField struct {
	ID        string    `json:"id"`
	Label     string    `json:"label"`
	Key       string    `json:"key" doc:"The merge-tag key (dashboard only)."`
	Private   bool      `json:"private" doc:"Values of a private field can be written but are never returned."`
	CreatedAt time.Time `json:"created_at"`
}

// FieldFrom renders a field.
func FieldFrom(f *postgres.CustomField) CustomField {
	return CustomField{ID: f.ID, Label: f.Label, Key: f.Key, Private: f.Private, CreatedAt: f.CreatedAt}
}

// OptOut is an opted-out number.
type OptOut struct {
	Phone     string   `json:"phone" doc:"E.164."`
	MemberIDs []string `json:"member_ids" doc:"Roster entries with this number (none if it is not on the roster). In GET /opt-outs, entries removed from the roster are listed too: they are kept on record so the opt-out stays (spec §3)."`
	// RemovedMemberIDs marks the removed entries of MemberIDs.
	RemovedMemberIDs []string  `json:"removed_member_ids" doc:"The entries of member_ids removed from the roster (DELETE /members/{member_id}) and kept on record because they opted out; they are not in member lists or reads."`
	Source           string    `json:"source" enum:"api,sms,support" doc:"api: recorded through the API; sms: the member texted STOP; support: recorded by staff."`
	OptedOutAt       time.Time `json:"opted_out_at"`
}

// OptOutFrom renders an opt-out record.
func OptOutFrom(r *service.OptOutResult) OptOut {
	return OptOut{Phone: r.Phone, MemberIDs: nonNil(r.MemberIDs), RemovedMemberIDs: nonNil(r.RemovedMemberIDs), Source: r.Source, OptedOutAt: r.OptedOutAt}
}

// nonNil makes an absent list [] on the wire (the document says array, not null).
func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// ItemError is a bulk item's failure.
type ItemError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// BulkResult is one item of POST /opt-outs/bulk.
type BulkResult struct {
	Index     int        `json:"index" doc:"Position of the item in the request."`
	Phone     string     `json:"phone" doc:"The phone as sent."`
	Status    string     `json:"status" enum:"opted_out,already_opted_out,failed"`
	MemberIDs []string   `json:"member_ids"`
	Error     *ItemError `json:"error" doc:"The failure when status is failed (invalid_phone or staff_member_protected); null otherwise."`
}

// Check is one number of POST /recipients/validate.
type Check struct {
	Input     string   `json:"input"`
	Phone     *string  `json:"phone" doc:"E.164, null when not a valid US number."`
	Valid     bool     `json:"valid" doc:"A valid US number (no carrier is contacted)."`
	OnRoster  bool     `json:"on_roster"`
	OptedOut  bool     `json:"opted_out"`
	MemberIDs []string `json:"member_ids"`
	// Undeliverable is issue 18's mark, beside opted_out.
	Undeliverable bool `json:"undeliverable" doc:"The number is marked undeliverable: its texts failed with a permanent carrier code (landline, unreachable, invalid, blocked) UNDELIVERABLE_AFTER times in a row, so sends skip it until a text to it is delivered, it texts the team, or the dashboard clears the mark (an addition to v1)."`
}

func registerRoster(api huma.API, svc *service.Service) {
	gtags := []string{"Groups"}
	httpapi.Register(api, huma.Operation{
		OperationID: "list-groups", Method: http.MethodGet, Path: "/groups", Tags: gtags,
		Summary: "List groups", Description: "Lists the team's groups by name, with member counts. Groups are created in the dashboard.",
	}, func(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[Group], error) {
		gs, err := svc.Groups(ctx, auth.MustPrincipal(ctx).TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]Group, len(gs))
		for i := range gs {
			out[i] = GroupFrom(&gs[i])
		}
		return httpapi.List(in.PageParams, out), nil
	})
	httpapi.Register(api, huma.Operation{
		OperationID: "add-group-member", Method: http.MethodPost, Path: "/groups/{group_id}/members", Tags: gtags,
		Summary: "Add a member to a group", Description: "Adds the member (idempotent) and returns them. Staff and members with a login give 403 staff_member_protected.",
	}, func(ctx context.Context, in *struct {
		GroupID string `path:"group_id"`
		Body    struct {
			MemberID string `json:"member_id"`
		}
	}) (*httpapi.DataOutput[Member], error) {
		v, err := svc.AddToGroup(ctx, auth.MustPrincipal(ctx).TeamID, in.GroupID, in.Body.MemberID)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(MemberFrom(v)), nil
	})
	httpapi.Register(api, huma.Operation{
		OperationID: "remove-group-member", Method: http.MethodDelete, Path: "/groups/{group_id}/members/{member_id}", Tags: gtags, DefaultStatus: http.StatusNoContent,
		Summary: "Remove a member from a group", Description: "Removes the member from the group (204); 404 if they are not in it.",
	}, func(ctx context.Context, in *struct {
		GroupID  string `path:"group_id"`
		MemberID string `path:"member_id"`
	}) (*struct{}, error) {
		return nil, svc.RemoveFromGroup(ctx, auth.MustPrincipal(ctx).TeamID, in.GroupID, in.MemberID)
	})

	ftags := []string{"Custom fields"}
	httpapi.Register(api, huma.Operation{
		OperationID: "list-custom-fields", Method: http.MethodGet, Path: "/custom-fields", Tags: ftags,
		Summary: "List custom fields", Description: "The team's extra roster columns, each with private.",
	}, func(ctx context.Context, _ *struct{}) (*httpapi.DataOutput[[]CustomField], error) {
		fs, err := svc.CustomFields(ctx, auth.MustPrincipal(ctx).TeamID)
		if err != nil {
			return nil, err
		}
		out := make([]CustomField, len(fs))
		for i := range fs {
			out[i] = FieldFrom(&fs[i])
		}
		return httpapi.Data(out), nil
	})
	httpapi.Register(api, huma.Operation{
		OperationID: "create-custom-field", Method: http.MethodPost, Path: "/custom-fields", Tags: ftags, DefaultStatus: http.StatusCreated,
		Summary: "Create a custom field",
		Description: "label is required; key (the merge-tag key: 1-32 of a-z, 0-9, _, starting with a letter) defaults to one derived from the label. " +
			"At most 20 per team (409 field_limit); a label or key in use gives 409 field_exists.",
	}, func(ctx context.Context, in *struct {
		Body struct {
			Label   string `json:"label"`
			Key     string `json:"key,omitempty"`
			Private bool   `json:"private,omitempty"`
		}
	}) (*httpapi.DataOutput[CustomField], error) {
		f, err := svc.CreateCustomField(ctx, auth.MustPrincipal(ctx).TeamID, in.Body.Label, in.Body.Key, in.Body.Private)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(FieldFrom(f)), nil
	}, http.StatusConflict)
	httpapi.Register(api, huma.Operation{
		OperationID: "update-custom-field", Method: http.MethodPatch, Path: "/custom-fields/{field_id}", Tags: ftags,
		Summary: "Change a custom field", Description: "Renames the field and/or makes it private (private: true). Making a private field public gives 403 private_field_locked (dashboard only).",
	}, func(ctx context.Context, in *struct {
		FieldID string `path:"field_id"`
		Body    struct {
			Label   *string `json:"label,omitempty"`
			Private *bool   `json:"private,omitempty"`
		}
	}) (*httpapi.DataOutput[CustomField], error) {
		f, err := svc.ChangeCustomField(ctx, auth.MustPrincipal(ctx).TeamID, in.FieldID, service.FieldChange{Label: in.Body.Label, Private: in.Body.Private}, false)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(FieldFrom(f)), nil
	}, http.StatusConflict)
	httpapi.Register(api, huma.Operation{
		OperationID: "delete-custom-field", Method: http.MethodDelete, Path: "/custom-fields/{field_id}", Tags: ftags, DefaultStatus: http.StatusNoContent,
		Summary: "Delete a custom field", Description: "Deletes the field and all its values (204). A private field gives 403 private_field_locked (dashboard only).",
	}, func(ctx context.Context, in *struct {
		FieldID string `path:"field_id"`
	}) (*struct{}, error) {
		return nil, svc.DeleteCustomField(ctx, auth.MustPrincipal(ctx).TeamID, in.FieldID, false)
	})
	httpapi.Register(api, huma.Operation{
		OperationID: "get-member-custom-fields", Method: http.MethodGet, Path: "/members/{member_id}/custom-fields", Tags: ftags,
		Summary: "Get a member's custom-field values", Description: "A map from field key to value; private fields are never returned.",
	}, func(ctx context.Context, in *memberPath) (*httpapi.DataOutput[map[string]string], error) {
		v, err := svc.MemberValues(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(v), nil
	})
	httpapi.Register(api, huma.Operation{
		OperationID: "update-member-custom-fields", Method: http.MethodPatch, Path: "/members/{member_id}/custom-fields", Tags: ftags,
		Summary: "Set a member's custom-field values",
		Description: "values maps field keys to strings (up to 1000 bytes; an empty string clears a value). Private fields can be written; the answer never shows them. " +
			"An unknown key gives 400 invalid_request and nothing is written. Staff and members with a login give 403 staff_member_protected.",
	}, func(ctx context.Context, in *struct {
		MemberID string `path:"member_id"`
		Body     struct {
			Values map[string]string `json:"values"`
		}
	}) (*httpapi.DataOutput[map[string]string], error) {
		v, err := svc.SetMemberValues(ctx, auth.MustPrincipal(ctx).TeamID, in.MemberID, in.Body.Values)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(v), nil
	})

	otags := []string{"Opt-outs"}
	httpapi.Register(api, huma.Operation{
		OperationID: "list-opt-outs", Method: http.MethodGet, Path: "/opt-outs", Tags: otags,
		Summary: "List opt-outs", Description: "Opted-out numbers, newest first: members who texted STOP and numbers recorded through the API or by support.",
	}, func(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[OptOut], error) {
		rs, err := svc.OptOuts(ctx, auth.MustPrincipal(ctx).TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]OptOut, len(rs))
		for i := range rs {
			out[i] = OptOutFrom(&rs[i])
		}
		return httpapi.List(in.PageParams, out), nil
	})
	httpapi.Register(api, httpapi.WithAccess(huma.Operation{
		OperationID: "create-opt-out", Method: http.MethodPost, Path: "/opt-outs", Tags: otags,
		Summary: "Record an opt-out",
		Description: "Opts out every roster entry with the number, for good (only the member can opt back in, by texting START); one member.opted_out per entry. " +
			"A number not on the roster is recorded so the API will not add it later. No text is sent. Send phone or member_id. " +
			"Staff numbers give 403 staff_member_protected; a member_id that is not on the team's roster gives 404 not_found. " +
			"Recording an opted-out number again answers the existing record. Works on any plan.",
	}, httpapi.Access{AnyPlan: true, NoCard: true}), func(ctx context.Context, in *struct {
		Body struct {
			Phone    string `json:"phone,omitempty"`
			MemberID string `json:"member_id,omitempty"`
		}
	}) (*httpapi.DataOutput[OptOut], error) {
		r, err := svc.RecordOptOut(ctx, auth.MustPrincipal(ctx).TeamID, in.Body.Phone, in.Body.MemberID, service.SourceAPI)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(OptOutFrom(r)), nil
	}, http.StatusForbidden, http.StatusNotFound)
	httpapi.Register(api, httpapi.WithAccess(huma.Operation{
		OperationID: "bulk-opt-out", Method: http.MethodPost, Path: "/opt-outs/bulk", Tags: otags,
		Summary: "Record opt-outs in bulk",
		Description: "Up to 500 items, each {phone}. Each item gets its own result, in request order: status opted_out, already_opted_out, or failed with " +
			"error.code invalid_phone or staff_member_protected. Items are independent: a failed item does not undo the others. Works on any plan.",
	}, httpapi.Access{AnyPlan: true, NoCard: true, Heavy: true}), func(ctx context.Context, in *struct {
		Body struct {
			Items []struct {
				Phone string `json:"phone"`
			} `json:"items" minItems:"1" maxItems:"500"`
		}
	}) (*httpapi.DataOutput[[]BulkResult], error) {
		phones := make([]string, len(in.Body.Items))
		for i, it := range in.Body.Items {
			phones[i] = it.Phone
		}
		items, err := svc.BulkOptOut(ctx, auth.MustPrincipal(ctx).TeamID, phones)
		if err != nil {
			return nil, err
		}
		out := make([]BulkResult, len(items))
		for i, it := range items {
			out[i] = BulkResult{Index: it.Index, Phone: it.Input, MemberIDs: []string{}}
			switch {
			case it.Err != nil:
				out[i].Status, out[i].Error = "failed", &ItemError{Code: it.Err.Code, Message: it.Err.Message}
			case it.Result.New:
				out[i].Status, out[i].MemberIDs = "opted_out", it.Result.MemberIDs
			default:
				out[i].Status, out[i].MemberIDs = "already_opted_out", it.Result.MemberIDs
			}
		}
		return httpapi.Data(out), nil
	})
	httpapi.Register(api, httpapi.WithAccess(huma.Operation{
		OperationID: "validate-recipients", Method: http.MethodPost, Path: "/recipients/validate", Tags: otags,
		Summary:     "Check phone numbers",
		Description: "Up to 100 numbers. For each, in request order: whether it is a valid US number (no carrier is contacted), already on the roster (with member ids), opted out, and marked undeliverable (an addition to v1: sends skip such numbers). Changes nothing.",
	}, httpapi.Access{NoCard: true, Heavy: true}), func(ctx context.Context, in *struct {
		Body struct {
			Phones []string `json:"phones" minItems:"1" maxItems:"100"`
		}
	}) (*httpapi.DataOutput[[]Check], error) {
		cs, err := svc.Validate(ctx, auth.MustPrincipal(ctx).TeamID, in.Body.Phones)
		if err != nil {
			return nil, err
		}
		out := make([]Check, len(cs))
		for i, c := range cs {
			out[i] = Check{Input: c.Input, Valid: c.Valid, OnRoster: c.OnRoster, OptedOut: c.OptedOut, MemberIDs: c.MemberIDs, Undeliverable: c.Undeliverable}
			if c.Valid {
				phone := c.Phone
				out[i].Phone = &phone
			}
		}
		return httpapi.Data(out), nil
	})
}
