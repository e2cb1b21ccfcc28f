package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// ResendBody is the body of POST /messages/{message_id}/resend.
type ResendBody struct {
	Only string `json:"only" enum:"failed" doc:"Who to text again: failed, the recipients whose delivery failed with a code that says nothing permanent about their number (the only value for now)."`
}

// registerResend adds POST /messages/{message_id}/resend (issue 18).
func registerResend(api huma.API, svc *service.Service) {
	httpapi.Register(api, httpapi.WithAccess(huma.Operation{
		OperationID: "resend-message", Method: http.MethodPost, Path: "/messages/{message_id}/resend", Tags: []string{"Messages"},
		DefaultStatus: http.StatusCreated, Summary: "Resend a broadcast to its failed recipients",
		Description: "With {\"only\": \"failed\"} (the only value; anything else is 400 invalid_request): sends the message's text again, as a new message (resend_of names the original), " +
			"to the recipients whose delivery failed with a code that says nothing permanent about their number — not those whose number is a landline, unreachable, invalid or blocked " +
			"(the carrier's permanent codes, listed in the README), nor those who opted out. They are texted as they are on the roster now: active members only, and numbers marked " +
			"undeliverable are skipped (skipped_undeliverable). Everything else is as POST /messages: the same checks, limits (the resend counts toward the send limits), " +
			"billing (402), approval (status pending_approval when the team's policy requires it) and answer (201, a message). " +
			"404 not_found for a message the team does not have. 409 conflict when the message was never sent (pending_approval, rejected, expired), " +
			"when some of its texts have no final status yet, when none of its deliveries failed that way, or when it was resent already (resend the resend to try its failures again). " +
			"Idempotency-Key as for POST /messages.",
	}, httpapi.Access{Send: true}), func(ctx context.Context, in *struct {
		MessageID      string `path:"message_id"`
		IdempotencyKey string `header:"Idempotency-Key" maxLength:"255" doc:"Optional; as for POST /messages."`
		Body           ResendBody
	}) (*SendOutput, error) {
		p := auth.MustPrincipal(ctx)
		snd := service.Sender{TeamID: p.TeamID, KeyID: p.KeyID, MemberID: p.MemberID, Source: "api"}
		run := func(ctx context.Context) (int, []byte, error) {
			o, err := svc.Resend(ctx, snd, in.MessageID, in.Body.Only)
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
		status, b, replay, err := svc.Idempotent(ctx, snd.KeyID, in.IdempotencyKey, sum[:], run)
		if err != nil {
			return nil, err
		}
		return sendOutput(status, b, replay)
	}, http.StatusConflict, http.StatusPaymentRequired, http.StatusNotFound)
}
