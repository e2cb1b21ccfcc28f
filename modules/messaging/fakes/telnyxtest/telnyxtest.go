// Package telnyxtest is a fake of Telnyx's Messaging API v2 for tests. It
// behaves as Telnyx's documentation states, page by page:
//
//   - POST /v2/messages with a bearer API key, a JSON body (from, to, text,
//     messaging_profile_id, webhook_url), answering 200 with {"data": message}
//     whose to[0].status is "queued"
//     (https://developers.telnyx.com/api/messaging/send-message);
//   - errors as {"errors": [{"code", "title", "detail"}]}: 401 with code
//     10009 for a missing or wrong key, 422 with 10015/10016 for a bad body,
//     429 with 10011 and Retry-After when rate limited
//     (https://developers.telnyx.com/development/api-fundamentals/api-errors);
//   - delivery errors (40xxx) in message.finalized's payload.errors
//     (https://developers.telnyx.com/docs/messaging/messages/error-codes);
//   - webhooks message.sent then message.finalized to the text's
//     webhook_url, and message.received for incoming texts, each signed
//     with Ed25519 over "<telnyx-timestamp>|<raw body>", the signature in
//     telnyx-signature-ed25519 (base64)
//     (https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks).
//
// Webhooks are posted when the test says so (Flush), so that tests decide
// when, in what order and how often reports arrive.
package telnyxtest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/fakes/fakecarrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/phone"
)

// Outcome is what happens to texts to a number after Telnyx accepts them.
type Outcome struct {
	// Status is the recipient's final status: "delivered" (default),
	// "delivery_failed", "sending_failed", "delivery_unconfirmed", or ""
	// for no message.finalized at all.
	Status    string
	ErrorCode string // with the failed statuses
}

// Fault is a scripted error answer to the next create request.
type Fault struct {
	Status     int
	Code       string // Telnyx error code
	Title      string
	RetryAfter string
}

// Message is a text the fake accepted.
type Message struct {
	ID             string
	To, From, Text string
	ProfileID      string
	WebhookURL     string
	Parts          int
	At             time.Time // Server.Now at acceptance
}

// Server is the fake. Its URL is the adapter's API URL.
type Server struct {
	URL       string
	APIKey    string
	ProfileID string
	// Now stamps accepted messages and signs webhooks; tests with a fake
	// clock set it.
	Now func() time.Time
	// Rewrite, when set, changes where a webhook is posted (a test's
	// service listens elsewhere than its PUBLIC_BASE_URL says).
	Rewrite func(url string) string

	priv   ed25519.PrivateKey
	pub    ed25519.PublicKey
	client *http.Client

	*fakecarrier.Script[Fault, Message, Outcome, webhook]
}

type webhook struct {
	url  string
	body []byte
}

// NewServer starts a fake for an account with a fresh webhook signing key,
// stopped when t ends.
func NewServer(t testing.TB, apiKey, profileID string) *Server {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{APIKey: apiKey, ProfileID: profileID, Now: time.Now, priv: priv, pub: pub,
		Script: fakecarrier.New[Fault, Message, Outcome, webhook](), client: fakecarrier.NewClient()}
	s.URL = fakecarrier.Serve(t, "POST /v2/messages", s.create)
	return s
}

// PublicKey is the webhook public key as Mission Control shows it:
// standard base64 of the raw 32-byte key.
func (s *Server) PublicKey() string { return base64.StdEncoding.EncodeToString(s.pub) }

// Refuse makes every create to number fail with HTTP 400 and code, with
// the number repeated in the detail as Telnyx does.
func (s *Server) Refuse(number, code string) {
	s.Script.Refuse(number, Fault{Status: http.StatusBadRequest, Code: code, Title: "Invalid 'to' address"})
}

// Flush posts the pending webhooks, signed: each text's in order, several
// texts' at once (fakecarrier.Flush). It returns an error naming every
// webhook that was not answered 2xx.
//
// Telnyx retries a webhook the receiver did not answer with 2xx
// (developers.telnyx.com, "Webhooks": failed deliveries are retried), so a
// callback that failed is owed again and sent at the next flush.
func (s *Server) Flush(ctx context.Context) error {
	return s.Script.Flush(ctx, func(wh webhook) string { return wh.url },
		func(ctx context.Context, wh webhook) error { return s.Post(ctx, wh.url, wh.body) }, true)
}

// Inbound posts message.received for a text from → to to url (the
// account's webhook URL) and returns the message id it gave the text.
func (s *Server) Inbound(ctx context.Context, url, from, to, text string) (string, error) {
	id := newID()
	body := s.event("message.received", map[string]any{
		"id": id, "record_type": "message", "direction": "inbound", "type": "SMS", "text": text,
		"from":                 map[string]any{"phone_number": from, "carrier": "T-Mobile USA", "line_type": "Wireless"},
		"to":                   []map[string]any{{"phone_number": to, "status": "webhook_delivered"}},
		"messaging_profile_id": s.ProfileID, "received_at": s.Now().UTC().Format(time.RFC3339Nano), "errors": []any{},
	})
	return id, s.Post(ctx, url, body)
}

// Post sends body to url signed now, and fails unless it is answered 2xx.
func (s *Server) Post(ctx context.Context, url string, body []byte) error {
	ts := strconv.FormatInt(s.Now().Unix(), 10)
	return s.PostSigned(ctx, url, body, ts, s.Sign(ts, body))
}

// Sign returns the telnyx-signature-ed25519 value for ts and body.
func (s *Server) Sign(ts string, body []byte) string {
	msg := append(append([]byte(ts), '|'), body...)
	return base64.StdEncoding.EncodeToString(ed25519.Sign(s.priv, msg))
}

// PostSigned sends body with the given headers (tests forge bad ones) and
// fails unless it is answered 2xx.
func (s *Server) PostSigned(ctx context.Context, url string, body []byte, ts, signature string) error {
	if s.Rewrite != nil {
		url = s.Rewrite(url)
	}
	return fakecarrier.Post(ctx, s.client, url, "application/json", body, func(r *http.Request) {
		r.Header.Set("User-Agent", "telnyx-webhooks")
		if ts != "" {
			r.Header.Set("telnyx-timestamp", ts)
		}
		if signature != "" {
			r.Header.Set("telnyx-signature-ed25519", signature)
		}
	})
}

// HTTPError is a webhook answered with a non-2xx status.
type HTTPError = fakecarrier.HTTPError

// Event returns a webhook body of type with payload, as Telnyx frames it.
func (s *Server) event(eventType string, payload map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{
		"data": map[string]any{"event_type": eventType, "id": newID(), "occurred_at": s.Now().UTC().Format(time.RFC3339Nano),
			"payload": payload, "record_type": "event"},
		"meta": map[string]any{"attempt": 1, "delivered_to": ""},
	})
	return b
}

type createRequest struct {
	From               string `json:"from"`
	To                 string `json:"to"`
	Text               string `json:"text"`
	MessagingProfileID string `json:"messaging_profile_id"`
	WebhookURL         string `json:"webhook_url"`
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+s.APIKey {
		s.Count()
		writeFault(w, Fault{Status: http.StatusUnauthorized, Code: "10009", Title: "Authentication failed"}, "")
		return
	}
	var req createRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.Count()
		writeFault(w, Fault{Status: http.StatusBadRequest, Code: "10015", Title: "Bad Request"}, "The request body is not JSON.")
		return
	}
	if f, ok := s.Answer(req.To); ok {
		detail := ""
		if f.Status == http.StatusBadRequest {
			detail = "The 'to' address " + req.To + " is invalid."
		}
		writeFault(w, f, detail)
		return
	}
	switch {
	case !e164(req.To) || !e164(req.From):
		writeFault(w, Fault{Status: http.StatusUnprocessableEntity, Code: "10016", Title: "Phone number must be in +E.164 format"}, "")
		return
	case req.Text == "":
		writeFault(w, Fault{Status: http.StatusUnprocessableEntity, Code: "10015", Title: "Bad Request"}, "text is required")
		return
	case req.MessagingProfileID != s.ProfileID:
		writeFault(w, Fault{Status: http.StatusUnprocessableEntity, Code: "10015", Title: "Bad Request"}, "unknown messaging_profile_id")
		return
	}
	m := Message{ID: newID(), To: req.To, From: req.From, Text: req.Text, ProfileID: req.MessagingProfileID,
		WebhookURL: req.WebhookURL, Parts: max(domain.Segments(req.Text).Segments, 1), At: s.Now()}
	var whs []webhook
	if m.WebhookURL != "" {
		whs = s.webhooks(m)
	}
	s.Accept(m, whs...)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": s.payload(m, "queued", "")})
}

// payload is a message as Telnyx renders it, with its recipient's status.
func (s *Server) payload(m Message, status, code string) map[string]any {
	errs := []any{}
	if code != "" {
		errs = append(errs, map[string]any{"code": code, "title": "Delivery failed", "detail": "Message to " + m.To + " failed."})
	}
	return map[string]any{
		"id": m.ID, "record_type": "message", "direction": "outbound", "type": "SMS", "text": m.Text, "parts": m.Parts,
		"from":                 map[string]any{"phone_number": m.From, "carrier": "Telnyx", "line_type": "Wireless"},
		"to":                   []map[string]any{{"phone_number": m.To, "status": status, "carrier": "T-Mobile USA", "line_type": "Wireless"}},
		"messaging_profile_id": m.ProfileID, "webhook_url": m.WebhookURL, "errors": errs,
	}
}

// webhooks are what Telnyx posts about m: message.sent, then the number's
// message.finalized.
func (s *Server) webhooks(m Message) []webhook {
	o := s.Outcome(m.To, Outcome{Status: "delivered"})
	var out []webhook
	add := func(eventType, status, code string) {
		out = append(out, webhook{url: m.WebhookURL, body: s.event(eventType, s.payload(m, status, code))})
	}
	if o.Status != "sending_failed" {
		add("message.sent", "sent", "")
	}
	switch o.Status {
	case "":
	case "delivery_failed", "sending_failed":
		add("message.finalized", o.Status, o.ErrorCode)
	default:
		add("message.finalized", o.Status, "")
	}
	return out
}

func writeFault(w http.ResponseWriter, f Fault, detail string) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]any{{"code": f.Code, "title": f.Title, "detail": detail}}})
}

func e164(s string) bool {
	n, err := phone.Parse(s)
	return err == nil && n.String() == s && strings.HasPrefix(s, "+")
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
