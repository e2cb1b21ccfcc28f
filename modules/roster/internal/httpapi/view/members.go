package view

import (
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/service"
)

// Member is a roster entry as the API shows it.
type Member struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Phone          string    `json:"phone" doc:"E.164."`
	Email          string    `json:"email"`
	Role           string    `json:"role" enum:"athlete,guardian,outside,emergency_contact,head_coach,team_director,coach,board_member"`
	Status         string    `json:"status" enum:"pending,active,opted_out" doc:"pending: awaiting approval in the dashboard; active; opted_out: texted STOP or an opt-out was recorded."`
	IsBlocked      bool      `json:"is_blocked"`
	DashboardLogin bool      `json:"dashboard_login" doc:"Staff and members with a login cannot be changed through the API."`
	TimeZone       *string   `json:"time_zone" doc:"IANA time zone of the member, for quiet hours; null: from the phone's area code."`
	GroupIDs       []string  `json:"group_ids"`
	CreatedAt      time.Time `json:"created_at"`

	// Consent is the consent record (consent.go).
	Consent *Consent `json:"consent" doc:"How and when the member agreed to receive texts; the number's history is at GET /members/{member_id}/consent. Null for members added before teamtext kept consent records (none is invented for them)."`
	Deliverability
}

// Deliverability is the undeliverable mark on a member's number, shown on every
// roster entry with the number.
type Deliverability struct {
	Undeliverable      bool       `json:"undeliverable" doc:"The member's number is marked undeliverable: its texts failed with a permanent carrier code (landline, unreachable, invalid, blocked) UNDELIVERABLE_AFTER times in a row. Sends skip it (counted as skipped_undeliverable, charged nothing) until a text to it is delivered, it texts the team, or the dashboard clears the mark. Read-only (an addition to v1)."`
	UndeliverableSince *time.Time `json:"undeliverable_since" doc:"When the number was marked undeliverable; null when it is not."`
}

// DeliverabilityFrom renders the mark.
func DeliverabilityFrom(since *time.Time) Deliverability {
	return Deliverability{Undeliverable: since != nil, UndeliverableSince: since}
}

// MemberFrom renders a member view.
func MemberFrom(v *service.MemberView) Member {
	return Member{ID: v.ID, Name: v.Name, Phone: v.Phone, Email: v.Email, Role: string(v.Role), Status: v.Status,
		IsBlocked: v.IsBlocked, DashboardLogin: v.DashboardLogin, TimeZone: TimeZone(v.TimeZone), GroupIDs: v.GroupIDs, CreatedAt: v.CreatedAt,
		Consent: ConsentFrom(v.MemberConsent), Deliverability: DeliverabilityFrom(v.UndeliverableSince)}
}

// TimeZone renders a member's own time zone: null when unset.
func TimeZone(zone string) *string {
	if zone == "" {
		return nil
	}
	return &zone
}
