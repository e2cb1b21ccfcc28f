package view

import (
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
)

// Group is a group of members, usable as a send audience.
type Group struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	MemberCount int       `json:"member_count"`
	CreatedAt   time.Time `json:"created_at"`
}

// GroupFrom renders a group.
func GroupFrom(g *domain.Group) Group {
	return Group{ID: g.ID, Name: g.Name, MemberCount: g.MemberCount, CreatedAt: g.CreatedAt}
}

// CustomField is an extra roster column.
type CustomField struct {
	ID        string    `json:"id"`
	Label     string    `json:"label"`
	Key       string    `json:"key" doc:"The merge-tag key (dashboard only)."`
	Private   bool      `json:"private" doc:"Values of a private field can be written but are never returned."`
	CreatedAt time.Time `json:"created_at"`
}

// FieldFrom renders a field.
func FieldFrom(f *domain.CustomField) CustomField {
	return CustomField{ID: f.ID, Label: f.Label, Key: f.Key, Private: f.Private, CreatedAt: f.CreatedAt}
}

// OptOut is an opted-out number.
type OptOut struct {
	Phone     string   `json:"phone" doc:"E.164."`
	MemberIDs []string `json:"member_ids" doc:"Roster entries with this number (none if it is not on the roster). In GET /opt-outs, entries removed from the roster are listed too: they are kept on record so the opt-out stays (spec §3)."`
	// RemovedMemberIDs marks the removed entries of MemberIDs.
	RemovedMemberIDs []string  `json:"removed_member_ids" doc:"The entries of member_ids removed from the roster (DELETE /members/{member_id}) and kept on record because they opted out; they are not in member lists or reads."`
	Source           string    `json:"source" enum:"api,sms,support" doc:"api: recorded through the API; sms: the member texted STOP; support: recorded by staff."`
	OptedOutAt       time.Time `json:"opted_out_at"`
}

// OptOutFrom renders an opt-out record.
func OptOutFrom(r *service.OptOutResult) OptOut {
	return OptOut{Phone: r.Phone, MemberIDs: nonNil(r.MemberIDs), RemovedMemberIDs: nonNil(r.RemovedMemberIDs), Source: r.Source, OptedOutAt: r.OptedOutAt}
}

// nonNil makes an absent list [] on the wire (the document says array, not null).
func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// ItemError is a bulk item's failure.
type ItemError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// BulkResult is one item of POST /opt-outs/bulk.
type BulkResult struct {
	Index     int        `json:"index" doc:"Position of the item in the request."`
	Phone     string     `json:"phone" doc:"The phone as sent."`
	Status    string     `json:"status" enum:"opted_out,already_opted_out,failed"`
	MemberIDs []string   `json:"member_ids"`
	Error     *ItemError `json:"error" doc:"The failure when status is failed (invalid_phone or staff_member_protected); null otherwise."`
}

// Check is one number of POST /recipients/validate.
type Check struct {
	Input     string   `json:"input"`
	Phone     *string  `json:"phone" doc:"E.164, null when not a valid US number."`
	Valid     bool     `json:"valid" doc:"A valid US number (no carrier is contacted)."`
	OnRoster  bool     `json:"on_roster"`
	OptedOut  bool     `json:"opted_out"`
	MemberIDs []string `json:"member_ids"`
	// Undeliverable is the undeliverable mark, beside opted_out.
	Undeliverable bool `json:"undeliverable" doc:"The number is marked undeliverable: its texts failed with a permanent carrier code (landline, unreachable, invalid, blocked) UNDELIVERABLE_AFTER times in a row, so sends skip it until a text to it is delivered, it texts the team, or the dashboard clears the mark (an addition to v1)."`
}
