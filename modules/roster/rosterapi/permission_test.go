package rosterapi_test

import (
	"testing"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
)

// The role table of DASHBOARD.md, row by row, for an active entry with a
// login and permission to send broadcasts; then what takes every
// permission away.
func TestMayFollowsTheRoleTable(t *testing.T) {
	t.Parallel()
	all := []rosterapi.Permission{rosterapi.PermView, rosterapi.PermSend, rosterapi.PermUrgent, rosterapi.PermApprove,
		rosterapi.PermReply, rosterapi.PermRoster, rosterapi.PermCampaigns, rosterapi.PermSettings}
	table := map[rosterapi.Role][]bool{ //   view   send   urgent approve reply  roster campaigns settings
		rosterapi.RoleHeadCoach:    {true, true, true, true, true, true, true, true},
		rosterapi.RoleTeamDirector: {true, true, true, true, true, true, true, true},
		rosterapi.RoleCoach:        {true, true, false, false, true, true, true, false},
		rosterapi.RoleBoardMember:  {true, false, false, false, false, false, false, false},
		rosterapi.RoleGuardian:     {false, false, false, false, false, false, false, false},
		rosterapi.RoleAthlete:      {false, false, false, false, false, false, false, false},
	}
	for role, want := range table {
		m := rosterapi.Member{Role: role, Status: "active", DashboardLogin: true, CanSendBroadcasts: true}
		for i, p := range all {
			if got := m.May(p); got != want[i] {
				t.Errorf("%s may %d: %v, want %v", role, p, got, want[i])
			}
		}
	}

	lead := rosterapi.Member{Role: rosterapi.RoleHeadCoach, Status: "active", DashboardLogin: true}
	if lead.May(rosterapi.PermSend) || lead.May(rosterapi.PermUrgent) {
		t.Error("can_send_broadcasts false: no sends, no urgent alerts")
	}
	if !lead.May(rosterapi.PermApprove) {
		t.Error("approving is not sending")
	}
	for name, m := range map[string]rosterapi.Member{
		"blocked":  {Role: rosterapi.RoleHeadCoach, Status: "active", DashboardLogin: true, CanSendBroadcasts: true, IsBlocked: true},
		"no login": {Role: rosterapi.RoleHeadCoach, Status: "active", CanSendBroadcasts: true},
		"pending":  {Role: rosterapi.RoleHeadCoach, Status: "pending", DashboardLogin: true, CanSendBroadcasts: true},
	} {
		for _, p := range all {
			if m.May(p) {
				t.Errorf("%s may %d", name, p)
			}
		}
	}
}
