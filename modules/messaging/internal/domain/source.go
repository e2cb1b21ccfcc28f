package domain

// Source is where a send came from. Every source goes through the one
// send use case; the source decides only who may approve it away and
// whether it may be urgent.
type Source string

// The sources of a send.
const (
	SourceAPI       Source = "api"       // POST /messages and /messages/{id}/resend with a key
	SourceDashboard Source = "dashboard" // Compose and Resend to failed in the staff dashboard
	SourceSchedule  Source = "schedule"  // an occurrence of a scheduled send or weekly series
	SourceCampaign  Source = "campaign"  // a campaign step, through messagingapi
)

// NeedsApproval is the team's approval policy applied to one send. Urgent
// alerts never wait (they are for "everyone off the field now"), and a
// send made in the dashboard by someone who could approve it (a head coach
// or team director) does not wait for their own approval. Everything else
// waits when the team requires approval: API sends (whoever made the key),
// scheduled occurrences, campaign steps, and coaches' dashboard sends.
func NeedsApproval(teamRequires bool, src Source, urgent, senderApproves bool) bool {
	if !teamRequires || urgent {
		return false
	}
	return !(src == SourceDashboard && senderApproves)
}
