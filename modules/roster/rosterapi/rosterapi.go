// Package rosterapi is the roster module's contract: team identity, roles,
// and the signals other modules subscribe to. Plain types and interfaces only.
package rosterapi

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// Role is a member's role on the roster.
type Role string

// Member roles. The first four may be set through the API; the staff roles
// only from the dashboard (admin API).
const (
	RoleAthlete          Role = "athlete"
	RoleGuardian         Role = "guardian"
	RoleOutside          Role = "outside"
	RoleEmergencyContact Role = "emergency_contact"
	RoleHeadCoach        Role = "head_coach"
	RoleTeamDirector     Role = "team_director"
	RoleCoach            Role = "coach"
	RoleBoardMember      Role = "board_member"
)

// IsStaff reports whether r is a staff role.
func (r Role) IsStaff() bool {
	switch r {
	case RoleHeadCoach, RoleTeamDirector, RoleCoach, RoleBoardMember:
		return true
	}
	return false
}

// CanOwnKeys reports whether r may create API keys and webhooks (head coach, team director).
func (r Role) CanOwnKeys() bool { return r == RoleHeadCoach || r == RoleTeamDirector }

// Valid reports whether r is a known role.
func (r Role) Valid() bool {
	switch r {
	case RoleAthlete, RoleGuardian, RoleOutside, RoleEmergencyContact:
		return true
	}
	return r.IsStaff()
}

// Team is a team's identity and dashboard policies.
type Team struct {
	ID               string
	Name             string
	Code             string
	Number           phone.Number // the team's phone number; empty if none
	TimeZone         string       // IANA name
	ApprovalRequired bool
	// JoinApprovalRequired: people who join by text or on the web are
	// pending until approved (else active at once).
	JoinApprovalRequired bool
	Disabled             bool
	Locked               bool
	CreatedAt            time.Time
}

// Teams reads team identity.
type Teams interface {
	Team(ctx context.Context, teamID string) (Team, error)
	// TeamsByID reads several teams in one statement; ids of no team are
	// absent from the map.
	TeamsByID(ctx context.Context, teamIDs []string) (map[string]Team, error)
}

// KeyRevoked is the signal sent, inside the revoking transaction, when an
// API key is revoked for good (creator demoted, lost broadcast permission,
// or revoked in the dashboard). Listeners cancel the key's scheduled
// messages and delete the webhooks made with it.
type KeyRevoked struct {
	TeamID   string
	KeyID    string
	MemberID string
	Reason   string // "revoked", "creator_role_changed", "creator_lost_broadcast_permission"
}

// KeyRevokedListener is implemented by modules that react to revocation. It
// runs in the revoking transaction: an error rolls the revocation back.
type KeyRevokedListener interface {
	OnKeyRevoked(ctx context.Context, ev KeyRevoked) error
}

// Member is a roster entry as other modules see it.
type Member struct {
	ID                string
	TeamID            string
	Name              string
	Phone             phone.Number
	Email             string
	Role              Role
	Status            string // pending, active, opted_out
	IsBlocked         bool
	DashboardLogin    bool
	CanSendBroadcasts bool
	CreatedAt         time.Time
}

// KeyOwner reports whether m may own API keys and dashboard-made webhooks:
// an active head coach or team director who may send broadcasts.
func (m Member) KeyOwner() bool {
	return m.Role.CanOwnKeys() && m.CanSendBroadcasts && m.Status == "active"
}

// Members reads roster entries.
type Members interface {
	// Member returns one of a team's members (404 not_found fault if none).
	Member(ctx context.Context, teamID, memberID string) (Member, error)
	// KeyOwners returns the team's head coaches and team directors (for notices).
	KeyOwners(ctx context.Context, teamID string) ([]Member, error)
}

// OwnerInactive is signalled, inside the changing transaction, when a
// member stops being a key owner (role changed away from head coach or team
// director, or broadcast permission taken away). Dashboard-made webhooks
// they own turn off with disabled_reason creator_inactive.
type OwnerInactive struct {
	TeamID   string
	MemberID string
	Reason   string // "creator_role_changed" or "creator_lost_broadcast_permission"
}

// OwnerInactiveListener is implemented by modules that react to it (group "owner_inactive").
type OwnerInactiveListener interface {
	OnOwnerInactive(ctx context.Context, ev OwnerInactive) error
}

// Recipient is one roster entry a broadcast goes to.
type Recipient struct {
	MemberID string
	Phone    phone.Number
	Name     string
	Role     Role
	// Undeliverable: the number is marked undeliverable (see
	// Deliverability); sends count it and do not text it.
	Undeliverable bool
}

// AudienceRoles maps a send audience (read by messagingapi.ParseAudience)
// to roles: all is everyone (nil), staff the staff roles, families
// athletes and guardians, group everyone in the group (nil). ok is false
// for an unknown audience.
func AudienceRoles(audience messagingapi.Audience) (roles []Role, ok bool) {
	switch audience {
	case messagingapi.AudienceAll, messagingapi.AudienceGroup:
		return nil, true
	case messagingapi.AudienceStaff:
		return []Role{RoleHeadCoach, RoleTeamDirector, RoleCoach, RoleBoardMember}, true
	case messagingapi.AudienceFamilies:
		return []Role{RoleAthlete, RoleGuardian}, true
	}
	return nil, false
}

// Audience resolves a send's audience. "all": every member; "staff": head
// coaches, team directors, coaches and board members; "families": athletes
// and guardians; "group": the members of groupID. Only active members are
// included: never opted-out, blocked or pending ones. Several entries may
// share a phone; deduplicating texts is the sender's job.
type Audience interface {
	Recipients(ctx context.Context, teamID, audience, groupID string) ([]Recipient, error)
}

// Lookup finds teams and members for inbound texts and merge-tag checks.
type Lookup interface {
	// TeamByNumber finds the team whose number is e164 (404 not_found if none).
	TeamByNumber(ctx context.Context, e164 string) (Team, error)
	// MembersByPhone returns a team's entries with number, oldest first.
	MembersByPhone(ctx context.Context, teamID string, number phone.Number) ([]Member, error)
	// TeamsByNumbers finds the teams whose numbers are among e164s, in one
	// statement; numbers of no team are absent from the map.
	TeamsByNumbers(ctx context.Context, e164s []string) (map[string]Team, error)
	// MembersByTeamPhones returns the entries of each pair (a team's
	// number), oldest first, in one statement; pairs with none are absent.
	MembersByTeamPhones(ctx context.Context, pairs []TeamPhone) (map[TeamPhone][]Member, error)
	// CustomFieldKeys maps each custom field key of the team to whether it is private.
	CustomFieldKeys(ctx context.Context, teamID string) (map[string]bool, error)
}

// OptOuts is how inbound STOP and START change the roster. Both run in the
// caller's transaction and publish member.opted_out / member.opted_in per
// roster entry. An inbound STOP is honoured for staff numbers too.
type OptOuts interface {
	OptOutBySMS(ctx context.Context, teamID string, number phone.Number) error
	OptInBySMS(ctx context.Context, teamID string, number phone.Number) (bool, error)
	IsOptedOut(ctx context.Context, teamID string, number phone.Number) (bool, error)
	// OptedOutAmong returns the pairs, of any teams, whose number is opted
	// out of its team: messaging checks a batch of queued texts with it just
	// before handing them to the carrier, so a STOP reaches sends in flight.
	OptedOutAmong(ctx context.Context, pairs []TeamPhone) ([]TeamPhone, error)
}

// TeamPhone is a phone number (E.164) on a team.
type TeamPhone struct {
	TeamID string
	Phone  phone.Number
}

// Stats counts roster facts for messaging's analytics (GET /analytics).
// The range is half-open: from inclusive, to exclusive (UTC instants).
type Stats interface {
	// Counts returns newMembers, the roster entries created in the range
	// that are still on the roster and not pending approval, and optOuts,
	// the numbers whose opt-out was recorded in the range and that are still
	// opted out (a START removes the record, so it no longer counts).
	Counts(ctx context.Context, teamID string, from, to time.Time) (newMembers, optOuts int, err error)
}

// NumberOutcome is what a team's deliveries to one number said, as status
// ingestion folded them: Reset when one was delivered (the
// streak of permanent failures, and any undeliverable mark, is dropped),
// then Failures more permanent failures in a row (a landline, no such
// number...), the last with LastCode.
type NumberOutcome struct {
	TeamID   string
	Phone    phone.Number
	Reset    bool
	Failures int
	LastCode string
	At       time.Time
}

// Deliverability is roster's record of numbers that cannot take texts: a
// number whose deliveries failed permanently MarkAfter times in a row is
// undeliverable on every roster entry of the team with it, audiences say
// so (Recipient.Undeliverable), and sends skip it until it is cleared.
type Deliverability interface {
	// NoteOutcomes records outcomes in the caller's transaction, in one
	// statement per kind whatever their number, and returns the numbers it
	// newly marked undeliverable. Rows are locked in (team, phone) order.
	NoteOutcomes(ctx context.Context, outcomes []NumberOutcome, markAfter int) ([]TeamPhone, error)
}

// KeywordText is an inbound STOP, START or HELP text, as the roster's
// consent history keeps it.
type KeywordText struct {
	TeamID    string
	Phone     phone.Number // the sender
	Keyword   string       // "stop", "start" or "help"
	Body      string       // the text as received, kept as the record's evidence
	MessageID string       // the inbound text's id
	MemberID  string       // the roster entry the text was matched to; "" when none
	At        time.Time    // when the carrier received it
}

// Keywords is how inbound keyword texts reach the roster. Keyword runs in
// the caller's transaction: stop opts the number out (as
// OptOuts.OptOutBySMS), start opts it back in (as OptOuts.OptInBySMS), help
// changes nothing; every one is kept as a row of the number's consent
// history. changed reports whether the number's opt-out changed.
type Keywords interface {
	Keyword(ctx context.Context, k KeywordText) (changed bool, err error)
}
