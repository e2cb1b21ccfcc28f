// Package view is the JSON bodies of messaging's API (public and admin)
// made from what the use cases return (domain messages, templates and
// scheduled sends), so that the handlers share one rendering of each.
package view

import (
	"encoding/json"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
)

// Counts are a message's deliveries by status.
type Counts struct {
	Total       int `json:"total"`
	Queued      int `json:"queued"`
	Sent        int `json:"sent" doc:"Handed to the carrier, no final status yet."`
	Delivered   int `json:"delivered"`
	Failed      int `json:"failed"`
	Unconfirmed int `json:"delivery_unconfirmed"`
}

// Message is a broadcast with its delivery counts.
type Message struct {
	ID                   string     `json:"id"`
	Kind                 string     `json:"kind" enum:"message"`
	Status               string     `json:"status" enum:"pending_approval,queued,sent,rejected,expired" doc:"pending_approval: waits in the dashboard's approvals (expires after 7 days); queued: being handed to the carrier; sent: every text handed over; rejected/expired: never sent."`
	Audience             string     `json:"audience"`
	GroupID              *string    `json:"group_id"`
	TemplateID           *string    `json:"template_id"`
	ScheduledID          *string    `json:"scheduled_id" doc:"The scheduled send this message came from, if any."`
	Text                 string     `json:"text"`
	RenderedText         string     `json:"rendered_text" doc:"Exactly what each recipient receives: team prefix, text, opt-out line."`
	Encoding             string     `json:"encoding" enum:"GSM-7,UCS-2"`
	SegmentsPerRecipient int        `json:"segments_per_recipient"`
	Recipients           int        `json:"recipients" doc:"Distinct phone numbers (a number on the roster twice gets one text)."`
	Credits              int        `json:"credits" doc:"recipients × segments_per_recipient; for a dashboard send with merge tags, whose texts differ per recipient, the sum of each recipient's segments (segments_per_recipient is then the largest, and rendered_text the first recipient's)."`
	DeliveryCounts       Counts     `json:"delivery_counts"`
	Progress             Progress   `json:"progress" doc:"How far the hand-over to the carrier has got (an addition to v1)."`
	EstimatedCompletion  *time.Time `json:"estimated_completion" doc:"When the last text was planned, at acceptance, to be handed to the carrier, given the sending numbers' backlogs and pace and the recipients' quiet hours (an addition to v1). null until the send is dispatched (pending_approval, rejected, expired). It moves later when an urgent alert of the team, sent from the dashboard, goes ahead of the send's queued texts."`
	HeldForQuietHours    int        `json:"held_for_quiet_hours" doc:"Texts held, when the send was planned, for their recipients' quiet hours: each stays queued until the first slot after its recipient's window opens (its delivery's held_until). Never an urgent alert's (an addition to v1)."`
	CreatedAt            time.Time  `json:"created_at"`
	SentAt               *time.Time `json:"sent_at"`
	Suppression
	Origin
	Poll
}

// Poll is what reply options add to a message: its reply options, when it is a
// poll, and when answers stop being taken.
type Poll struct {
	ReplyOptions []string   `json:"reply_options" nullable:"true" doc:"The options recipients answer with (upper-case, in the order given), when the message is a poll: rendered_text ends with the line \"Reply YES, NO or MAYBE\". null for any other message. Answers: GET /messages/{message_id}/responses and the message.response event (an addition to v1)."`
	ReplyUntil   *time.Time `json:"reply_until" doc:"When the poll stops taking answers (a text received at or after it is an ordinary text); null for a message that is not a poll (an addition to v1)."`
}

// Origin is where a message came from and who sent it (the
// dashboard's sends appear beside the API's).
type Origin struct {
	Source   string  `json:"source" enum:"api,dashboard,schedule,campaign" doc:"Where the send was made: api (POST /messages or a resend with a key), dashboard (Compose or Resend to failed, by a signed-in staff member), schedule (an occurrence of a scheduled send), campaign (a campaign step). An addition to v1."`
	Urgent   bool    `json:"urgent" doc:"An urgent alert: sent from the dashboard by a head coach or team director, or by a campaign's urgent step; it skips approval and goes out ahead of the team's queued texts. An addition to v1."`
	MemberID *string `json:"member_id" doc:"The roster entry who sent it: the signed-in staff member, the campaign's creator, or the API key's creator; null when unknown. An addition to v1."`
}

// Suppression is what the undeliverable rule adds to a message: numbers left out because
// they are marked undeliverable, and the message a resend went out for.
type Suppression struct {
	SkippedUndeliverable int     `json:"skipped_undeliverable" doc:"Numbers of the audience not texted because they are marked undeliverable (their texts failed with a permanent carrier code UNDELIVERABLE_AFTER times in a row); not among recipients, charged nothing (an addition to v1)."`
	ResendOf             *string `json:"resend_of" doc:"The message this one resent to its failed recipients (POST /messages/{message_id}/resend); null otherwise (an addition to v1)."`
}

// Progress is how many of a message's texts have been handed to the carrier.
type Progress struct {
	HandedOver int `json:"handed_over" doc:"Texts handed to the carrier (whatever came of them)."`
	Skipped    int `json:"skipped" doc:"Texts never handed over: the recipient opted out after the send was accepted (their deliveries failed with error_code opted_out)."`
	Total      int `json:"total" doc:"Texts of the send: one per recipient number."`
	Held       int `json:"held" doc:"Texts still queued and held for their recipients' quiet hours (among total - handed_over - skipped)."`
}

// Nullable is s, or nil (JSON null) when it is empty.
func Nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// MessageFrom renders a message with its delivery counts.
func MessageFrom(m *domain.Message) Message {
	c := m.Counts()
	return Message{ID: m.ID, Kind: "message", Status: m.Status, Audience: m.Audience, GroupID: Nullable(m.GroupID), TemplateID: Nullable(m.TemplateID),
		ScheduledID: Nullable(m.ScheduledID), Text: m.Text, RenderedText: m.Rendered, Encoding: m.Encoding, SegmentsPerRecipient: m.Segments,
		Recipients: m.Recipients, Credits: m.Cost(), CreatedAt: m.CreatedAt, SentAt: m.SentAt,
		DeliveryCounts:      Counts{Total: c.Total, Queued: c.Queued, Sent: c.Sent, Delivered: c.Delivered, Failed: c.Failed, Unconfirmed: c.Unconfirmed},
		Progress:            Progress{HandedOver: c.Total - c.Queued - c.Skipped, Skipped: c.Skipped, Total: c.Total, Held: m.HeldNow},
		EstimatedCompletion: m.EstimatedCompletion, HeldForQuietHours: m.HeldForQuietHours,
		Suppression: Suppression{SkippedUndeliverable: m.SkippedUndeliverable, ResendOf: Nullable(m.ResendOf)},
		Origin:      Origin{Source: string(m.Source), Urgent: m.Urgent, MemberID: Nullable(m.MemberID)},
		Poll:        Poll{ReplyOptions: m.ReplyOptions, ReplyUntil: m.ReplyUntil}}
}

// RepeatOut is a scheduled send's repetition.
type RepeatOut struct {
	Every string `json:"every" enum:"week"`
	Until string `json:"until" doc:"Last date (team time zone) a week may be sent."`
}

// Scheduled is a pending scheduled send; a weekly series shows its next week.
type Scheduled struct {
	ID           string     `json:"id"`
	Kind         string     `json:"kind" enum:"scheduled"`
	Status       string     `json:"status" enum:"pending"`
	ScheduledFor time.Time  `json:"scheduled_for" doc:"The next send."`
	Repeat       *RepeatOut `json:"repeat" doc:"null for a one-off send."`
	Text         string     `json:"text,omitempty"`
	TemplateID   *string    `json:"template_id"`
	Audience     string     `json:"audience"`
	GroupID      *string    `json:"group_id"`
	Sends        int        `json:"sends" doc:"Weeks already sent."`
	CreatedAt    time.Time  `json:"created_at"`
	ReplyOptions []string   `json:"reply_options" nullable:"true" doc:"The poll's reply options, when each send is a poll (open, each time, as long after its send as the request's reply_until was after scheduled_for); null otherwise (an addition to v1)."`
}

// ScheduledFrom renders a scheduled send.
func ScheduledFrom(s *domain.Scheduled) Scheduled {
	var in service.SendInput
	_ = json.Unmarshal(s.Request, &in)
	out := Scheduled{ID: s.ID, Kind: "scheduled", Status: s.Status, ScheduledFor: s.ScheduledFor, Text: in.Text, TemplateID: Nullable(in.TemplateID),
		Audience: in.Audience, GroupID: Nullable(in.GroupID), Sends: s.Runs, CreatedAt: s.CreatedAt, ReplyOptions: in.ReplyOptions}
	if s.RepeatEvery != "" && s.RepeatUntil != nil {
		out.Repeat = &RepeatOut{Every: s.RepeatEvery, Until: s.RepeatUntil.Format("2006-01-02")}
	}
	return out
}
