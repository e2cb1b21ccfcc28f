// The roster's route table (miniflux api.go style): every operation of the
// public API (the team's key) and of the admin API (the dashboard), one
// line each, with the handler method that serves it. Descriptions are in
// docs.go; the bodies are in view (public) and adminview (admin).

package httpapi

import (
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/adminview"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Register adds the roster's public and admin operations.
func Register(public, admin huma.API, svc *service.Service, signIn *service.SignIn) {
	h := &handler{svc: svc, signIn: signIn}
	get, post, patch, del := http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete
	members, groups, fields, optOuts := []string{"Members"}, []string{"Groups"}, []string{"Custom fields"}, []string{"Opt-outs"}
	team, teams, keys := []string{"Team"}, []string{"Teams"}, []string{"API keys"}

	// Public API: the key's team.
	httpapi.Register(public, huma.Operation{OperationID: "list-members", Method: get, Path: "/members", Tags: members,
		Summary: "List members", Description: listMembersDoc}, h.listMembers, http.StatusBadRequest)
	httpapi.Register(public, huma.Operation{OperationID: "create-member", Method: post, Path: "/members", Tags: members, DefaultStatus: http.StatusCreated,
		Summary: "Add a member", Description: createMemberDoc}, h.createMember, http.StatusConflict)
	httpapi.Register(public, huma.Operation{OperationID: "get-member", Method: get, Path: "/members/{member_id}", Tags: members,
		Summary: "Get a member", Description: getMemberDoc}, h.getMember)
	httpapi.Register(public, huma.Operation{OperationID: "update-member", Method: patch, Path: "/members/{member_id}", Tags: members,
		Summary: "Change a member", Description: updateMemberDoc}, h.updateMember, http.StatusForbidden, http.StatusConflict)
	httpapi.Register(public, huma.Operation{OperationID: "delete-member", Method: del, Path: "/members/{member_id}", Tags: members, DefaultStatus: http.StatusNoContent,
		Summary: "Remove a member", Description: deleteMemberDoc}, h.deleteMember, http.StatusForbidden)
	httpapi.Register(public, huma.Operation{OperationID: "list-groups", Method: get, Path: "/groups", Tags: groups,
		Summary: "List groups", Description: listGroupsDoc}, h.listGroups)
	httpapi.Register(public, huma.Operation{OperationID: "add-group-member", Method: post, Path: "/groups/{group_id}/members", Tags: groups,
		Summary: "Add a member to a group", Description: addGroupMemberDoc}, h.addGroupMember)
	httpapi.Register(public, huma.Operation{OperationID: "remove-group-member", Method: del, Path: "/groups/{group_id}/members/{member_id}", Tags: groups, DefaultStatus: http.StatusNoContent,
		Summary: "Remove a member from a group", Description: removeGroupMemberDoc}, h.removeGroupMember)
	httpapi.Register(public, huma.Operation{OperationID: "list-custom-fields", Method: get, Path: "/custom-fields", Tags: fields,
		Summary: "List custom fields", Description: listCustomFieldsDoc}, h.listCustomFields)
	httpapi.Register(public, huma.Operation{OperationID: "create-custom-field", Method: post, Path: "/custom-fields", Tags: fields, DefaultStatus: http.StatusCreated,
		Summary: "Create a custom field", Description: createCustomFieldDoc}, h.createCustomField, http.StatusConflict)
	httpapi.Register(public, huma.Operation{OperationID: "update-custom-field", Method: patch, Path: "/custom-fields/{field_id}", Tags: fields,
		Summary: "Change a custom field", Description: updateCustomFieldDoc}, h.updateCustomField, http.StatusConflict)
	httpapi.Register(public, huma.Operation{OperationID: "delete-custom-field", Method: del, Path: "/custom-fields/{field_id}", Tags: fields, DefaultStatus: http.StatusNoContent,
		Summary: "Delete a custom field", Description: deleteCustomFieldDoc}, h.deleteCustomField)
	httpapi.Register(public, huma.Operation{OperationID: "get-member-custom-fields", Method: get, Path: "/members/{member_id}/custom-fields", Tags: fields,
		Summary: "Get a member's custom-field values", Description: getMemberCustomFieldsDoc}, h.getMemberCustomFields)
	httpapi.Register(public, huma.Operation{OperationID: "update-member-custom-fields", Method: patch, Path: "/members/{member_id}/custom-fields", Tags: fields,
		Summary: "Set a member's custom-field values", Description: updateMemberCustomFieldsDoc}, h.updateMemberCustomFields)
	httpapi.Register(public, huma.Operation{OperationID: "list-opt-outs", Method: get, Path: "/opt-outs", Tags: optOuts,
		Summary: "List opt-outs", Description: listOptOutsDoc}, h.listOptOuts)
	httpapi.Register(public, httpapi.WithAccess(huma.Operation{OperationID: "create-opt-out", Method: post, Path: "/opt-outs", Tags: optOuts,
		Summary: "Record an opt-out", Description: createOptOutDoc}, httpapi.Access{AnyPlan: true, NoCard: true}), h.createOptOut, http.StatusForbidden, http.StatusNotFound)
	httpapi.Register(public, httpapi.WithAccess(huma.Operation{OperationID: "bulk-opt-out", Method: post, Path: "/opt-outs/bulk", Tags: optOuts,
		Summary: "Record opt-outs in bulk", Description: bulkOptOutDoc}, httpapi.Access{AnyPlan: true, NoCard: true, Heavy: true}), h.bulkOptOut)
	httpapi.Register(public, httpapi.WithAccess(huma.Operation{OperationID: "validate-recipients", Method: post, Path: "/recipients/validate", Tags: optOuts,
		Summary: "Check phone numbers", Description: validateRecipientsDoc}, httpapi.Access{NoCard: true, Heavy: true}), h.validateRecipients)
	httpapi.Register(public, huma.Operation{OperationID: "get-member-consent", Method: get, Path: "/members/{member_id}/consent", Tags: members,
		Summary: "Get a member's consent record", Description: getMemberConsentDoc}, h.getMemberConsent)
	httpapi.Register(public, huma.Operation{OperationID: "get-team", Method: get, Path: "/team", Tags: team,
		Summary: "Get the team", Description: getTeamDoc}, h.getTeam, http.StatusForbidden)

	// Admin API (the dashboard): the team in the path.
	httpapi.Register(admin, huma.Operation{OperationID: "admin-create-group", Method: post, Path: "/teams/{team_id}/groups", Tags: groups, DefaultStatus: http.StatusCreated,
		Summary: "Create a group", Description: adminCreateGroupDoc}, h.adminCreateGroup, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-rename-group", Method: patch, Path: "/teams/{team_id}/groups/{group_id}", Tags: groups,
		Summary: "Rename a group", Description: adminRenameGroupDoc}, h.adminRenameGroup, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-delete-group", Method: del, Path: "/teams/{team_id}/groups/{group_id}", Tags: groups, DefaultStatus: http.StatusNoContent,
		Summary: "Delete a group", Description: adminDeleteGroupDoc}, h.adminDeleteGroup)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-update-custom-field", Method: patch, Path: "/teams/{team_id}/custom-fields/{field_id}", Tags: fields,
		Summary: "Change a custom field", Description: adminUpdateCustomFieldDoc}, h.adminUpdateCustomField, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-delete-custom-field", Method: del, Path: "/teams/{team_id}/custom-fields/{field_id}", Tags: fields, DefaultStatus: http.StatusNoContent,
		Summary: "Delete a custom field", Description: adminDeleteCustomFieldDoc}, h.adminDeleteCustomField)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-create-opt-out", Method: post, Path: "/teams/{team_id}/opt-outs", Tags: optOuts,
		Summary: "Record an opt-out (support)", Description: adminCreateOptOutDoc}, h.adminCreateOptOut, http.StatusForbidden)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-import-members", Method: post, Path: "/teams/{team_id}/members/import", Tags: members,
		Summary: "Import members from CSV", Description: adminImportMembersDoc}, h.adminImportMembers)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-clear-undeliverable", Method: del, Path: "/teams/{team_id}/members/{member_id}/undeliverable", Tags: members,
		Summary: "Clear a number's undeliverable mark", Description: adminClearUndeliverableDoc}, h.adminClearUndeliverable)
	exportSchema := admin.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(httpapi.DataBody[adminview.ConsentExport]{}), true, "ConsentExportBody")
	httpapi.Register(admin, huma.Operation{OperationID: "admin-export-consent", Method: get, Path: "/teams/{team_id}/consent", Tags: members,
		Summary: "Export a number's consent record", Description: adminExportConsentDoc, Responses: map[string]*huma.Response{"200": {
			Description: "The number's consent record.",
			Content: map[string]*huma.MediaType{
				"application/json": {Schema: exportSchema},
				"text/csv":         {Schema: &huma.Schema{Type: "string", Description: "The history as CSV (see the description)."}},
			},
		}}}, h.adminExportConsent, http.StatusBadRequest)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-create-team", Method: post, Path: "/teams", Tags: teams, DefaultStatus: http.StatusCreated,
		Summary: "Create a team", Description: adminCreateTeamDoc}, h.adminCreateTeam, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-get-team", Method: get, Path: "/teams/{team_id}", Tags: teams,
		Summary: "Get a team", Description: adminGetTeamDoc}, h.adminGetTeam)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-patch-team", Method: patch, Path: "/teams/{team_id}", Tags: teams,
		Summary: "Change a team", Description: adminPatchTeamDoc}, h.adminPatchTeam)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-create-member", Method: post, Path: "/teams/{team_id}/members", Tags: members, DefaultStatus: http.StatusCreated,
		Summary: "Add a member", Description: adminCreateMemberDoc}, h.adminCreateMember, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-patch-member", Method: patch, Path: "/teams/{team_id}/members/{member_id}", Tags: members,
		Summary: "Change a member's dashboard attributes", Description: adminPatchMemberDoc}, h.adminPatchMember)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-approve-member", Method: post, Path: "/teams/{team_id}/members/{member_id}/approve", Tags: members,
		Summary: "Approve a pending member", Description: adminApproveMemberDoc}, h.adminApproveMember, http.StatusConflict)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-create-key", Method: post, Path: "/teams/{team_id}/api-keys", Tags: keys, DefaultStatus: http.StatusCreated,
		Summary: "Create an API key", Description: adminCreateKeyDoc}, h.adminCreateKey, http.StatusForbidden)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-keys", Method: get, Path: "/teams/{team_id}/api-keys", Tags: keys,
		Summary: "List API keys", Description: adminListKeysDoc}, h.adminListKeys)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-revoke-key", Method: del, Path: "/teams/{team_id}/api-keys/{key_id}", Tags: keys,
		Summary: "Revoke an API key", Description: adminRevokeKeyDoc}, h.adminRevokeKey)
	httpapi.Register(admin, huma.Operation{OperationID: "admin-list-activity", Method: get, Path: "/teams/{team_id}/activity", Tags: []string{"Activity"},
		Summary: "The team's dashboard activity log", Description: adminListActivityDoc}, h.adminListActivity)
}

// handler serves both APIs: the public handlers act on the key's team,
// the admin ones (named admin…) on the team in the path.
type handler struct {
	svc    *service.Service
	signIn *service.SignIn // the dashboard's sessions and activity log
}
