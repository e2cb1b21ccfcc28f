package httpapi

import (
	"context"

	"github.com/teamtext/teamtext/modules/messaging/internal/service"
)

// ResendBody is the body of POST /messages/{message_id}/resend.
type ResendBody struct {
	Only string `json:"only" enum:"failed" doc:"Who to text again: failed, the recipients whose delivery failed with a code that says nothing permanent about their number (the only value for now)."`
}

// resendMessage serves resend-message.
func (h *handler) resendMessage(ctx context.Context, in *struct {
	MessageID      string `path:"message_id"`
	IdempotencyKey string `header:"Idempotency-Key" maxLength:"255" doc:"Optional; as for POST /messages."`
	Body           ResendBody
}) (*SendOutput, error) {
	request := struct {
		Resend string     `json:"resend"`
		Body   ResendBody `json:"body"`
	}{in.MessageID, in.Body}
	return h.send(ctx, in.IdempotencyKey, request, func(ctx context.Context, snd service.Sender) (*service.Outcome, error) {
		return h.svc.Resend(ctx, snd, in.MessageID, in.Body.Only)
	})
}
