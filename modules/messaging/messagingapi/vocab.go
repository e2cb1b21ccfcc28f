package messagingapi

import (
	"errors"
	"fmt"
)

// Audience is whom a broadcast goes to (spec: a send's audience). The
// roster maps it to roles (rosterapi.AudienceRoles); audience group also
// needs a group id.
type Audience string

// The audiences.
const (
	AudienceAll      Audience = "all"      // every member
	AudienceStaff    Audience = "staff"    // head coaches, team directors, coaches, board members
	AudienceFamilies Audience = "families" // athletes and guardians
	AudienceGroup    Audience = "group"    // the members of one group
)

// ErrUnknownAudience is ParseAudience's refusal; its text is the spec's
// 400 invalid_request message.
var ErrUnknownAudience = errors.New("audience must be all, staff, families or group")

// ParseAudience is the one reading of an audience: one of the four, as
// written (no case folding), or ErrUnknownAudience.
func ParseAudience(s string) (Audience, error) {
	switch a := Audience(s); a {
	case AudienceAll, AudienceStaff, AudienceFamilies, AudienceGroup:
		return a, nil
	}
	return "", ErrUnknownAudience
}

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

// ParseSource is the one reading of a send's source: one of the four, or
// an error.
func ParseSource(s string) (Source, error) {
	switch src := Source(s); src {
	case SourceAPI, SourceDashboard, SourceSchedule, SourceCampaign:
		return src, nil
	}
	return "", fmt.Errorf("unknown send source %q", s)
}

// MessageStatus is a broadcast's status (spec: a message's status).
type MessageStatus string

// The message statuses.
const (
	MessagePendingApproval MessageStatus = "pending_approval" // waits for a head coach's or team director's approval
	MessageQueued          MessageStatus = "queued"           // being handed to the carrier
	MessageSent            MessageStatus = "sent"             // every delivery handed to the carrier
	MessageRejected        MessageStatus = "rejected"         // approval rejected: never sent
	MessageExpired         MessageStatus = "expired"          // approval not given in time: never sent
)

// ParseMessageStatus is the one reading of a message's status: one of the
// five, or an error.
func ParseMessageStatus(s string) (MessageStatus, error) {
	switch st := MessageStatus(s); st {
	case MessagePendingApproval, MessageQueued, MessageSent, MessageRejected, MessageExpired:
		return st, nil
	}
	return "", fmt.Errorf("unknown message status %q", s)
}
