package httpapi

import (
	"context"
	"time"

	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// Tally is one option's count of answers.
type Tally struct {
	Option string `json:"option"`
	Count  int    `json:"count" doc:"Roster entries whose latest answer is this option."`
}

// ResponseMember is the roster entry an answer was recorded for, as
// member.* events show it, when it answered.
type ResponseMember struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Phone     string    `json:"phone" doc:"E.164."`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	Status    string    `json:"status"`
	IsBlocked bool      `json:"is_blocked"`
	CreatedAt time.Time `json:"created_at"`
}

// PollResponse is one roster entry's answer.
type PollResponse struct {
	Member           ResponseMember `json:"member"`
	Option           string         `json:"option"`
	ReceivedAt       time.Time      `json:"received_at" doc:"When the answering text arrived."`
	InboundMessageID string         `json:"inbound_message_id" doc:"The text that answered (GET /inbound-messages' message_id)."`
}

// ResponsesBody is the answer of GET /messages/{message_id}/responses:
// the tallies, and a page of answers with the standard pagination.
type ResponsesBody struct {
	MessageID    string             `json:"message_id"`
	ReplyOptions []string           `json:"reply_options" nullable:"true" doc:"The poll's options; null when the message is not a poll."`
	ReplyUntil   *time.Time         `json:"reply_until" doc:"When the poll stops taking answers; null when the message is not a poll."`
	Tallies      []Tally            `json:"tallies" doc:"Every option, in the poll's order, 0 included; [] when the message is not a poll."`
	NoResponse   int                `json:"no_response" doc:"Roster entries the poll reached that have not answered."`
	Data         []PollResponse     `json:"data" doc:"Answers, newest first."`
	Pagination   httpapi.Pagination `json:"pagination"`
}

// ResponsesOutput is list-responses' huma output.
type ResponsesOutput struct {
	Body ResponsesBody
}

// listResponses serves list-responses.
func (h *handler) listResponses(ctx context.Context, in *struct {
	MessageID string `path:"message_id"`
	httpapi.PageParams
}) (*ResponsesOutput, error) {
	r, err := h.svc.PollResponses(ctx, auth.MustPrincipal(ctx).TeamID, in.MessageID, in.Limit, in.Offset)
	if err != nil {
		return nil, err
	}
	rows := make([]PollResponse, len(r.Responses))
	for i, x := range r.Responses {
		m := x.Member
		rows[i] = PollResponse{Option: x.Option, ReceivedAt: x.ReceivedAt.UTC(), InboundMessageID: x.InboundID,
			Member: ResponseMember{ID: m.ID, Name: m.Name, Phone: m.Phone, Email: m.Email, Role: m.Role, Status: m.Status, IsBlocked: m.IsBlocked,
				CreatedAt: m.CreatedAt.UTC()}}
	}
	page, pg := httpapi.Page(in.PageParams, rows)
	tallies := make([]Tally, len(r.Tallies))
	for i, t := range r.Tallies {
		tallies[i] = Tally{Option: t.Option, Count: t.Count}
	}
	return &ResponsesOutput{Body: ResponsesBody{MessageID: r.Message.ID, ReplyOptions: r.Message.ReplyOptions, ReplyUntil: r.Message.ReplyUntil,
		Tallies: tallies, NoResponse: r.NoResponse, Data: page, Pagination: pg}}, nil
}
