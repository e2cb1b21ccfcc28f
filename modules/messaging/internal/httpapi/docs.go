package httpapi

// The public operations' descriptions (the OpenAPI document's), named by
// their handler methods (routes.go).

// inboxDoc ends the inbox operations' descriptions.
const inboxDoc = " The inbox holds the visible texts that are not keywords: STOP, START and HELP texts are handled by the service " +
	"and listed only by GET /inbound-messages. Replies are sent from the dashboard only."

const (
	listTemplatesDoc  = "Saved templates, by name."
	createTemplateDoc = "name and body are required; message_type is standard (default), reminder or announcement — urgent_alert gives 400 urgent_not_allowed. " +
		"At most 200 per team (409 template_limit). A name in use gives 409 template_exists; the name of a deleted template restores that template " +
		"(same id) with the body and type of this request (201, header Template-Restored: true)."
	getTemplateDoc    = "One template."
	updateTemplateDoc = "Changes name, body and/or message_type. Urgent-alert templates give 403 template_protected; message_type urgent_alert gives 400 urgent_not_allowed; a name in use gives 409 template_exists."
	deleteTemplateDoc = "Deletes the template (204). Creating one with the same name later restores it. Urgent-alert templates give 403 template_protected."
	sendMessageDoc    = "Broadcasts a text to one audience. Answers 201 with a message (kind message): status queued, or pending_approval when the team's policy requires approval; " +
		"or, with scheduled_for, a scheduled send (kind scheduled). Checks, in order: body (400), the team's number (409 no_sender), billing (402 payment_required when a renewal is overdue; " +
		"402 trial_limit when the credits exceed the remaining trial credits), pending scheduled sends (409 scheduled_limit_reached, at most 100), then the audience is resolved at send time " +
		"(409 conflict when it has no one to text). A template_id the team does not have gives 404 not_found. One text per distinct number. Idempotency-Key (addition to v1): the same key and body within 24 hours return the first answer " +
		"(header Idempotent-Replayed: true); the same key with another body gives 409 conflict."
	estimateMessageDoc = "Runs the same checks as a send and sends nothing; not counted toward the send limits. Segments are counted on the rendered text " +
		"(prefix \"<team name>: \", the text, a newline and \"Reply STOP to opt out.\"): GSM-7 160 per single text / 153 per part, UCS-2 70 / 67."
	listMessagesDoc        = "Broadcasts, newest first, with delivery counts."
	getMessageDoc          = "One broadcast with delivery counts."
	listDeliveriesDoc      = "One row per recipient number, in the order the recipients were resolved at send time (roster order). A delivery with no final status after 72 hours becomes delivery_unconfirmed."
	listScheduledDoc       = "Pending scheduled sends, soonest first; items include repeat (null for one-off sends)."
	cancelScheduledDoc     = "Cancels it (204); a weekly series ends. 404 if it is not pending."
	listInboundMessagesDoc = "Texts sent to the team number, newest first, with the fields of the message.received event. Texts received while a renewal " +
		"payment is overdue are held: they appear here, and in the event, only after payment succeeds (in arrival order). " + keywordDoc
	listInboxDoc        = "Inbox items, newest first: all, unread (read_at null) or replied (replied_at set)." + inboxDoc
	inboxUnreadCountDoc = "The number of inbox items not marked read." + inboxDoc
	inboxMarkReadDoc    = "Marks one inbox item read (staff see it read in the dashboard); marking it again keeps the first read_at. " +
		"404 not_found for ids that are not inbox items of the team." + inboxDoc
	inboxReadAllDoc = "Marks all unread inbox items read and says how many." + inboxDoc
	getAnalyticsDoc = "Totals over UTC days from..to, both included: broadcasts, deliveries, delivered, delivery_rate, texts_received, " +
		"new_members and opt_outs. to defaults to today (UTC) and from to 29 days before to (the last 30 days). At most 366 days; " +
		"a longer range, from after to, or a date not in YYYY-MM-DD form gives 400 invalid_request. Figures are pre-aggregated per team " +
		"per UTC day in the transactions that record the facts, so they are current and the answer costs the same for any volume."
	resendMessageDoc = "With {\"only\": \"failed\"} (the only value; anything else is 400 invalid_request): sends the message's text again, as a new message (resend_of names the original), " +
		"to the recipients whose delivery failed with a code that says nothing permanent about their number — not those whose number is a landline, unreachable, invalid or blocked " +
		"(the carrier's permanent codes, listed in the README), nor those who opted out. They are texted as they are on the roster now: active members only, and numbers marked " +
		"undeliverable are skipped (skipped_undeliverable). Everything else is as POST /messages: the same checks, limits (the resend counts toward the send limits), " +
		"billing (402), approval (status pending_approval when the team's policy requires it) and answer (201, a message). " +
		"404 not_found for a message the team does not have. 409 conflict when the message was never sent (pending_approval, rejected, expired), " +
		"when some of its texts have no final status yet, when none of its deliveries failed that way, or when it was resent already (resend the resend to try its failures again). " +
		"Idempotency-Key as for POST /messages."
)
