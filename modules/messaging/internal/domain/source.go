package domain

import "github.com/teamtext/teamtext/modules/messaging/messagingapi"

// Source is where a send came from: the contract's type, under the name
// messaging's rules use.
type Source = messagingapi.Source

// The sources of a send (messagingapi's).
const (
	SourceAPI       = messagingapi.SourceAPI
	SourceDashboard = messagingapi.SourceDashboard
	SourceSchedule  = messagingapi.SourceSchedule
	SourceCampaign  = messagingapi.SourceCampaign
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
