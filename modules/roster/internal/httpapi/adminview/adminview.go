// Package adminview holds the bodies of the roster's part of the admin API
// (/admin/v1): teams, members with dashboard-only attributes, API keys,
// imports and consent exports. Its Team and Member are named as the admin
// document names them, beside the public API's (view).
package adminview

import (
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/view"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Team is the admin's view of a team.
type Team struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	Code             string `json:"code"`
	Number           string `json:"number"`
	TimeZone         string `json:"time_zone"`
	Plan             string `json:"plan"`
	CardOnFile       bool   `json:"card_on_file"`
	ApprovalRequired bool   `json:"approval_required"`
	// JoinApprovalRequired: joiners are pending until approved.
	JoinApprovalRequired bool      `json:"join_approval_required" doc:"Whether people who join by text (a join keyword) or on the team's sign-up page (/join/{code}) are pending until a coach approves them (true, the default) or active at once (false)."`
	PaymentState         string    `json:"payment_state"`
	Trial                bool      `json:"trial"`
	TrialCredits         int       `json:"trial_credits"`
	CreditsUsed          int       `json:"credits_used"`
	CreditsIncluded      int       `json:"credits_included"`
	Disabled             bool      `json:"disabled"`
	Locked               bool      `json:"locked"`
	CreatedAt            time.Time `json:"created_at"`
}

// TeamFrom renders a team view.
func TeamFrom(v *service.TeamView) Team {
	t, a := v.Team, v.Account
	return Team{ID: t.ID, Name: t.Name, Code: t.Code, Number: t.Number, TimeZone: t.TimeZone, Plan: string(a.Plan),
		CardOnFile: a.CardOnFile, ApprovalRequired: t.ApprovalRequired, JoinApprovalRequired: t.JoinApprovalRequired, PaymentState: a.PaymentState, Trial: a.Trial,
		TrialCredits: a.TrialCredits, CreditsUsed: a.CreditsUsed, CreditsIncluded: a.CreditsIncluded,
		Disabled: t.Disabled, Locked: t.Locked, CreatedAt: t.CreatedAt}
}

// Member is the admin's view of a member.
type Member struct {
	ID                string    `json:"id"`
	Name              string    `json:"name"`
	Phone             string    `json:"phone" doc:"E.164"`
	Email             string    `json:"email"`
	Role              string    `json:"role"`
	Status            string    `json:"status" enum:"pending,active,opted_out"`
	IsBlocked         bool      `json:"is_blocked"`
	DashboardLogin    bool      `json:"dashboard_login"`
	CanSendBroadcasts bool      `json:"can_send_broadcasts"`
	TimeZone          *string   `json:"time_zone" doc:"IANA time zone of the member, for quiet hours; null: from the phone's area code."`
	GroupIDs          []string  `json:"group_ids"`
	CreatedAt         time.Time `json:"created_at"`

	// Consent is the consent record (consent.go).
	Consent *view.Consent `json:"consent" doc:"How and when the member agreed to receive texts. Null for members added before teamtext kept consent records."`

	view.Deliverability
}

// MemberFrom renders a member.
func MemberFrom(m *domain.Member) Member {
	return Member{ID: m.ID, Name: m.Name, Phone: m.Phone, Email: m.Email, Role: string(m.Role), Status: m.Status,
		IsBlocked: m.IsBlocked, DashboardLogin: m.DashboardLogin, CanSendBroadcasts: m.CanSendBroadcasts, TimeZone: view.TimeZone(m.TimeZone),
		GroupIDs: []string{}, CreatedAt: m.CreatedAt, Consent: view.ConsentFrom(m.MemberConsent)}
}

// Key is an API key as listed (never its value).
type Key struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Prefix        string     `json:"prefix" doc:"The key's first 12 characters (tt_live_ and four more), a real prefix of the key, to recognise it in a list." example:"tt_live_neo4"`
	MemberID      string     `json:"member_id" doc:"The creator; the key acts on their behalf."`
	CreatedAt     time.Time  `json:"created_at"`
	RevokedAt     *time.Time `json:"revoked_at"`
	RevokedReason string     `json:"revoked_reason,omitempty"`
	LastUsedAt    *time.Time `json:"last_used_at" doc:"When the key last opened the API (kept to the minute); null if never."`
}

// CreatedKey is a new key, with its value shown once.
type CreatedKey struct {
	Key
	Value string `json:"key" doc:"The key itself. Shown only in this response."`
}

// keyDisplayLen is how many characters of the lookup part a list shows: the
// key's own first characters, enough to tell keys apart at a glance, far
// too few to guess the rest.
const keyDisplayLen = 4

// KeyFrom renders a key (never its value).
func KeyFrom(k *domain.APIKey) Key {
	return Key{ID: k.ID, Name: k.Name, Prefix: auth.KeyPrefix + k.Lookup[:keyDisplayLen], MemberID: k.MemberID, CreatedAt: k.CreatedAt,
		RevokedAt: k.RevokedAt, RevokedReason: k.RevokedReason, LastUsedAt: k.LastUsedAt}
}

// ImportRow is one data row's outcome in an import answer.
type ImportRow struct {
	Line     int                  `json:"line" doc:"CSV line the row starts on; the header is line 1."`
	Status   string               `json:"status" enum:"created,failed"`
	MemberID string               `json:"member_id,omitempty" doc:"The new member, when created."`
	Error    *httpapi.ErrorDetail `json:"error,omitempty" doc:"Why the row failed: the code and message a single add would give (member_exists also carries existing_member_id)."`
}

// ImportResult is the answer to a roster import.
type ImportResult struct {
	Created int         `json:"created" doc:"Rows that added a member."`
	Failed  int         `json:"failed" doc:"Rows that were not imported."`
	Rows    []ImportRow `json:"rows" doc:"Every data row, in file order (blank rows are skipped)."`
}

// ConsentMember is a roster entry with the exported number.
type ConsentMember struct {
	ID      string        `json:"id"`
	Name    string        `json:"name"`
	Status  string        `json:"status" enum:"pending,active,opted_out"`
	Removed bool          `json:"removed" doc:"Removed from the roster and kept on record because the number opted out."`
	Consent *view.Consent `json:"consent" doc:"The entry's consent record; null for members added before teamtext kept consent records."`
}

// ConsentExport is the consent record of one number of a team.
type ConsentExport struct {
	Phone    string              `json:"phone" doc:"E.164."`
	OptedOut bool                `json:"opted_out" doc:"Whether the number is opted out now."`
	Members  []ConsentMember     `json:"members" doc:"The team's roster entries with the number, oldest first, removed ones kept on record included."`
	History  []view.ConsentEvent `json:"history" doc:"The number's whole consent history, oldest first."`
}

// Activity is one write made in the staff dashboard.
type Activity struct {
	ID         string    `json:"id"`
	MemberID   string    `json:"member_id" doc:"The roster entry who made it."`
	MemberName string    `json:"member_name" doc:"Their roster name now; empty when the entry was deleted."`
	Action     string    `json:"action" doc:"What was done, in words: sent message, approved message, replied to text, created key, revoked key, ..."`
	Object     string    `json:"object" doc:"The id of what was acted on; empty when the action has none."`
	ClientIP   string    `json:"client_ip" doc:"The client's address (behind TRUSTED_PROXIES, the forwarded one)."`
	CreatedAt  time.Time `json:"created_at"`
}

// ActivityFrom renders an activity entry.
func ActivityFrom(a *domain.Activity) Activity {
	return Activity{ID: a.ID, MemberID: a.MemberID, MemberName: a.MemberName, Action: a.Action, Object: a.Object, ClientIP: a.ClientIP, CreatedAt: a.CreatedAt}
}
