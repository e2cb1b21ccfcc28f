// Package httpapi is messaging's public API under /api/v1: templates,
// estimates and sends, message reports and scheduled sends.
package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/phone"
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
	Credits              int        `json:"credits" doc:"recipients × segments_per_recipient."`
	DeliveryCounts       Counts     `json:"delivery_counts"`
	Progress             Progress   `json:"progress" doc:"How far the hand-over to the carrier has got (an addition to v1)."`
	EstimatedCompletion  *time.Time `json:"estimated_completion" doc:"When the last text was planned, at acceptance, to be handed to the carrier, given the sending numbers' backlogs and pace (an addition to v1). null until the send is dispatched (pending_approval, rejected, expired)."`
	CreatedAt            time.Time  `json:"created_at"`
	SentAt               *time.Time `json:"sent_at"`
	Suppression
}

// Suppression is what issue 18 adds to a message: numbers left out because
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
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// MessageFrom renders a message with its delivery counts.
func MessageFrom(m *postgres.Message) Message {
	c := m.Counts()
	return Message{ID: m.ID, Kind: "message", Status: m.Status, Audience: m.Audience, GroupID: opt(m.GroupID), TemplateID: opt(m.TemplateID),
		ScheduledID: opt(m.ScheduledID), Text: m.Text, RenderedText: m.Rendered, Encoding: m.Encoding, SegmentsPerRecipient: m.Segments,
		Recipients: m.Recipients, Credits: m.Recipients * m.Segments, CreatedAt: m.CreatedAt, SentAt: m.SentAt,
		DeliveryCounts:      Counts{Total: c.Total, Queued: c.Queued, Sent: c.Sent, Delivered: c.Delivered, Failed: c.Failed, Unconfirmed: c.Unconfirmed},
		Progress:            Progress{HandedOver: c.Total - c.Queued - c.Skipped, Skipped: c.Skipped, Total: c.Total},
		EstimatedCompletion: m.EstimatedCompletion,
		Suppression:         Suppression{SkippedUndeliverable: m.SkippedUndeliverable, ResendOf: opt(m.ResendOf)}}
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
}

// ScheduledFrom renders a scheduled send.
func ScheduledFrom(s *postgres.Scheduled) Scheduled {
	var in service.SendInput
	_ = json.Unmarshal(s.Request, &in)
	out := Scheduled{ID: s.ID, Kind: "scheduled", Status: s.Status, ScheduledFor: s.ScheduledFor, Text: in.Text, TemplateID: opt(in.TemplateID),
		Audience: in.Audience, GroupID: opt(in.GroupID), Sends: s.Runs, CreatedAt: s.CreatedAt}
	if s.RepeatEvery != "" && s.RepeatUntil != nil {
		out.Repeat = &RepeatOut{Every: s.RepeatEvery, Until: s.RepeatUntil.Format("2006-01-02")}
	}
	return out
}

// SendBody is the body of POST /messages and /messages/estimate.
type SendBody struct {
	Text         string  `json:"text,omitempty" doc:"Required unless template_id is given. Merge tags such as {first_name} are refused (merge_tags_unsupported; private_field for a private field's key)."`
	TemplateID   string  `json:"template_id,omitempty" doc:"Used instead of text; an urgent-alert template gives urgent_not_allowed."`
	Audience     string  `json:"audience" enum:"all,staff,families,group" doc:"all: every active member; staff: head coaches, team directors, coaches, board members; families: athletes and guardians; group: the members of group_id. Opted-out, blocked and pending members are never texted."`
	GroupID      string  `json:"group_id,omitempty"`
	ScheduledFor string  `json:"scheduled_for,omitempty" doc:"ISO 8601 with offset, 1 minute to 1 year ahead (invalid_scheduled_for)."`
	Repeat       *Repeat `json:"repeat,omitempty"`
}

// Repeat is a weekly repetition in a request.
type Repeat struct {
	Every string `json:"every" doc:"Only \"week\"."`
	Until string `json:"until" doc:"A date (YYYY-MM-DD) in the team's time zone, at most a year ahead (invalid_repeat)."`
}

func (b SendBody) input() service.SendInput {
	in := service.SendInput{Text: b.Text, TemplateID: b.TemplateID, Audience: b.Audience, GroupID: b.GroupID, ScheduledFor: b.ScheduledFor}
	if b.Repeat != nil {
		in.Repeat = &service.Repeat{Every: b.Repeat.Every, Until: b.Repeat.Until}
	}
	return in
}

// SendResult is a send's answer: a message (kind message) or a scheduled
// send (kind scheduled). Its kind, status and encoding shadow the message's
// (for encoding/json and huma alike) because a scheduled send has values a
// message does not: kind scheduled, status pending, no encoding yet.
type SendResult struct {
	Message
	Kind         string     `json:"kind" enum:"message,scheduled" doc:"message: sent now (or waiting for approval); scheduled: a scheduled send, see scheduled_for."`
	Status       string     `json:"status" enum:"pending_approval,queued,sent,rejected,expired,pending" doc:"As a message's status for kind message; pending for kind scheduled."`
	Encoding     string     `json:"encoding,omitempty" enum:"GSM-7,UCS-2" doc:"kind message only: the text's encoding. Absent for kind scheduled, whose text is encoded when it is sent."`
	ScheduledFor *time.Time `json:"scheduled_for,omitempty" doc:"kind scheduled only."`
	Repeat       *RepeatOut `json:"repeat,omitempty" doc:"kind scheduled only."`
}

// Estimate is the answer of POST /messages/estimate.
type Estimate struct {
	Recipients           int       `json:"recipients" doc:"Distinct phone numbers that would be texted now."`
	SegmentsPerRecipient int       `json:"segments_per_recipient" doc:"Counted on rendered_text: the team prefix and the opt-out line included."`
	EstimatedCredits     int       `json:"estimated_credits"`
	ApprovalRequired     bool      `json:"approval_required"`
	Encoding             string    `json:"encoding" enum:"GSM-7,UCS-2"`
	RenderedText         string    `json:"rendered_text"`
	Prefix               string    `json:"prefix" doc:"The team prefix: the team name, a colon and a space."`
	OptOutLine           string    `json:"opt_out_line" doc:"Added on a new line at the end."`
	EstimatedCompletion  time.Time `json:"estimated_completion" doc:"When the last text would be handed to the carrier if sent now, given the team's sending numbers' backlogs and pace (an addition to v1)."`
	SkippedUndeliverable int       `json:"skipped_undeliverable" doc:"Numbers of the audience that would not be texted because they are marked undeliverable; not among recipients, not in estimated_credits (an addition to v1)."`
}

// Delivery is one recipient's row of a delivery report.
type Delivery struct {
	ID                string    `json:"id"`
	MessageID         string    `json:"message_id"`
	MemberIDs         []string  `json:"member_ids" doc:"Roster entries this text reached."`
	Phone             string    `json:"phone" doc:"Masked: ***NNNN."`
	Status            string    `json:"status" enum:"queued,sent,delivered,failed,delivery_unconfirmed"`
	CarrierStatus     string    `json:"carrier_status"`
	ErrorCode         *string   `json:"error_code" doc:"The carrier's error code, when failed."`
	ErrorMessage      *string   `json:"error_message"`
	ProviderMessageID *string   `json:"provider_message_id"`
	UpdatedAt         time.Time `json:"updated_at"`
}

// SendOutput lets the status vary (201, or the first answer's on replay).
type SendOutput struct {
	Status   int
	Replayed string `header:"Idempotent-Replayed" doc:"true when this is the stored answer of an earlier request with the same Idempotency-Key."`
	Body     httpapi.DataBody[SendResult]
}

// Register adds messaging's public operations.
func Register(api huma.API, svc *service.Service) {
	registerTemplates(api, svc)
	defer registerResend(api, svc) // after send-message, whose answer it shares
	tags := []string{"Messages"}
	sender := func(ctx context.Context) service.Sender {
		p := auth.MustPrincipal(ctx)
		return service.Sender{TeamID: p.TeamID, KeyID: p.KeyID, MemberID: p.MemberID, Source: "api"}
	}

	httpapi.Register(api, httpapi.WithAccess(huma.Operation{
		OperationID: "send-message", Method: http.MethodPost, Path: "/messages", Tags: tags, DefaultStatus: http.StatusCreated,
		Summary: "Send a broadcast",
		Description: "Broadcasts a text to one audience. Answers 201 with a message (kind message): status queued, or pending_approval when the team's policy requires approval; " +
			"or, with scheduled_for, a scheduled send (kind scheduled). Checks, in order: body (400), the team's number (409 no_sender), billing (402 payment_required when a renewal is overdue; " +
			"402 trial_limit when the credits exceed the remaining trial credits), pending scheduled sends (409 scheduled_limit_reached, at most 100), then the audience is resolved at send time " +
			"(409 conflict when it has no one to text). A template_id the team does not have gives 404 not_found. One text per distinct number. Idempotency-Key (addition to v1): the same key and body within 24 hours return the first answer " +
			"(header Idempotent-Replayed: true); the same key with another body gives 409 conflict.",
	}, httpapi.Access{Send: true}), func(ctx context.Context, in *struct {
		IdempotencyKey string `header:"Idempotency-Key" maxLength:"255" doc:"Optional; see the description."`
		Body           SendBody
	}) (*SendOutput, error) {
		snd := sender(ctx)
		run := func(ctx context.Context) (int, []byte, error) {
			o, err := svc.Send(ctx, snd, in.Body.input())
			if err != nil {
				return 0, nil, err
			}
			b, err := json.Marshal(resultFrom(o))
			return http.StatusCreated, b, err
		}
		if in.IdempotencyKey == "" {
			_, b, err := run(ctx)
			if err != nil {
				return nil, err
			}
			return sendOutput(http.StatusCreated, b, false)
		}
		canon, _ := json.Marshal(in.Body)
		sum := sha256.Sum256(canon)
		status, b, replay, err := svc.Idempotent(ctx, snd.KeyID, in.IdempotencyKey, sum[:], run)
		if err != nil {
			return nil, err
		}
		return sendOutput(status, b, replay)
	}, http.StatusConflict, http.StatusPaymentRequired, http.StatusNotFound)

	httpapi.Register(api, httpapi.WithAccess(huma.Operation{
		OperationID: "estimate-message", Method: http.MethodPost, Path: "/messages/estimate", Tags: tags,
		Summary: "Estimate a broadcast",
		Description: "Runs the same checks as a send and sends nothing; not counted toward the send limits. Segments are counted on the rendered text " +
			"(prefix \"<team name>: \", the text, a newline and \"Reply STOP to opt out.\"): GSM-7 160 per single text / 153 per part, UCS-2 70 / 67.",
	}, httpapi.Access{NoCard: true}), func(ctx context.Context, in *struct{ Body SendBody }) (*httpapi.DataOutput[Estimate], error) {
		p, err := svc.Estimate(ctx, sender(ctx), in.Body.input())
		if err != nil {
			return nil, err
		}
		return httpapi.Data(Estimate{Recipients: len(p.Phones), SegmentsPerRecipient: p.Segments, EstimatedCredits: p.Credits,
			ApprovalRequired: p.ApprovalRequired, Encoding: string(p.Encoding), RenderedText: p.Rendered,
			Prefix: domain.Prefix(p.Team.Name), OptOutLine: domain.OptOutLine, EstimatedCompletion: p.Completion,
			SkippedUndeliverable: p.SkippedUndeliverable}), nil
	}, http.StatusConflict, http.StatusPaymentRequired, http.StatusNotFound)

	httpapi.Register(api, huma.Operation{
		OperationID: "list-messages", Method: http.MethodGet, Path: "/messages", Tags: tags,
		Summary: "List messages", Description: "Broadcasts, newest first, with delivery counts.",
	}, func(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[Message], error) {
		vs, err := svc.Messages(ctx, auth.MustPrincipal(ctx).TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]Message, len(vs))
		for i := range vs {
			out[i] = MessageFrom(&vs[i])
		}
		return httpapi.List(in.PageParams, out), nil
	})

	httpapi.Register(api, huma.Operation{
		OperationID: "get-message", Method: http.MethodGet, Path: "/messages/{message_id}", Tags: tags,
		Summary: "Get a message", Description: "One broadcast with delivery counts.",
	}, func(ctx context.Context, in *struct {
		MessageID string `path:"message_id"`
	}) (*httpapi.DataOutput[Message], error) {
		v, err := svc.Message(ctx, auth.MustPrincipal(ctx).TeamID, in.MessageID)
		if err != nil {
			return nil, err
		}
		return httpapi.Data(MessageFrom(v)), nil
	})

	httpapi.Register(api, httpapi.WithAccess(huma.Operation{
		OperationID: "list-deliveries", Method: http.MethodGet, Path: "/messages/{message_id}/deliveries", Tags: tags,
		Summary: "Delivery report", Description: "One row per recipient number, in the order the recipients were resolved at send time (roster order). A delivery with no final status after 72 hours becomes delivery_unconfirmed.",
	}, httpapi.Access{Heavy: true}), func(ctx context.Context, in *struct {
		MessageID string `path:"message_id"`
		httpapi.PageParams
	}) (*httpapi.ListOutput[Delivery], error) {
		ds, err := svc.Deliveries(ctx, auth.MustPrincipal(ctx).TeamID, in.MessageID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]Delivery, len(ds))
		for i, d := range ds {
			out[i] = Delivery{ID: d.ID, MessageID: d.MessageID, MemberIDs: d.MemberIDs, Phone: phone.Mask(d.Phone), Status: d.Status,
				CarrierStatus: d.CarrierStatus, ErrorCode: opt(d.ErrorCode), ErrorMessage: opt(d.ErrorMessage),
				ProviderMessageID: opt(d.ProviderMessageID), UpdatedAt: d.UpdatedAt}
			if out[i].MemberIDs == nil {
				out[i].MemberIDs = []string{}
			}
		}
		return httpapi.List(in.PageParams, out), nil
	})

	stags := []string{"Scheduled"}
	httpapi.Register(api, huma.Operation{
		OperationID: "list-scheduled", Method: http.MethodGet, Path: "/scheduled", Tags: stags,
		Summary: "List scheduled messages", Description: "Pending scheduled sends, soonest first; items include repeat (null for one-off sends).",
	}, func(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[Scheduled], error) {
		ss, err := svc.ScheduledList(ctx, auth.MustPrincipal(ctx).TeamID, in.Limit, in.Offset)
		if err != nil {
			return nil, err
		}
		out := make([]Scheduled, len(ss))
		for i := range ss {
			out[i] = ScheduledFrom(&ss[i])
		}
		return httpapi.List(in.PageParams, out), nil
	})
	httpapi.Register(api, huma.Operation{
		OperationID: "cancel-scheduled", Method: http.MethodDelete, Path: "/scheduled/{scheduled_id}", Tags: stags, DefaultStatus: http.StatusNoContent,
		Summary: "Cancel a scheduled message", Description: "Cancels it (204); a weekly series ends. 404 if it is not pending.",
	}, func(ctx context.Context, in *struct {
		ScheduledID string `path:"scheduled_id"`
	}) (*struct{}, error) {
		return nil, svc.CancelScheduled(ctx, auth.MustPrincipal(ctx).TeamID, in.ScheduledID)
	})
}

func resultFrom(o *service.Outcome) SendResult {
	if o.Scheduled != nil {
		s := ScheduledFrom(o.Scheduled)
		return SendResult{Message: Message{ID: s.ID, Audience: s.Audience, GroupID: s.GroupID,
			TemplateID: s.TemplateID, Text: s.Text, CreatedAt: s.CreatedAt}, Kind: "scheduled", Status: "pending", ScheduledFor: &s.ScheduledFor, Repeat: s.Repeat}
	}
	m := MessageFrom(o.Message)
	return SendResult{Message: m, Kind: m.Kind, Status: m.Status, Encoding: m.Encoding}
}

func sendOutput(status int, b []byte, replay bool) (*SendOutput, error) {
	var r SendResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fault.New(fault.Internal, fault.CodeServerError, "stored answer unreadable")
	}
	out := &SendOutput{Status: status, Body: httpapi.DataBody[SendResult]{Data: r}}
	if replay {
		out.Replayed = "true"
	}
	return out, nil
}
