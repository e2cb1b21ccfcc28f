package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
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
	snd := senderOf(ctx)
	run := func(ctx context.Context) (int, []byte, error) {
		o, err := h.svc.Resend(ctx, snd, in.MessageID, in.Body.Only)
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
	canon, _ := json.Marshal(struct {
		Resend string     `json:"resend"`
		Body   ResendBody `json:"body"`
	}{in.MessageID, in.Body})
	sum := sha256.Sum256(canon)
	status, b, replay, err := h.svc.Idempotent(ctx, snd.KeyID, in.IdempotencyKey, sum[:], run)
	if err != nil {
		return nil, err
	}
	return sendOutput(status, b, replay)
}
