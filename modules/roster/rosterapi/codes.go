package rosterapi

// Error codes owned by the roster (spec §7): the roster answers with them,
// and so do the modules that refuse for the roster's reasons (messaging
// refuses a send to an opted-out number with CodeOptedOut). Each is
// declared here only.
const (
	CodeInvalidEmail         = "invalid_email"
	CodeInvalidRole          = "invalid_role"
	CodeRoleNotAllowed       = "role_not_allowed"
	CodeReadOnlyField        = "read_only_field"
	CodeStaffMemberProtected = "staff_member_protected"
	CodeMemberExists         = "member_exists"
	CodeOptedOut             = "opted_out"
	CodeSenderBlocked        = "sender_blocked"
	CodeTeamDisabled         = "team_disabled"
	CodeTeamLocked           = "team_locked"
	CodeKeyOwnerInactive     = "key_owner_inactive"
	CodeFieldExists          = "field_exists"
	CodeFieldLimit           = "field_limit"
	CodePrivateFieldLocked   = "private_field_locked"
	CodeOptedOutMember       = "opted_out_member"
)

// CodeInvalidGroup is Audience.Recipients' refusal (400) of a group_id
// that is missing for audience group, not a group of the team, or given
// with another audience.
const CodeInvalidGroup = "invalid_group"
