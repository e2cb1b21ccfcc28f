package httpapi

// The operations' descriptions (OpenAPI), by route; the rules two of them
// share are stated once.
const (
	// resumeRule says what a resume does with the steps.
	resumeRule = "Steps still pending whose due_at has come (their time passed while the campaign was paused) are **skipped** " +
		"(status skipped, never sent): a late countdown or reminder is worse than none, and a resume must not send a burst of stale texts. " +
		"The other pending steps go out at their original due_at (times do not shift by the length of the pause). " +
		"If no step is left to send, the campaign becomes completed at once."
	// notFoundRule is the tenant rule.
	notFoundRule = "An id of another team, or no such campaign, gives 404 not_found."

	listDoc = "The team's drip campaigns, newest first, each with its status and steps. Campaigns are created in the dashboard. " +
		"Statuses: scheduled, paused, cancelled, completed (see the status field)."
	getDoc   = "One campaign with its status and steps. " + notFoundRule
	pauseDoc = "Pauses a **scheduled** campaign: status paused, and nothing is sent while it is paused (a step whose time comes does nothing). " +
		"Any other status (paused, cancelled, completed) gives 409 campaign_state, whose message names the current status. " +
		"The pause is serialised with the campaign's step runs: a step that started before the pause commits first, none starts after it. " +
		"No body. " + notFoundRule
	resumeDoc = "Resumes a **paused** campaign without urgent-alert steps: status scheduled again. " + resumeRule + " " +
		"Checks, in order: a campaign that is not paused (scheduled, cancelled, completed) gives 409 campaign_state, whose message names the current status; " +
		"a paused campaign with an urgent-alert step (has_urgent_step) gives **403 forbidden**: it can be resumed from the dashboard only " +
		"(403, not 409, because the campaign's state allows a resume; the key is what may not do it). No body. " + notFoundRule
	cancelDoc = "Cancels a **scheduled or paused** campaign for good: status cancelled, and every step not yet sent becomes cancelled and is never sent. " +
		"Cancel is transactional with the step runs: once this answers 200, no step of the campaign goes out afterwards " +
		"(a step that started before the cancel commits first and shows as sent). " +
		"A cancelled or completed campaign gives 409 campaign_state, whose message names the current status. No body. " + notFoundRule

	adminCreateDoc = "Creates a drip campaign in status scheduled (201). Each step is a job at its due time (send_at, or now + delay_seconds), " +
		"inserted in the same transaction. Urgent-alert steps are allowed here (never through the API). When a step's time comes it is sent " +
		"through messaging like any send (gates, approval rules and billing included), on behalf of member_id when given; a refused step becomes failed " +
		"with the refusal's code and the campaign goes on. After the last step the campaign is completed. " +
		"Errors: 404 not_found (team, or a given member_id not on the team); 403 forbidden (a given member_id is not an active head coach or team director " +
		"who may send broadcasts); 400 invalid_request (name; steps: 1 to 50, each with exactly one of send_at and delay_seconds and exactly " +
		"one of text and template_id); 400 invalid_group (group_id missing with audience group, given with another audience, or not the team's)."
	adminListDoc   = "Newest first, with status and steps, as GET /api/v1/campaigns. 404 not_found for an unknown team."
	adminResumeDoc = "Resumes a paused campaign, including one with urgent-alert steps (which the API refuses with 403 forbidden). " +
		resumeRule + " A campaign that is not paused gives 409 campaign_state, whose message names the current status. No body. " +
		notFoundRule
)
