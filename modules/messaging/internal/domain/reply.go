package domain

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/teamtext/teamtext/platform/fault"
)

// Reply kinds.
const (
	ReplyHelp  = "help"  // the automatic answer to HELP
	ReplyStaff = "staff" // a staff member's answer from the dashboard
	// ReplyService is a text the service itself sends one person, in
	// answer to nothing they texted: a dashboard sign-in code.
	ReplyService = "service"
	// ReplyJoin answers a step of a sign-up by text (a join keyword, a
	// name): what the roster said to answer.
	ReplyJoin = "join"
)

// Reply statuses.
const (
	ReplyQueued = "queued"
	ReplySent   = "sent"   // handed to the carrier
	ReplyFailed = "failed" // refused by the carrier for good
)

// Reply is one text to one person in answer to an inbound text: a staff
// reply from the dashboard or the automatic answer to HELP. Replies are not
// deliveries: the carrier's later status reports for them are not tracked.
type Reply struct {
	ID                string
	TeamID            string
	InboundID         string // the text answered
	Kind              string // ReplyHelp or ReplyStaff
	MemberID          string // the staff member replying ("" for HELP)
	ToPhone           string
	Body              string // the text sent
	Segments          int
	Status            string
	ProviderMessageID string
	ErrorCode         string
	CreatedAt         time.Time
	SentAt            *time.Time
}

// NewHelpReply is the answer to in, a HELP text: the team's HELP text, to
// its sender, queued at now.
func NewHelpReply(id string, in *Inbound, text string, now time.Time) *Reply {
	return &Reply{ID: id, TeamID: in.TeamID, InboundID: in.ID, Kind: ReplyHelp, ToPhone: in.FromPhone, Body: text,
		Segments: Segments(text).Segments, Status: ReplyQueued, CreatedAt: now}
}

// NewAnswer is the service's automatic answer of kind (ReplyJoin...) to
// in, a text it acted on: body as given (it carries the team's name), to
// its sender, queued at now.
func NewAnswer(id, kind string, in *Inbound, body string, now time.Time) *Reply {
	return &Reply{ID: id, TeamID: in.TeamID, InboundID: in.ID, Kind: kind, ToPhone: in.FromPhone, Body: body,
		Segments: Segments(body).Segments, Status: ReplyQueued, CreatedAt: now}
}

// NewServiceText is a text the service sends one number on a team's behalf
// (a sign-in code): the body as given, no team prefix, queued at now.
func NewServiceText(id, teamID, to, body string, now time.Time) *Reply {
	return &Reply{ID: id, TeamID: teamID, Kind: ReplyService, ToPhone: to, Body: body,
		Segments: Segments(body).Segments, Status: ReplyQueued, CreatedAt: now}
}

// NewStaffReply is staff member memberID's answer to in, an inbox item:
// "<team name>: " followed by body (checked already), to its sender,
// queued at now.
func NewStaffReply(id string, in *Inbound, memberID, teamName, body string, now time.Time) *Reply {
	text := Prefix(teamName) + body
	return &Reply{ID: id, TeamID: in.TeamID, InboundID: in.ID, Kind: ReplyStaff, MemberID: memberID, ToPhone: in.FromPhone,
		Body: text, Segments: Segments(text).Segments, Status: ReplyQueued, CreatedAt: now}
}

// Pending reports whether the reply still waits to be handed to the
// carrier (a retried job finds it sent or failed, and sends nothing).
func (rp *Reply) Pending() bool { return rp.Status == ReplyQueued }

// Sent records the carrier's acceptance at at.
func (rp *Reply) Sent(providerMessageID string, at time.Time) {
	rp.Status, rp.ProviderMessageID, rp.SentAt = ReplySent, providerMessageID, &at
}

// Fail records a refusal for good, with its code.
func (rp *Reply) Fail(code string) { rp.Status, rp.ErrorCode = ReplyFailed, code }

// MaxHelpTextRunes bounds a team's HELP reply (three GSM-7 segments).
const MaxHelpTextRunes = 459

// DefaultHelpText is the CTIA HELP reply a team gets unless it set its own:
// the team name, what the texts are, "Msg & data rates may apply" and how to
// opt out.
func DefaultHelpText(teamName string) string {
	return teamName + ": texts from your team's coaches and staff. Msg frequency varies. Msg & data rates may apply. Reply STOP to opt out."
}

// HelpText is what HELP answers: the team's own text, or the default when
// it set none ("").
func HelpText(own, teamName string) string {
	if own == "" {
		return DefaultHelpText(teamName)
	}
	return own
}

// ValidHelpText checks a team's own HELP reply: not blank, at most
// MaxHelpTextRunes characters, and it must say how to opt out (contain the
// word STOP, in any case). "" is valid and means the default.
func ValidHelpText(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", nil
	}
	if utf8.RuneCountInString(text) > MaxHelpTextRunes {
		return "", fault.Invalidf("help_text must be at most %d characters", MaxHelpTextRunes)
	}
	if !strings.Contains(strings.ToLower(text), "stop") {
		return "", fault.Invalidf(`help_text must tell how to opt out, e.g. "Reply STOP to opt out."`)
	}
	return text, nil
}
