package webhooksapi

// Error codes owned by the webhooks module (spec §6, §7), declared here
// only. The spec leaves the statuses of the first four open; ours are 400,
// 400, 400 and 409.
const (
	CodeBlockedURL    = "blocked_url"    // 400: the URL points at a private or special address
	CodeInvalidURL    = "invalid_url"    // 400: not an https URL, or a host that cannot exist
	CodeInvalidEvents = "invalid_events" // 400: empty, unknown, or webhook.test
	CodeWebhookLimit  = "webhook_limit"  // 409: the team already has MaxPerTeam webhooks
	CodeDNSBusy       = "dns_busy"       // 503: the host name cannot be resolved at once
)
