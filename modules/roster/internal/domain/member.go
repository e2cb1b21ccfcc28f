package domain

import (
	"time"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
)

// Member is a roster entry: one person (or a parent of several athletes) at
// one number of one team. Its rules are its methods; storage keeps it
// elsewhere (internal/postgres) and the APIs render it.
type Member struct {
	ID                string
	TeamID            string
	Name              string
	Phone             string // E.164
	Email             string
	Role              rosterapi.Role
	Status            string // StatusPending, StatusActive or StatusOptedOut
	IsBlocked         bool
	DashboardLogin    bool
	CanSendBroadcasts bool
	TimeZone          string // own IANA time zone for quiet hours; "": unset (the phone's area code decides)
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// DeletedAt is set when an opted-out member is removed from the roster
	// and kept on record so the opt-out stays (spec §3).
	DeletedAt *time.Time
	// The consent record (consent.go).
	MemberConsent
}

// MemberConsent is a member's consent record. All three are nil for
// members added before teamtext kept consent records (and Evidence when
// none was given).
type MemberConsent struct {
	ConsentSource   *string
	ConsentAt       *time.Time
	ConsentEvidence *string
}

// MemberInput is what an add gives for a new member, before the checks.
type MemberInput struct {
	Name, Phone, Email, Role string
	TimeZone                 string // IANA name or "" (ValidTimeZone)
	Status                   string // dashboard only: pending or active (default active)
	DashboardLogin           bool   // dashboard only
	CanSendBroadcasts        *bool  // dashboard only; default: true for staff
}

// NewMember checks an add's input, in the order a single add reports its
// errors (name, phone, email, role, time_zone, status), and returns the new
// member: role athlete when none is given, status active. Only the dashboard
// (dashboard=true) may give staff roles, a pending status, a login or the
// broadcast permission; from the API they are ignored or refused.
func NewMember(id, teamID string, in MemberInput, dashboard bool, now time.Time) (*Member, error) {
	m := &Member{ID: id, TeamID: teamID, Status: StatusActive, CreatedAt: now, UpdatedAt: now}
	var err error
	if m.Name, err = ValidName("name", in.Name); err != nil {
		return nil, err
	}
	if m.Phone, err = ValidPhone("phone", in.Phone); err != nil {
		return nil, err
	}
	if m.Email, err = ValidEmail(in.Email); err != nil {
		return nil, err
	}
	role := in.Role
	if role == "" {
		role = string(rosterapi.RoleAthlete)
	}
	if m.Role, err = ValidRole(role, dashboard); err != nil {
		return nil, err
	}
	if m.TimeZone, err = ValidTimeZone("time_zone", in.TimeZone); err != nil {
		return nil, err
	}
	if !dashboard {
		return m, nil
	}
	switch in.Status {
	case "", StatusActive:
	case StatusPending:
		m.Status = StatusPending
	default:
		return nil, fault.Invalidf("status must be pending or active")
	}
	m.DashboardLogin = in.DashboardLogin
	m.CanSendBroadcasts = m.Role.IsStaff()
	if in.CanSendBroadcasts != nil {
		m.CanSendBroadcasts = *in.CanSendBroadcasts
	}
	return m, nil
}

// Protected reports whether the API may not change the member: staff and
// anyone with a dashboard login (spec §1 rule 5).
func (m *Member) Protected() bool { return Protected(m.Role, m.DashboardLogin) }

// KeyOwner reports whether the member may keep API keys (and own
// dashboard-made webhooks).
func (m *Member) KeyOwner() bool { return KeyOwnerActive(m.Role, m.CanSendBroadcasts) }

// Joined reports whether the member is on the roster as active: an add or
// an approval that leaves them active publishes member.joined.
func (m *Member) Joined() bool { return m.Status == StatusActive }

// Approve lets a pending member join; any other status is a conflict.
func (m *Member) Approve(now time.Time) error {
	if m.Status != StatusPending {
		return fault.Newf(fault.Conflict, fault.CodeConflict, "member is %s, not pending", m.Status)
	}
	m.Status, m.UpdatedAt = StatusActive, now
	return nil
}

// MayChangePhoneTo refuses a new number for an opted-out member: it would
// re-subscribe them, which only they can do (START).
func (m *Member) MayChangePhoneTo(phone string) error {
	if phone != m.Phone && m.Status == StatusOptedOut {
		return fault.New(fault.Conflict, CodeOptedOutMember, "this member opted out; changing their number would re-subscribe them, which only they can do (START)")
	}
	return nil
}

// Remove takes the member off the roster through the API. Staff and
// members with a login are refused. An opted-out member is kept on record
// (kept=true: hidden from lists and reads, so the opt-out stays); anyone
// else is deleted.
func (m *Member) Remove(now time.Time) (kept bool, err error) {
	if m.Protected() {
		return false, fault.New(fault.Forbidden, CodeStaffMemberProtected, "staff and members with a dashboard login can be removed only in the dashboard")
	}
	if m.Status != StatusOptedOut {
		return false, nil
	}
	m.DeletedAt, m.UpdatedAt = &now, now
	return true, nil
}

// ErrProtected is the refusal to change a protected member through the API.
func ErrProtected() error {
	return fault.New(fault.Forbidden, CodeStaffMemberProtected, "staff and members with a dashboard login can be changed only in the dashboard")
}
