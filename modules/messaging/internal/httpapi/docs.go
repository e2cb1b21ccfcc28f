package httpapi

// The public operations' descriptions (the OpenAPI document's), named by
// their handler methods (routes.go).

// pollDoc ends the send's description (an addition to v1).
const pollDoc = "Polls (RSVP by reply, an addition to v1): with reply_options the broadcast is a poll; its text ends with the line " +
	"\"Reply YES, NO or MAYBE\" (after the opt-out line), counted in segments and credits. Until reply_until, a recipient's text whose first word " +
	"(trimmed, case and punctuation ignored) is an option of their number's latest open poll from the team (latest by send among the polls whose text " +
	"was handed over to that number) is recorded as the answer of every roster entry with that number the poll reached (a parent of two athletes " +
	"answers for both); the latest answer wins, and each answer recorded publishes message.response. STOP, START and HELP keep their precedence; " +
	"a text matching no option is an ordinary text. The text stays in GET /inbound-messages and the inbox, with response_to. A scheduled send " +
	"carries its reply options to each occurrence; a resend of a poll is a poll of its own (same options, open 7 days); campaign steps are never polls. " +
	"A message awaiting approval keeps the reply_until decided when it was made."

const listResponsesDoc = "A poll's answers (an addition to v1): tallies per option (every option, in the poll's order, 0 included), no_response (the roster entries " +
	"the poll reached that have not answered; an entry on the roster twice counts twice), and a page of answers, newest first: each roster entry's latest option, " +
	"when it arrived, and the member as member.* events show it (when they answered). A message that is not a poll answers 200 with reply_options null, " +
	"tallies [], no_response 0 and no answers. Another team's message, or none, is 404 not_found. Counts toward the shared heavy-call pool (10 per minute per key)."

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
		"(header Idempotent-Replayed: true); the same key with another body gives 409 conflict. " + pollDoc
	estimateMessageDoc = "Runs the same checks as a send and sends nothing; not counted toward the send limits. Segments are counted on the rendered text " +
		"(prefix \"<team name>: \", the text, a newline and \"Reply STOP to opt out.\", and for a poll a newline and its reply line): GSM-7 160 per single text / 153 per part, UCS-2 70 / 67."
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

	// admin
	adminApproveMessageDoc    = "Approves and sends: recipients are resolved now." + decisionDoc
	adminRejectMessageDoc     = "Rejects: the message is never sent." + decisionDoc
	adminListApprovalsDoc     = "Messages in pending_approval, oldest first."
	adminCreateTemplateDoc    = "Like the API's POST /templates, but message_type may be urgent_alert."
	adminSimulatorOutcomesDoc = "Carrier simulator only (409 conflict otherwise). default applies to numbers not listed; numbers and error_code are optional. " +
		"delivered: a delivered report; failed: a failed report (error_code, default 30003); unconfirmed: no final report at all. " +
		"Additions: refused makes the carrier refuse the text at once, as for an invalid number (the delivery fails with error_code, " +
		"default 21211, and carrier_status rejected); unreachable, landline and filtered fail with Twilio's codes 30003, 30006 and 30007. " +
		"An error_code given applies to every failing outcome."
	adminSimulatorGetProfileDoc = "Carrier simulator only (409 conflict otherwise). The profile in force on every node."
	adminSimulatorSetProfileDoc = "Carrier simulator only (409 conflict otherwise); every node follows it. instant: texts are taken and reported at once and " +
		"numbers are not paced. realistic: each sending number's texts are paced at its throughput and go through a carrier queue that " +
		"sends at that throughput (a text that would wait longer than max_queue_seconds fails with 30001); status reports arrive " +
		"report_latency_min_ms to report_latency_max_ms after a text leaves the queue, duplicate_rate of them twice and reorder_rate of " +
		"texts with their 'sent' report after the final one; a recipient who texted STOP to a number is refused by the carrier (21610) " +
		"until START. Fields left out take their defaults. Texts already planned keep their plan."
	adminSimulatorOutboxDoc = "Oldest first, optionally for one team."
	adminAddNumberDoc       = "Adds a number the team sends from (and receives texts and STOP on). A broadcast spreads over the team's numbers, each " +
		"recipient keeping the number that texted them before; each number sends at its throughput, across all nodes together. " +
		"400 invalid_phone for a number that is not a US number (or, for a short code, 5 or 6 digits), 400 invalid_request for a bad kind " +
		"or throughput; 409 conflict when any team already has the number."
	adminCreateAccountDoc = "Adds an account at a carrier (201), whose numbers then send through it: give a sending number its " +
		"carrier_account_id. " + credentialsDoc + " The answer never holds the credentials. 400 invalid_request for an unknown provider, a " +
		"missing, extra or malformed credential field (the message names the field, never its value) or a bad api_url; 409 conflict when the " +
		"service has no SECRETS_KEY to seal credentials with. Callbacks: Telnyx posts to PUBLIC_BASE_URL/carrier/telnyx/{account_id}, " +
		"Bandwidth to PUBLIC_BASE_URL/carrier/bandwidth/{account_id}, every Twilio account to /carrier/twilio/status and /carrier/twilio/inbound."
	adminListAccountsDoc  = "Carrier accounts, the default first (exactly one, `default: true`: the environment's CARRIER and TWILIO_*), then oldest first."
	adminGetAccountDoc    = "One account, without its credentials; 404 not_found for an unknown or deleted account."
	adminUpdateAccountDoc = "Any of name, api_url, credentials (the whole object, checked as on create). Every node uses the change within 10 seconds. " +
		"409 conflict for the default account (the environment's); 400 invalid_request for another provider."
	adminDeleteAccountDoc = "204. 409 conflict while a sending number uses the account (move it first) and for the default account; a deleted " +
		"account answers 404."
	adminListNumbersDoc  = "The team's numbers, its primary (the team's own number) first, then oldest first."
	adminGetNumberDoc    = "One number with its backlog and next hand-over."
	adminUpdateNumberDoc = "Any of number, kind, throughput, carrier_account_id (the primary too). A new throughput paces texts planned from now on. 409 conflict when changing the " +
		"primary's number (it is the team's own), a number with texts still planned, or to a number a team already has."
	adminRemoveNumberDoc     = "204. 409 conflict for the primary (the team's own number) and for a number with texts still planned."
	adminSimulatorInboundDoc = "Carrier simulator only (409 conflict otherwise). Like a carrier's inbound callback, it stages the text and answers at once (202); " +
		"filing, in batches within moments, does the work: the text is stored for the team whose number is to (a number no team has is logged and dropped), " +
		"the member is matched, keywords act (STOP, START, HELP) and message.received is published (held while the team's renewal is overdue). " +
		"from and to accept any common US format. provider_message_id is generated unless given; a second text with the same " +
		"provider_message_id is a carrier retry and is ignored."
	adminInboxReplyDoc = "Texts the one person who sent the inbox item (never a broadcast): \"<team name>: \" followed by body, from the team number, " +
		"charged as credits like any text. Sets the item's replied_at (the first reply) and latest_reply, and marks it read. " +
		"member_id must be active, unblocked staff (head coach, team director, coach or board member; else 403 forbidden). " +
		"404 not_found when the text is not an inbox item of the team (held and keyword texts are not); 409 opted_out when the number " +
		"texted STOP; 402 payment_required while the renewal is overdue; 409 no_sender without a team number; 400 for an empty body."
	adminGetMessagingSettingsDoc   = "The team's HELP reply and its quiet hours." + quietHoursDoc
	adminPatchMessagingSettingsDoc = "help_text is what a HELP (or INFO) text is answered with. It must say how to opt out (contain STOP) and be at most 459 " +
		"characters; an empty string restores the default (an omitted or null help_text leaves it as it is): \"<team name>: texts from your team's coaches and staff. " +
		"Msg frequency varies. Msg & data rates may apply. Reply STOP to opt out.\" " +
		"quiet_hours takes any of enabled, start and end and keeps the others. A time that is not HH:MM from 00:00 to 23:59, or a start equal to " +
		"the end, is 400 invalid_request naming the field, and nothing changes; 404 not_found for an unknown team." + quietHoursDoc
)

// quietHoursDoc ends the messaging settings' descriptions.
const quietHoursDoc = " Quiet hours hold routine texts (broadcasts through the API and the dashboard, scheduled and weekly sends, campaign steps, " +
	"resends) between start and end, in each recipient's local time: the member's time_zone, else the time zone of the phone number's " +
	"area code, else the team's time zone. A held text goes at the first slot after its recipient's window ends, at its number's pace. " +
	"enabled follows the operator's QUIET_HOURS_DEFAULT (off unless set) until the team sets it (enabled_default says which). " +
	"Urgent alerts, replies to a person who texted in, HELP answers, join and keyword answers and sign-in codes are never held."

// decisionDoc ends the approve and reject operations' descriptions.
const decisionDoc = " member_id must be a head coach or team director (403 forbidden); 409 conflict if the message is not pending_approval."

// The team keywords' descriptions.
const (
	keywordsDoc = " A text whose whole body is one of the team's keywords (any case; white space and punctuation around it ignored) is answered with " +
		"\"<team name>: \" followed by the keyword's reply, one to one, from the number that was texted: not charged as credits (like a HELP answer), " +
		"sent while the renewal is overdue, never to an opted-out number. If the keyword has a group_id and the sender's number is on the roster, every " +
		"roster entry of the team with the number joins the group. STOP, START and HELP, and joining by text, come first. The text is still listed by " +
		"GET /inbound-messages, announced as message.received and kept in the inbox (its keyword is null). A carrier's retried callback answers once."
	adminListKeywordsDoc  = "The team's keywords by keyword, paginated; 404 not_found for an unknown team." + keywordsDoc
	adminCreateKeywordDoc = "201 with the keyword. 400 invalid_request for a keyword that is not one word of 1 to 20 letters A to Z and digits, " +
		"for a reserved word (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPTOUT, START, UNSTOP, HELP, INFO, the join keywords JOIN, " +
		"ATHLETE and PARENT, and the team's code, in any case), for a reply that is empty or longer than 459 characters or not valid UTF-8 text " +
		"(NUL); 400 invalid_group when group_id is not a group of the team; 409 conflict when the team has the keyword already (or 100 keywords); " +
		"404 not_found for an unknown team. Nothing is written on a refusal." + keywordsDoc
	adminGetKeywordDoc    = "One keyword; 404 not_found for an unknown id or another team's."
	adminUpdateKeywordDoc = "Any of keyword, reply and group_id (null removes the group); the others are kept. The refusals of adding one, and 404 " +
		"not_found for an unknown id or another team's."
	adminDeleteKeywordDoc = "204; the word is no longer answered. 404 not_found for an unknown id or another team's."
)
