package domain

import (
	"time"

	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// Group is a team's named set of members, usable as a send audience (created in the dashboard).
type Group struct {
	ID          string
	TeamID      string
	Name        string
	CreatedAt   time.Time
	MemberCount int
}

// CustomField is an extra roster column of a team; values of a private one can be written but are never shown through the API.
type CustomField struct {
	ID        string
	TeamID    string
	Label     string
	Key       string
	Private   bool
	CreatedAt time.Time
}

// APIKey is a team's API key as stored: its lookup prefix and hash, never its value.
type APIKey struct {
	ID            string
	TeamID        string
	MemberID      string
	Name          string
	Lookup        string
	Hash          []byte
	CreatedAt     time.Time
	RevokedAt     *time.Time
	RevokedReason string
	LastUsedAt    *time.Time // nil: never used (or not since last_used_at was kept)
}

// ConsentEvent is one fact of a number's consent history.
type ConsentEvent struct {
	Seq        int64
	ID         string
	TeamID     string
	Phone      string
	MemberID   *string
	Kind       string
	Channel    string
	Changed    bool
	Source     *string
	Evidence   *string
	MessageID  *string
	At         time.Time
	RecordedAt time.Time
}

// MemberFilter narrows GET /members. Empty fields do not filter.
type MemberFilter struct {
	GroupID, Role, Status, Phone, Email string
	// Search matches part of the name or e-mail (case-insensitive), or,
	// when it holds three digits or more, part of the phone number
	// (dashboard only).
	Search string
	// Staff keeps staff roles and dashboard logins (dashboard only).
	Staff         bool
	NewestFirst   bool
	Limit, Offset int
}

// Team is a team's identity and the dashboard's switches on it (billing facts are billing's).
type Team struct {
	ID               string
	Name             string
	Code             string
	Number           string
	TimeZone         string
	ApprovalRequired bool
	// JoinApprovalRequired: joiners (by text, on the web) are pending
	// until approved; false: active at once.
	JoinApprovalRequired bool
	Disabled             bool
	Locked               bool
	CreatedAt            time.Time
}

// OptOut is the record of an opted-out number of a team: it stays until the number texts START.
type OptOut struct {
	TeamID    string
	Phone     string
	Source    string
	CreatedAt time.Time
}

// API converts to the contract type.
func (t *Team) API() rosterapi.Team {
	return rosterapi.Team{ID: t.ID, Name: t.Name, Code: t.Code, Number: phone.Number(t.Number), TimeZone: t.TimeZone,
		ApprovalRequired: t.ApprovalRequired, JoinApprovalRequired: t.JoinApprovalRequired, Disabled: t.Disabled, Locked: t.Locked, CreatedAt: t.CreatedAt}
}
