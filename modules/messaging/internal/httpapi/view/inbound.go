package view

import (
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// InboundMember is the roster entry an inbound text came from.
type InboundMember struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Role string `json:"role"`
}

// InboundMessage is a text sent to the team number, with the fields of the
// message.received event.
type InboundMessage struct {
	MessageID         string         `json:"message_id"`
	ProviderMessageID string         `json:"provider_message_id" doc:"The carrier's id of the text."`
	From              string         `json:"from" doc:"The sender, E.164."`
	To                string         `json:"to" doc:"The team number texted, E.164."`
	Body              string         `json:"body"`
	Keyword           *string        `json:"keyword" doc:"stop, start or help when the whole text is a keyword (see the operation's description); null otherwise."`
	GroupID           *string        `json:"group_id" doc:"The group of the latest broadcast sent to this number, if it went to a group; else null."`
	Member            *InboundMember `json:"member" doc:"The roster entry: the oldest active entry with the number, else its oldest entry; null when the number is not on the roster."`
	ReceivedAt        time.Time      `json:"received_at"`
	ResponseTo        *string        `json:"response_to" doc:"The poll (a message id) this text answered: its first word was an option of the sender's latest open poll, recorded for each of the number's roster entries the poll reached (GET /messages/{message_id}/responses). null otherwise (an addition to v1)."`
}

// StaffReply is a staff member's latest reply to an inbox item.
type StaffReply struct {
	Body     string    `json:"body" doc:"The text sent, team prefix included."`
	MemberID string    `json:"member_id" doc:"The staff member who replied."`
	SentAt   time.Time `json:"sent_at" doc:"When the reply was made."`
}

// InboxItem is an inbound text as the inbox shows it.
type InboxItem struct {
	InboundMessage
	ReadAt      *time.Time  `json:"read_at" doc:"When it was first marked read (replying marks it read); null while unread."`
	RepliedAt   *time.Time  `json:"replied_at" doc:"When staff first replied; null if never."`
	LatestReply *StaffReply `json:"latest_reply" doc:"The latest staff reply; null if none."`
}

// InboundMessageFrom renders a stored text.
func InboundMessageFrom(in *domain.Inbound) InboundMessage {
	out := InboundMessage{MessageID: in.ID, ProviderMessageID: in.ProviderMessageID, From: in.FromPhone, To: in.ToPhone, Body: in.Body,
		Keyword: Nullable(string(in.Keyword)), GroupID: Nullable(in.GroupID), ReceivedAt: in.ReceivedAt.UTC(), ResponseTo: Nullable(in.ResponseTo)}
	if in.Member.ID != "" {
		out.Member = &InboundMember{ID: in.Member.ID, Name: in.Member.Name, Role: in.Member.Role}
	}
	return out
}

// InboxItemFrom renders a stored text as an inbox item.
func InboxItemFrom(in *domain.Inbound) InboxItem {
	out := InboxItem{InboundMessage: InboundMessageFrom(in), ReadAt: in.ReadAt, RepliedAt: in.RepliedAt}
	if r := in.LatestReply; r != nil {
		out.LatestReply = &StaffReply{Body: r.Body, MemberID: r.MemberID, SentAt: r.SentAt.UTC()}
	}
	return out
}
