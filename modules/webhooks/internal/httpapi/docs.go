package httpapi

// The operations' descriptions, shared by the public and the admin API
// where they say the same.

// throttleDoc documents max_per_second wherever it appears.
const throttleDoc = "At most this many deliveries a second to this webhook (1 to 100); null: no limit. A throttled " +
	"webhook's deliveries, retries included, wait their turn in its queue and go out one at a time, in the order " +
	"their events happened, each at its planned slot: waiting is not an attempt and never counts toward the 20 " +
	"failures that turn a webhook off. One at a time means a receiver slower to answer than 1/max_per_second " +
	"seconds gets fewer."

// statusDoc explains the delivery statuses.
const statusDoc = "pending: waiting for its first attempt (of the round: a retry or recovery starts a new one), or for " +
	"its turn under the throttle; failed: an attempt failed and the next is planned (next_attempt_at); delivered: an " +
	"attempt got a 2xx answer; abandoned: every attempt of the round failed (1 min, 5 min, 30 min, 2 h, 12 h apart); " +
	"cancelled: ended unsent because the webhook was turned off."

// rotateDoc documents the rotation for the API and the admin.
const rotateDoc = "Gives the webhook a new signing secret, answered in `secret` this once (like creation). " +
	"For the overlap the operator sets (`WEBHOOK_SECRET_OVERLAP`, 24 hours by default) every delivery, retries " +
	"included, is signed with both secrets: X-Service-Signature carries two `v1=` values, the new secret's first, so a " +
	"receiver that checks any `v1` against either secret keeps accepting deliveries while it switches. After the " +
	"overlap only the new secret signs. Rotating again during an overlap ends the older secret at once. " +
	"`rotation_overlap_until` says when the overlap ends."

// createErrorsDoc documents the creation errors shared by the API and the admin.
const createErrorsDoc = "Errors: 400 `invalid_url` (not an absolute https URL without credentials, a malformed host or port, " +
	"an IPv4 address not in dotted-decimal form, or a host name that does not exist); 400 `blocked_url` (the host is, " +
	"or resolves to, a private, loopback, link-local, CGNAT, multicast, documentation or other special-purpose address; " +
	"deliveries are checked again at every connection); 400 `invalid_events` (empty, unknown, or `webhook.test`); " +
	"409 `webhook_limit` (the team already has 25 webhooks); 503 `dns_busy` (the host name could not be resolved " +
	"within 2 seconds: retry after about a minute, see Retry-After)."

// Descriptions shared by the API and the admin.
const (
	listDeliveriesDoc = "The webhook's deliveries, newest first, each with every attempt (time, status code or " +
		"error, duration). `status` keeps one status only. Deliveries and their attempts are kept as long as the " +
		"operator's RETENTION_WEBHOOKS (30 days by default). Another team's webhook id is 404 `not_found`; an unknown " +
		"status is 400 `invalid_request`. Statuses: " + statusDoc
	retryDoc = "Sends the delivery again now, signed afresh (with the current secret, and the replaced one " +
		"during a rotation's overlap), as a new round: if it fails it is retried on the spec's schedule (1 min, 5 min, " +
		"30 min, 2 h, 12 h) and abandoned after that round's sixth attempt. Any delivery that ended may be retried: " +
		"delivered, abandoned or cancelled. Answers 202 with the delivery (status `pending`); its attempt is made at once " +
		"by a worker (under a throttle, in its turn). Errors: 404 `not_found` (another team's webhook, or a delivery " +
		"that is not this webhook's); 409 `conflict` when the delivery is still pending or failed (its next attempt " +
		"is already planned: see `next_attempt_at`), or when the webhook is turned off."
	recoverDoc = "Puts every delivery of the webhook whose event happened at or after `since` and that ended " +
		"unsent (abandoned after every retry, or cancelled when the webhook was turned off) back in the webhook's " +
		"queue, and answers 202 with how many. They go out one at a time, in the order their events happened, " +
		"signed afresh, at the webhook's `max_per_second` if it has one, each starting a new round of retries. " +
		"Deliveries older than RETENTION_WEBHOOKS (30 days by default) no longer exist. Errors: 400 `invalid_request` " +
		"(since missing or not an RFC 3339 time); 404 `not_found` (another team's webhook); 409 `conflict` when the " +
		"webhook is turned off (turn it on first)."
	throttleChangeDoc = "Sets or clears the webhook's throttle. `max_per_second` is required: a whole number from " +
		"1 to 100, or null for no limit (else 400 `invalid_request`). " + throttleDoc
)

// The public API's descriptions.
const (
	listDoc   = "Lists the team's webhooks, dashboard-made ones included, oldest first. Secrets are never returned."
	createDoc = "Subscribes an https URL to event types. Answers 201 with the webhook and its `secret`, shown only " +
		"this once. Only a key whose creator is a head coach or team director (who may send broadcasts) may create " +
		"webhooks (else 403 `forbidden`); a team may have up to 25. Deliveries are POSTs signed with " +
		"X-Service-Signature (spec §6).\n\n" + createErrorsDoc
	rotatePublicDoc = rotateDoc + " Only a key whose creator is a head coach or team director (who may send " +
		"broadcasts) may rotate secrets (else 403 `forbidden`). Another team's webhook id is 404 `not_found`."
	throttlePublicDoc = throttleChangeDoc + " Only a key whose creator is a head coach or team director (who may send " +
		"broadcasts) may change it (else 403 `forbidden`). Another team's webhook id is 404 `not_found`."
	retryPublicDoc   = retryDoc + " Only a key whose creator is a head coach or team director may retry (else 403 `forbidden`)."
	recoverPublicDoc = recoverDoc + " Only a key whose creator is a head coach or team director may recover (else 403 `forbidden`)."
	deleteDoc        = "Stops delivery and deletes the webhook, dashboard-made ones included; pending retries are dropped. " +
		"Answers the deleted webhook. Another team's webhook id is 404 `not_found`."
)

// The admin API's descriptions.
const (
	adminListDoc   = "Every webhook of the team, oldest first, with owner and failure count; never secrets."
	adminCreateDoc = "Creates a webhook made in the dashboard by member_id, who must be an active head coach or team " +
		"director who may send broadcasts (else 403 `forbidden`); the team must be on Team Plus or above (else 403 " +
		"`plan_required`). It turns off with `creator_inactive` when its owner stops being one. The secret is shown once.\n\n" +
		createErrorsDoc
	adminGetDoc    = "One webhook of the team; never its secret."
	adminDeleteDoc = "Stops delivery and deletes the webhook; answers it."
	adminEnableDoc = "Turns the webhook on for member_id, an active head coach or team director who may send broadcasts " +
		"(else 403 `forbidden`), who becomes its owner. The reason is cleared and the failure count starts again. " +
		"Deliveries that ended while it was off are not resent."
	adminRotateDoc = rotateDoc + " member_id must be an active head coach or team director who may send broadcasts (else 403 `forbidden`)."
	adminTestDoc   = "Publishes `webhook.test` with data `{\"message\": ...}` to this webhook only, delivered and retried " +
		"like any event. 409 `conflict` when the webhook is off. Below Team Plus the event is stored as skipped."
	adminAttemptsDoc      = "Every delivery attempt to the webhook, newest first: event, delivery, status code, error, duration, time, next retry."
	adminNotificationsDoc = "E-mails the service sent for the team (to whom, subject, body, time), newest first."
)
