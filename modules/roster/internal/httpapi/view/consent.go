package view

import (
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
)

// Consent is a member's consent record: how and when they agreed to
// receive the team's texts.
type Consent struct {
	Source   string    `json:"source" enum:"dashboard,api,import,keyword,web_signup" doc:"How the member agreed: dashboard (added by staff), api (added through the API), import (a roster import), keyword (texted a join keyword), web_signup (a web form)."`
	At       time.Time `json:"at" doc:"When the member agreed."`
	Evidence *string   `json:"evidence" doc:"What shows it, such as the form's wording or URL; null when none was given."`
}

// ConsentInput is the consent record a new member may come with. Every
// part is optional.
type ConsentInput struct {
	Source   string     `json:"source,omitempty" enum:"dashboard,api,import,keyword,web_signup" doc:"How the member agreed; api when omitted (dashboard in the admin API)."`
	At       *time.Time `json:"at,omitempty" doc:"When the member agreed (RFC 3339); now when omitted. Not more than 5 minutes ahead of the service's clock, not before 2000."`
	Evidence string     `json:"evidence,omitempty" maxLength:"1000" doc:"What shows it, such as the form's wording or URL: up to 1000 characters of text (tab and line breaks allowed, no other control characters); trimmed."`
}

// Domain returns the input as the domain checks it (nil: all defaults).
func (c *ConsentInput) Domain() domain.ConsentInput {
	if c == nil {
		return domain.ConsentInput{}
	}
	return domain.ConsentInput{Source: c.Source, At: c.At, Evidence: c.Evidence}
}

// ConsentFrom renders a member's consent record; nil for members added
// before teamtext kept one.
func ConsentFrom(c domain.MemberConsent) *Consent {
	if c.ConsentSource == nil || c.ConsentAt == nil {
		return nil
	}
	return &Consent{Source: *c.ConsentSource, At: c.ConsentAt.UTC(), Evidence: c.ConsentEvidence}
}

// ConsentEvent is one fact of a number's consent history.
type ConsentEvent struct {
	ID         string    `json:"id"`
	At         time.Time `json:"at" doc:"When it happened: the text's arrival, the opt-out's recording, or the consent's own time."`
	Kind       string    `json:"kind" enum:"consent_given,opt_out,opt_in,help" doc:"consent_given: a member was added with this number; opt_out: STOP, or an opt-out recorded through the API or by support; opt_in: START; help: HELP or INFO."`
	Channel    string    `json:"channel" enum:"sms,api,admin,import,web" doc:"sms: a text to a team number (a join keyword and name included); api: the public API; admin: the dashboard or support (admin API); import: a roster import; web: the team's public sign-up page."`
	Phone      string    `json:"phone" doc:"E.164."`
	MemberID   *string   `json:"member_id" doc:"The roster entry it concerns: the member added, the member_id an opt-out named, the entry a text was matched to; null when none (an opt-out by phone, a number not on the roster). An opt-out or START applies to every entry with the number."`
	Changed    bool      `json:"changed" doc:"Whether the number's opt-out changed: false for a STOP or an opt-out of a number already opted out, a START from a number that was not, and HELP; true for consent_given."`
	Source     *string   `json:"source" doc:"consent_given: the consent record's source (dashboard, api, import, keyword, web_signup); null for other kinds."`
	Evidence   *string   `json:"evidence" doc:"consent_given: the consent record's evidence; sms: the text as received (up to 160 characters); else null."`
	MessageID  *string   `json:"message_id" doc:"sms: the inbound text (GET /inbound-messages); else null."`
	RecordedAt time.Time `json:"recorded_at" doc:"When teamtext wrote it."`
}

// ConsentEventFrom renders a history row.
func ConsentEventFrom(e *domain.ConsentEvent) ConsentEvent {
	return ConsentEvent{ID: e.ID, At: e.At.UTC(), Kind: e.Kind, Channel: e.Channel, Phone: e.Phone, MemberID: e.MemberID, Changed: e.Changed,
		Source: e.Source, Evidence: e.Evidence, MessageID: e.MessageID, RecordedAt: e.RecordedAt.UTC()}
}

// MemberConsent is GET /members/{id}/consent's data.
type MemberConsent struct {
	MemberID string         `json:"member_id"`
	Phone    string         `json:"phone" doc:"E.164: the number whose history follows."`
	Consent  *Consent       `json:"consent" doc:"The member's consent record. Null for members added before teamtext kept consent records (none is invented for them)."`
	History  []ConsentEvent `json:"history" doc:"A page of the number's consent history, oldest first (limit and offset page through it)."`
}
