// Package messagingapi is the messaging module's contract for other
// modules: campaign steps send through it with the same gates, approval
// rules and billing as any send.
package messagingapi

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/platform/phone"
)

// SendRequest is one broadcast asked for by another module.
type SendRequest struct {
	TeamID     string
	MemberID   string // the staff member it acts for
	Source     Source // e.g. SourceCampaign
	Text       string // or TemplateID
	TemplateID string
	Audience   Audience
	GroupID    string
	Urgent     bool // urgent alerts: allowed for dashboard-made campaigns
}

// SendResult is what the send produced.
type SendResult struct {
	MessageID string
	Status    MessageStatus // queued or pending_approval
}

// Sender sends a broadcast now, inside the caller's transaction (carried by
// ctx): the message, its deliveries and fan-out jobs commit or roll back
// with the caller's writes. Refusals are faults with the spec's codes.
type Sender interface {
	Send(ctx context.Context, r SendRequest) (SendResult, error)
}

// Text is one text the service sends one person on a team's behalf.
type Text struct {
	TeamID string
	To     phone.Number
	Body   string
}

// Texter sends one-to-one service texts (dashboard sign-in codes) from the
// team's number, queued in the caller's transaction. They are not
// broadcasts: not charged, and never sent to a number that texted STOP.
type Texter interface {
	SendText(ctx context.Context, t Text) error
}

// Delivery is one text a number was sent, as a member's page lists it.
type Delivery struct {
	MessageID string
	Text      string // the text as that number got it (its first 160 characters)
	Status    string // queued, sent, delivered, failed, ...
	ErrorCode string // the carrier's code of a failure
	At        time.Time
}

// DeliveryLog reads the latest texts a team sent one number, newest first.
type DeliveryLog interface {
	LatestTo(ctx context.Context, teamID string, number phone.Number, limit int) ([]Delivery, error)
}

// TemplateChoice is a saved template as other modules' pickers show it.
type TemplateChoice struct {
	ID, Name string
	Urgent   bool // an urgent-alert template
}

// Templates lists a team's templates for pickers (a campaign step's
// template on the dashboard's Campaigns page).
type Templates interface {
	// TemplateChoices returns up to limit of the team's templates.
	TemplateChoices(ctx context.Context, teamID string, limit int) ([]TemplateChoice, error)
}
