package httpapi

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/httpapi/view"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// This file is the public API of inbound texts, the inbox and analytics.

// UnreadCount is the answer of GET /inbox/unread-count.
type UnreadCount struct {
	UnreadCount int `json:"unread_count"`
}

// ReadAll is the answer of POST /inbox/read-all.
type ReadAll struct {
	Marked int `json:"marked" doc:"How many unread texts were marked read."`
}

// Analytics is the answer of GET /analytics.
type Analytics struct {
	From          string  `json:"from" doc:"First UTC day counted (YYYY-MM-DD)."`
	To            string  `json:"to" doc:"Last UTC day counted (YYYY-MM-DD), included."`
	Broadcasts    int64   `json:"broadcasts" doc:"Broadcasts dispatched (sent to their recipients) on these days; approvals pending, rejected or expired are not counted."`
	Deliveries    int64   `json:"deliveries" doc:"Texts those broadcasts dispatched: one per distinct recipient number."`
	Delivered     int64   `json:"delivered" doc:"Deliveries the carrier confirmed delivered, counted on the day the text was handed to the carrier."`
	DeliveryRate  float64 `json:"delivery_rate" doc:"delivered / deliveries, rounded to 4 decimals; 0 when there were no deliveries; at most 1."`
	TextsReceived int64   `json:"texts_received" doc:"Texts received at the team number (keywords included; held texts once released, on the day they arrived)."`
	NewMembers    int     `json:"new_members" doc:"Roster entries added on these days that are still on the roster (pending ones excluded)."`
	OptOuts       int     `json:"opt_outs" doc:"Numbers opted out on these days that are still opted out (a START removes the opt-out)."`
}

const keywordDoc = "Keywords: the whole text, trimmed of white space and punctuation at both ends, case ignored, inner white space as one space, " +
	"must be the keyword. keyword is stop for STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE or OPT OUT (OPT-OUT, OPTOUT): every roster entry " +
	"with the number is opted out (member.opted_out per entry; a number not on the roster is recorded) and no confirmation text is sent " +
	"(a confirmation, if any, comes from the carrier's own opt-out handling, such as Twilio Advanced Opt-Out); start for START or UNSTOP: " +
	"an opted-out number is opted back in (member.opted_in per entry), no text sent; help for HELP or INFO: the team's HELP reply " +
	"(team name, Msg & data rates may apply, Reply STOP to opt out; configurable per team in the dashboard) is texted to that number only. " +
	"\"STOP.\" and \" stop \" match; \"stop please\" does not and is an ordinary text. Every other text has keyword null " +
	"(there are no join keywords, so keyword_required never applies here)."

// listInboundMessages serves list-inbound-messages.
func (h *handler) listInboundMessages(ctx context.Context, in *struct{ httpapi.PageParams }) (*httpapi.ListOutput[view.InboundMessage], error) {
	return httpapi.ListOf(in.PageParams, view.InboundMessageFrom)(h.inbox.InboundMessages(ctx, teamOf(ctx), in.Limit, in.Offset))
}

// listInbox serves list-inbox.
func (h *handler) listInbox(ctx context.Context, in *struct {
	Filter string `query:"filter" enum:"all,unread,replied" default:"all" doc:"all, unread or replied."`
	httpapi.PageParams
}) (*httpapi.ListOutput[view.InboxItem], error) {
	return httpapi.ListOf(in.PageParams, view.InboxItemFrom)(h.inbox.List(ctx, teamOf(ctx), in.Filter, in.Limit, in.Offset))
}

// inboxUnreadCount serves inbox-unread-count.
func (h *handler) inboxUnreadCount(ctx context.Context, _ *struct{}) (*httpapi.DataOutput[UnreadCount], error) {
	n, err := h.inbox.UnreadCount(ctx, teamOf(ctx))
	if err != nil {
		return nil, err
	}
	return httpapi.Data(UnreadCount{UnreadCount: n}), nil
}

// inboxMarkRead serves inbox-mark-read.
func (h *handler) inboxMarkRead(ctx context.Context, in *struct {
	MessageID string `path:"message_id"`
}) (*httpapi.DataOutput[view.InboxItem], error) {
	row, err := h.inbox.MarkRead(ctx, teamOf(ctx), in.MessageID)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(view.InboxItemFrom(row)), nil
}

// inboxReadAll serves inbox-read-all.
func (h *handler) inboxReadAll(ctx context.Context, _ *struct{}) (*httpapi.DataOutput[ReadAll], error) {
	n, err := h.inbox.MarkAllRead(ctx, teamOf(ctx))
	if err != nil {
		return nil, err
	}
	return httpapi.Data(ReadAll{Marked: n}), nil
}

// getAnalytics serves get-analytics.
func (h *handler) getAnalytics(ctx context.Context, in *struct {
	From string `query:"from" doc:"First UTC day, YYYY-MM-DD."`
	To   string `query:"to" doc:"Last UTC day, YYYY-MM-DD, included."`
}) (*httpapi.DataOutput[Analytics], error) {
	t, err := h.analytics.Totals(ctx, teamOf(ctx), in.From, in.To)
	if err != nil {
		return nil, err
	}
	return httpapi.Data(Analytics{From: t.From.Format(time.DateOnly), To: t.To.Format(time.DateOnly), Broadcasts: t.Broadcasts,
		Deliveries: t.Deliveries, Delivered: t.Delivered, DeliveryRate: t.DeliveryRate, TextsReceived: t.TextsReceived,
		NewMembers: t.NewMembers, OptOuts: t.OptOuts}), nil
}
