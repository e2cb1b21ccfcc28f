package messagingapi

// Error codes owned by messaging (spec §7), declared here only. The
// refusals messaging gives for billing's or the roster's reasons use those
// modules' codes (billingapi.CodePaymentRequired, rosterapi.CodeOptedOut...).
const (
	CodeInvalidScheduledFor  = "invalid_scheduled_for"
	CodeInvalidRepeat        = "invalid_repeat"
	CodeMergeTagsUnsupported = "merge_tags_unsupported"
	CodePrivateField         = "private_field"
	CodeUrgentNotAllowed     = "urgent_not_allowed"
	CodeTemplateExists       = "template_exists"
	CodeTemplateLimit        = "template_limit"
	CodeTemplateProtected    = "template_protected"
	CodeScheduledLimit       = "scheduled_limit_reached"
	CodeNoSender             = "no_sender"
)
