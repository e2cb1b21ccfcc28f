package httpapi

// The operations' descriptions (OpenAPI), by route.
const (
	listMembersDoc  = "Lists the roster, oldest first (sort=-created_at: newest first). Filters combine with AND. Removed opted-out members are not listed."
	createMemberDoc = "Adds someone to the roster (status active) and emits member.joined. role defaults to athlete; staff roles give 400 role_not_allowed. " +
		memberExistsDoc + optedOutDoc + "403 staff_member_protected when that same person is staff or has a dashboard login. 400 invalid_group for an unknown group id. " +
		"consent records how and when the member agreed (source api and now when omitted); it is kept in the number's consent history. " +
		"An unknown source, a time in the future or before 2000, or evidence that is too long or has control characters is 400 invalid_request, and nothing is written."
	getMemberDoc    = "Returns one member of the team."
	updateMemberDoc = "Changes any of name, phone, email, role, time_zone (null or empty clears it), groups (group_ids is accepted as the same field; it replaces the member's groups). " +
		"status is read-only (400 read_only_field). Staff and members with a dashboard login give 403 staff_member_protected. " +
		"Changing the number of an opted-out member would re-subscribe them: 409 opted_out_member. " + memberExistsDoc + optedOutDoc
	deleteMemberDoc = "Removes the member (204). An opted-out member is kept on record so the opt-out stays: they disappear from lists and reads. " +
		"Staff and members with a login give 403 staff_member_protected."
	listGroupsDoc        = "Lists the team's groups by name, with member counts. Groups are created in the dashboard."
	addGroupMemberDoc    = "Adds the member (idempotent) and returns them. Staff and members with a login give 403 staff_member_protected."
	removeGroupMemberDoc = "Removes the member from the group (204); 404 if they are not in it."
	listCustomFieldsDoc  = "The team's extra roster columns, each with private."
	createCustomFieldDoc = "label is required; key (the merge-tag key: 1-32 of a-z, 0-9, _, starting with a letter) defaults to one derived from the label. " +
		"At most 20 per team (409 field_limit); a label or key in use gives 409 field_exists."
	updateCustomFieldDoc        = "Renames the field and/or makes it private (private: true). Making a private field public gives 403 private_field_locked (dashboard only)."
	deleteCustomFieldDoc        = "Deletes the field and all its values (204). A private field gives 403 private_field_locked (dashboard only)."
	getMemberCustomFieldsDoc    = "A map from field key to value; private fields are never returned."
	updateMemberCustomFieldsDoc = "values maps field keys to strings (up to 1000 bytes; an empty string clears a value). Private fields can be written; the answer never shows them. " +
		"An unknown key gives 400 invalid_request and nothing is written. Staff and members with a login give 403 staff_member_protected."
	listOptOutsDoc  = "Opted-out numbers, newest first: members who texted STOP and numbers recorded through the API or by support."
	createOptOutDoc = "Opts out every roster entry with the number, for good (only the member can opt back in, by texting START); one member.opted_out per entry. " +
		"A number not on the roster is recorded so the API will not add it later. No text is sent. Send phone or member_id. " +
		"Staff numbers give 403 staff_member_protected; a member_id that is not on the team's roster gives 404 not_found. " +
		"Recording an opted-out number again answers the existing record. Works on any plan."
	bulkOptOutDoc = "Up to 500 items, each {phone}. Each item gets its own result, in request order: status opted_out, already_opted_out, or failed with " +
		"error.code invalid_phone or staff_member_protected. Items are independent: a failed item does not undo the others. Works on any plan."
	validateRecipientsDoc = "Up to 100 numbers. For each, in request order: whether it is a valid US number (no carrier is contacted), already on the roster (with member ids), opted out, and marked undeliverable (an addition to v1: sends skip such numbers). Changes nothing."
	getMemberConsentDoc   = "The member's consent record (how and when they agreed: set when they were added, through the API, the dashboard or an import) " +
		"and the consent history of their number, oldest first: consent given each time a member was added with it, every STOP, START and HELP " +
		"text from it, every opt-out recorded through the API (single and bulk) or by support. The history is the number's, so it covers " +
		"every roster entry with it and numbers texted before they were on the roster. history is paginated with limit and offset, as lists are. " +
		"A member of another team is 404 not_found."
	getTeamDoc                 = "Returns the key's team: name, code, number, plan, and credits used and included in the current period."
	adminCreateGroupDoc        = "Creates a group; a name in use (case-insensitive) gives 409 conflict."
	adminRenameGroupDoc        = "Renames a group."
	adminDeleteGroupDoc        = "Deletes a group; its members stay on the roster."
	adminUpdateCustomFieldDoc  = "Renames a field or changes its privacy; unlike the API it may make a private field public."
	adminDeleteCustomFieldDoc  = "Deletes a field (private ones included) and all its values."
	adminCreateOptOutDoc       = "Support opts a number out (source support), with the same rules as the API's POST /opt-outs."
	adminImportMembersDoc      = importDescription
	adminClearUndeliverableDoc = "The member's number is no longer undeliverable, on every roster entry of the team with it, and its count of permanent failures starts again: " +
		"the next sends text it. Answers the member (undeliverable false). Idempotent: a number that is not marked answers the same. " +
		"404 not_found for a member the team does not have."
	adminExportConsentDoc = consentExportDescription
	adminCreateTeamDoc    = "Creates a team with its billing account. join_approval_required defaults to true (joiners by text or on the sign-up page are pending until approved)."
	adminGetTeamDoc       = "Returns a team with its billing facts."
	adminPatchTeamDoc     = "Changes any of name, plan, card_on_file, approval_required, join_approval_required, payment_state, trial, trial_credits, disabled, locked. Takes effect at once."
	adminCreateMemberDoc  = "Adds a member with the public POST /members's fields (role athlete when omitted; group_ids: 400 invalid_group for a group the team does not have); staff roles, dashboard_login, can_send_broadcasts (default true for staff) and status (pending or active) are dashboard-only. An active member emits member.joined. consent as in the public POST /members, with source dashboard by default; it is kept in the number's consent history (channel admin)."
	adminPatchMemberDoc   = "Changes any of role (staff roles included), dashboard_login, can_send_broadcasts, is_blocked, time_zone (null or empty clears it). Demoting a key creator, or taking away their broadcast permission, revokes their keys for good."
	adminApproveMemberDoc = "A pending member joins the roster (member.joined). 409 conflict if the member is not pending."
	adminCreateKeyDoc     = "Creates a key acting for member_id, an active head coach or team director who may send broadcasts (else 403 forbidden). The key is shown once."
	adminListKeysDoc      = "Lists the team's keys, newest first, revoked ones included; never the key values."
	adminListActivityDoc  = "Every write made in the staff dashboard, newest first: who (the roster entry and its name now; empty when the entry was deleted), " +
		"the action (for example \"sent message\", \"created key\", \"revoked key\"), the object's id, the client address and the time. " +
		"The same log as the dashboard's Settings, Activity. Kept as long as the team (no retention job removes it)."
	adminRevokeKeyDoc = "Revokes a key for good, on any plan; webhooks made with it are deleted. Answers the revoked key."
)
