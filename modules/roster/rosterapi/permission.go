package rosterapi

// Permission is one row of the staff dashboard's role table
// (DASHBOARD.md, "Roles"): what a signed-in person may see or do. The
// dashboard's pages and the use cases behind them ask Member.May, so the
// table lives here once.
type Permission int

// The dashboard's permissions.
const (
	// PermView: see the roster, messages, inbox and analytics.
	PermView Permission = iota + 1
	// PermSend: send and schedule broadcasts (with can_send_broadcasts).
	PermSend
	// PermUrgent: send urgent alerts, resume campaigns with urgent steps,
	// keep urgent-alert templates.
	PermUrgent
	// PermApprove: approve or reject sends waiting for approval.
	PermApprove
	// PermReply: reply to an inbound text from the inbox.
	PermReply
	// PermRoster: change the roster and import (coaches: not staff entries).
	PermRoster
	// PermCampaigns: campaigns and templates (urgent ones need PermUrgent).
	PermCampaigns
	// PermSettings: staff, API keys and webhooks.
	PermSettings
)

// May reports whether m, signed in to the dashboard, may do p. Only an
// active, unblocked entry with a dashboard login may do anything; a login
// without a staff role sees only its own entry, which no permission names.
func (m Member) May(p Permission) bool {
	if !m.DashboardLogin || m.IsBlocked || m.Status != "active" {
		return false
	}
	lead := m.Role.CanOwnKeys() // head coach, team director
	switch p {
	case PermView:
		return m.Role.IsStaff()
	case PermSend:
		return (lead || m.Role == RoleCoach) && m.CanSendBroadcasts
	case PermUrgent:
		return lead && m.CanSendBroadcasts
	case PermApprove, PermSettings:
		return lead
	case PermReply, PermRoster, PermCampaigns:
		return lead || m.Role == RoleCoach
	}
	return false
}
