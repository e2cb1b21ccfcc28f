// Package httpapi is messaging's public API under /api/v1: templates,
// estimates and sends, message reports and scheduled sends.
package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/httpapi/view"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/idempotency"
	"github.com/teamtext/teamtext/platform/phone"
)

// SendBody is the body of POST /messages and /messages/estimate.
type SendBody struct {
	Text         string   `json:"text,omitempty" doc:"Required unless template_id is given. Merge tags such as {first_name} are refused (merge_tags_unsupported; private_field for a private field's key)."`
	TemplateID   string   `json:"template_id,omitempty" doc:"Used instead of text; an urgent-alert template gives urgent_not_allowed."`
	Audience     string   `json:"audience" enum:"all,staff,families,group" doc:"all: every active member; staff: head coaches, team directors, coaches, board members; families: athletes and guardians; group: the members of group_id. Opted-out, blocked and pending members are never texted."`
	GroupID      string   `json:"group_id,omitempty"`
	ScheduledFor string   `json:"scheduled_for,omitempty" doc:"ISO 8601 with offset, 1 minute to 1 year ahead (invalid_scheduled_for)."`
	Repeat       *Repeat  `json:"repeat,omitempty"`
	ReplyOptions []string `json:"reply_options,omitempty" doc:"Makes the broadcast a poll (RSVP by reply; an addition to v1): 2 to 9 distinct options, each one word of letters or digits (at most 20), case ignored and stored upper-case, e.g. [\"YES\",\"NO\",\"MAYBE\"]. The text then ends with the line \"Reply YES, NO or MAYBE\" (options joined by \", \" and \" or \" before the last), counted in segments and credits. A recipient's text whose first word is an option is recorded as their answer (latest wins); see GET /messages/{message_id}/responses. 400 invalid_request otherwise."`
	ReplyUntil   string   `json:"reply_until,omitempty" doc:"When the poll stops taking answers: RFC 3339 with offset, after the send (scheduled_for for a scheduled send) and at most 30 days after it; default 7 days after the send. Only with reply_options (400 invalid_request otherwise). A weekly series keeps the same length of time for each week."`
}

// Repeat is a weekly repetition in a request.
type Repeat struct {
	Every string `json:"every" doc:"Only \"week\"."`
	Until string `json:"until" doc:"A date (YYYY-MM-DD) in the team's time zone, at most a year ahead (invalid_repeat)."`
}

func (b SendBody) input() service.SendInput {
	in := service.SendInput{Text: b.Text, TemplateID: b.TemplateID, Audience: b.Audience, GroupID: b.GroupID, ScheduledFor: b.ScheduledFor,
		ReplyOptions: b.ReplyOptions, ReplyUntil: b.ReplyUntil}
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
	view.Message
	Kind         string          `json:"kind" enum:"message,scheduled" doc:"message: sent now (or waiting for approval); scheduled: a scheduled send, see scheduled_for."`
	Status       string          `json:"status" enum:"pending_approval,queued,sent,rejected,expired,pending" doc:"As a message's status for kind message; pending for kind scheduled."`
	Encoding     string          `json:"encoding,omitempty" enum:"GSM-7,UCS-2" doc:"kind message only: the text's encoding. Absent for kind scheduled, whose text is encoded when it is sent."`
	ScheduledFor *time.Time      `json:"scheduled_for,omitempty" doc:"kind scheduled only."`
	Repeat       *view.RepeatOut `json:"repeat,omitempty" doc:"kind scheduled only."`
}

// Estimate is the answer of POST /messages/estimate.
type Estimate struct {
	Recipients           int        `json:"recipients" doc:"Distinct phone numbers that would be texted now."`
	SegmentsPerRecipient int        `json:"segments_per_recipient" doc:"Counted on rendered_text: the team prefix and the opt-out line included."`
	EstimatedCredits     int        `json:"estimated_credits"`
	ApprovalRequired     bool       `json:"approval_required"`
	Encoding             string     `json:"encoding" enum:"GSM-7,UCS-2"`
	RenderedText         string     `json:"rendered_text"`
	Prefix               string     `json:"prefix" doc:"The team prefix: the team name, a colon and a space."`
	OptOutLine           string     `json:"opt_out_line" doc:"Added on a new line at the end."`
	EstimatedCompletion  time.Time  `json:"estimated_completion" doc:"When the last text would be handed to the carrier if sent now, given the team's sending numbers' backlogs and pace, and the recipients' quiet hours when the team keeps them (an addition to v1)."`
	HeldForQuietHours    int        `json:"held_for_quiet_hours" doc:"Texts that would wait for their recipient's quiet hours to end (the team's messaging settings; each recipient's local time). 0 when the team keeps none, and always for an urgent alert (an addition to v1)."`
	SkippedUndeliverable int        `json:"skipped_undeliverable" doc:"Numbers of the audience that would not be texted because they are marked undeliverable; not among recipients, not in estimated_credits (an addition to v1)."`
	ReplyLine            *string    `json:"reply_line" doc:"For a poll (reply_options): the line added after the opt-out line, \"Reply YES, NO or MAYBE\", counted in segments and credits; null otherwise (an addition to v1)."`
	ReplyUntil           *time.Time `json:"reply_until" doc:"For a poll: when it would stop taking answers; null otherwise (an addition to v1)."`
}

// Delivery is one recipient's row of a delivery report.
type Delivery struct {
	ID                string     `json:"id"`
	MessageID         string     `json:"message_id"`
	MemberIDs         []string   `json:"member_ids" doc:"Roster entries this text reached."`
	Phone             string     `json:"phone" doc:"Masked: ***NNNN."`
	Status            string     `json:"status" enum:"queued,sent,delivered,failed,delivery_unconfirmed"`
	CarrierStatus     string     `json:"carrier_status"`
	ErrorCode         *string    `json:"error_code" doc:"The carrier's error code, when failed."`
	ErrorMessage      *string    `json:"error_message"`
	ProviderMessageID *string    `json:"provider_message_id"`
	UpdatedAt         time.Time  `json:"updated_at"`
	HeldUntil         *time.Time `json:"held_until" doc:"For a text held for its recipient's quiet hours: when its slot was planned, the first after the recipient's window opens; null when not held (an addition to v1)."`
}

// SendOutput lets the status vary (201, or the first answer's on replay).
type SendOutput struct {
	Status   int
	Replayed string `header:"Idempotent-Replayed" doc:"true when this is the stored answer of an earlier request with the same Idempotency-Key."`
	Body     httpapi.DataBody[SendResult]
}

func resultFrom(o *service.Outcome) SendResult {
	if o.Scheduled != nil {
		s := view.ScheduledFrom(o.Scheduled)
		return SendResult{Message: view.Message{ID: s.ID, Audience: s.Audience, GroupID: s.GroupID,
			TemplateID: s.TemplateID, Text: s.Text, CreatedAt: s.CreatedAt,
			Origin: view.Origin{Source: string(domain.SourceAPI), MemberID: view.Nullable(o.Scheduled.MemberID)}},
			Kind: "scheduled", Status: "pending", ScheduledFor: &s.ScheduledFor, Repeat: s.Repeat}
	}
	m := view.MessageFrom(o.Message)
	return SendResult{Message: m, Kind: m.Kind, Status: m.Status, Encoding: m.Encoding}
}

// sendMessage serves send-message.
func (h *handler) sendMessage(ctx context.Context, in *struct {
	IdempotencyKey string `header:"Idempotency-Key" maxLength:"255" doc:"Optional; see the description."`
	Body           SendBody
}) (*SendOutput, error) {
	return h.send(ctx, in.IdempotencyKey, in.Body, func(ctx context.Context, snd service.Sender) (*service.Outcome, error) {
		return h.svc.Send(ctx, snd, in.Body.input())
	})
}

// send runs a send use case (a send or a resend) under the Idempotency-Key
// rules (platform/idempotency): without a key it just runs; with one, the
// key's first answer is stored and replayed, and request, canonically
// encoded, is the fingerprint a later request with the key must match.
// Either way the answer is 201 Created; a replay says so in its header.
func (h *handler) send(ctx context.Context, key string, request any, do func(context.Context, service.Sender) (*service.Outcome, error)) (*SendOutput, error) {
	snd := senderOf(ctx)
	var fingerprint []byte
	if key != "" {
		fingerprint = idempotency.Fingerprint(request)
	}
	r, replayed, err := idempotency.Do(ctx, h.svc.IdempotencyKeys(), snd.KeyID, key, fingerprint, func(ctx context.Context) (SendResult, error) {
		o, err := do(ctx, snd)
		if err != nil {
			return SendResult{}, err
		}
		return resultFrom(o), nil
	})
	if err != nil {
		return nil, err
	}
	if r.Source == "" { // a replay of an answer stored before sends had a source: every send here is the API's
		r.Source = string(domain.SourceAPI)
	}
	out := &SendOutput{Status: http.StatusCreated, Body: httpapi.DataBody[SendResult]{Data: r}}
	if replayed {
		out.Replayed = "true"
	}
	return out, nil
}

// estimateMessage serves estimate-message.
func (h *handler) estimateMessage(ctx context.Context, in *struct{ Body SendBody }) (*httpapi.DataOutput[Estimate], error) {
	p, err := h.svc.Estimate(ctx, senderOf(ctx), in.Body.input())
	if err != nil {
		return nil, err
	}
	return httpapi.Data(Estimate{Recipients: len(p.Phones), SegmentsPerRecipient: p.Segments, EstimatedCredits: p.Credits,
		ApprovalRequired: p.ApprovalRequired, Encoding: string(p.Encoding), RenderedText: p.Rendered,
		Prefix: domain.Prefix(p.Team.Name), OptOutLine: domain.OptOutLine, EstimatedCompletion: p.Completion, HeldForQuietHours: p.Held,
		SkippedUndeliverable: p.SkippedUndeliverable, ReplyLine: view.Nullable(domain.ReplyLine(p.ReplyOptions)), ReplyUntil: p.ReplyUntil}), nil
}

// listMessages serves list-messages.
func (h *handler) listMessages(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[view.Message], error) {
	return httpapi.ListOf(in.PageParams, view.MessageFrom)(h.svc.Messages(ctx, auth.MustPrincipal(ctx).TeamID, in.Limit, in.Offset))
}

// getMessage serves get-message.
func (h *handler) getMessage(ctx context.Context, in *struct {
	MessageID string `path:"message_id"`
}) (*httpapi.DataOutput[view.Message], error) {
	v, err := h.svc.Message(ctx, auth.MustPrincipal(ctx).TeamID, in.MessageID)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(view.MessageFrom(v)), nil
}

// listDeliveries serves list-deliveries.
func (h *handler) listDeliveries(ctx context.Context, in *struct {
	MessageID string `path:"message_id"`
	httpapi.PageParams
}) (*httpapi.ListOutput[Delivery], error) {
	ds, err := h.svc.Deliveries(ctx, auth.MustPrincipal(ctx).TeamID, in.MessageID, "", in.Limit, in.Offset)
	if err != nil {
		return nil, err
	}
	out := make([]Delivery, len(ds))
	for i, d := range ds {
		out[i] = Delivery{ID: d.ID, MessageID: d.MessageID, MemberIDs: d.MemberIDs, Phone: phone.Mask(d.Phone), Status: d.Status,
			CarrierStatus: d.CarrierStatus, ErrorCode: view.Nullable(d.ErrorCode), ErrorMessage: view.Nullable(d.ErrorMessage),
			ProviderMessageID: view.Nullable(d.ProviderMessageID), UpdatedAt: d.UpdatedAt, HeldUntil: d.HeldUntil}
		if out[i].MemberIDs == nil {
			out[i].MemberIDs = []string{}
		}
	}
	return httpapi.List(in.PageParams, out), nil
}

// listScheduled serves list-scheduled.
func (h *handler) listScheduled(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[view.Scheduled], error) {
	return httpapi.ListOf(in.PageParams, view.ScheduledFrom)(h.svc.ScheduledList(ctx, auth.MustPrincipal(ctx).TeamID, in.Limit, in.Offset))
}

// cancelScheduled serves cancel-scheduled.
func (h *handler) cancelScheduled(ctx context.Context, in *struct {
	ScheduledID string `path:"scheduled_id"`
}) (*struct{}, error) {
	return nil, h.svc.CancelScheduled(ctx, auth.MustPrincipal(ctx).TeamID, in.ScheduledID)
}
