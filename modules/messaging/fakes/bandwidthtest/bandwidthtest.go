// Package bandwidthtest is a fake of Bandwidth's Messaging API v2 for
// tests. It behaves as Bandwidth's documentation states, page by page:
//
//   - POST /api/v2/users/{accountId}/messages with basic auth and a JSON body
//     (applicationId, to as an array, from, text, tag), answering 202 with the
//     message (id, owner, time, segmentCount, direction "out", tag)
//     (https://dev.bandwidth.com/apis/messaging/#operation/createMessage);
//   - errors as {"type", "description", "fieldErrors"}: 401 "unauthorized",
//     403 "forbidden" for another account's path, 400 "request-validation",
//     429 "too-many-requests" (https://dev.bandwidth.com/docs/messaging/errors/);
//   - callbacks to the application's callback URL as a JSON array of events,
//     with the application's callback basic-auth credentials:
//     message-sending, then message-delivered or message-failed (with
//     errorCode and description), and message-received for incoming texts
//     (https://dev.bandwidth.com/docs/messaging/webhooks/).
//
// Callbacks are posted when the test says so (Flush).
package bandwidthtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/fakes/fakecarrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/phone"
)

// Outcome is what happens to texts to a number after Bandwidth accepts them.
type Outcome struct {
	// Type is the final callback: "message-delivered" (default),
	// "message-failed", or "" for none.
	Type      string
	ErrorCode int // with message-failed
}

// Fault is a scripted error answer.
type Fault struct {
	Status      int
	Type        string
	Description string
	RetryAfter  string
	Field       string // a fieldErrors entry for this field, if set
}

// Message is a text the fake accepted.
type Message struct {
	ID             string
	To, From, Text string
	Tag            string
	Segments       int
	At             time.Time
}

// Server is the fake for one account and application.
type Server struct {
	URL           string
	AccountID     string
	Username      string
	Password      string
	ApplicationID string
	// CallbackURL is the application's callback URL, and the callback
	// credentials the fake sends with each callback.
	CallbackURL                        string
	CallbackUsername, CallbackPassword string
	Now                                func() time.Time

	client *http.Client

	*fakecarrier.Script[Fault, Message, Outcome, callback]
}

// NewServer starts a fake, stopped when t ends. Set CallbackURL before
// Flush.
func NewServer(t testing.TB, accountID, username, password, applicationID, cbUser, cbPass string) *Server {
	t.Helper()
	s := &Server{AccountID: accountID, Username: username, Password: password, ApplicationID: applicationID,
		CallbackUsername: cbUser, CallbackPassword: cbPass, Now: time.Now,
		Script: fakecarrier.New[Fault, Message, Outcome, callback](), client: fakecarrier.NewClient()}
	s.URL = fakecarrier.Serve(t, "POST /api/v2/users/{account}/messages", s.create)
	return s
}

// Refuse makes every create to number fail with a 400 of errType about
// the "to" field, repeating the number as Bandwidth does.
func (s *Server) Refuse(number, errType string) {
	s.Script.Refuse(number, Fault{Status: http.StatusBadRequest, Type: errType, Description: "Your request could not be accepted (" + number + ")",
		Field: "to"})
}

// Flush posts the pending callbacks, each as a one-event array with the
// callback credentials: each text's in order, several texts' at once
// (fakecarrier.Flush). Bandwidth retries a callback that was not
// answered 2xx (dev.bandwidth.com, "Messaging callbacks": retried with
// back-off), so a callback that failed is owed again and sent at the next
// flush.
func (s *Server) Flush(ctx context.Context) error {
	return s.Script.Flush(ctx, func(cb callback) string { return cb.messageID },
		func(ctx context.Context, cb callback) error {
			return s.Post(ctx, cb.body, s.CallbackUsername, s.CallbackPassword)
		}, true)
}

// callback is one owed callback body, about the text messageID.
type callback struct {
	messageID string
	body      []byte
}

// Inbound posts message-received for a text from → to and returns the
// message id it gave the text.
func (s *Server) Inbound(ctx context.Context, from, to, text string) (string, error) {
	id := newID()
	now := s.Now().UTC().Format(time.RFC3339Nano)
	b, _ := json.Marshal([]map[string]any{{"type": "message-received", "time": now, "description": "Incoming message received", "to": to,
		"message": map[string]any{"id": id, "owner": to, "applicationId": s.ApplicationID, "time": now, "segmentCount": 1,
			"direction": "in", "to": []string{to}, "from": from, "text": text}}})
	return id, s.Post(ctx, b, s.CallbackUsername, s.CallbackPassword)
}

// Post sends a callback body with the given basic-auth credentials (tests
// forge wrong ones; empty user: none) and fails unless answered 2xx.
func (s *Server) Post(ctx context.Context, body []byte, user, pass string) error {
	return fakecarrier.Post(ctx, s.client, s.CallbackURL, "application/json", body, func(r *http.Request) {
		if user != "" {
			r.SetBasicAuth(user, pass)
		}
	})
}

// HTTPError is a callback answered with a non-2xx status.
type HTTPError = fakecarrier.HTTPError

type createRequest struct {
	ApplicationID string   `json:"applicationId"`
	To            []string `json:"to"`
	From          string   `json:"from"`
	Text          string   `json:"text"`
	Tag           string   `json:"tag"`
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	user, pass, ok := r.BasicAuth()
	if !ok || user != s.Username || pass != s.Password {
		s.Count()
		writeFault(w, Fault{Status: http.StatusUnauthorized, Type: "unauthorized", Description: "Authentication Failed"})
		return
	}
	if r.PathValue("account") != s.AccountID {
		s.Count()
		writeFault(w, Fault{Status: http.StatusForbidden, Type: "forbidden", Description: "Access Denied"})
		return
	}
	var req createRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.Count()
		writeFault(w, Fault{Status: http.StatusBadRequest, Type: "request-validation", Description: "Your request could not be accepted"})
		return
	}
	to := ""
	if len(req.To) == 1 {
		to = req.To[0]
	}
	if f, ok := s.Answer(to); ok {
		writeFault(w, f)
		return
	}
	invalid := func(field string) {
		writeFault(w, Fault{Status: http.StatusBadRequest, Type: "request-validation", Description: "Your request could not be accepted", Field: field})
	}
	switch {
	case req.ApplicationID != s.ApplicationID:
		invalid("applicationId")
		return
	case len(req.To) != 1 || !e164(req.To[0]):
		invalid("to")
		return
	case !e164(req.From):
		invalid("from")
		return
	case req.Text == "":
		invalid("text")
		return
	}
	m := Message{ID: newID(), To: req.To[0], From: req.From, Text: req.Text, Tag: req.Tag,
		Segments: max(domain.Segments(req.Text).Segments, 1), At: s.Now()}
	s.Accept(m, s.callbacks(m)...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_ = json.NewEncoder(w).Encode(s.message(m))
}

func (s *Server) message(m Message) map[string]any {
	return map[string]any{"id": m.ID, "owner": m.From, "applicationId": s.ApplicationID, "time": m.At.UTC().Format(time.RFC3339Nano),
		"segmentCount": m.Segments, "direction": "out", "to": []string{m.To}, "from": m.From, "media": []string{}, "text": m.Text,
		"tag": m.Tag, "priority": "default"}
}

// callbacks are what Bandwidth posts about m: message-sending, then the
// number's final callback, each a one-event array.
func (s *Server) callbacks(m Message) []callback {
	o := s.Outcome(m.To, Outcome{Type: "message-delivered"})
	var out []callback
	add := func(typ, desc string, code int) {
		ev := map[string]any{"type": typ, "time": s.Now().UTC().Format(time.RFC3339Nano), "description": desc, "to": m.To, "message": s.message(m)}
		if code != 0 {
			ev["errorCode"] = code
		}
		b, _ := json.Marshal([]map[string]any{ev})
		out = append(out, callback{messageID: m.ID, body: b})
	}
	add("message-sending", "Message is sending to carrier", 0)
	switch o.Type {
	case "":
	case "message-failed":
		add(o.Type, "Carrier rejected the message to "+m.To, o.ErrorCode)
	default:
		add(o.Type, "ok", 0)
	}
	return out
}

func writeFault(w http.ResponseWriter, f Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	body := map[string]any{"type": f.Type, "description": f.Description}
	if f.Field != "" {
		body["fieldErrors"] = []map[string]any{{"fieldName": f.Field, "description": "'" + f.Field + "' is not valid"}}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(f.Status)
	_ = json.NewEncoder(w).Encode(body)
}

func e164(s string) bool {
	n, err := phone.Parse(s)
	return err == nil && n.String() == s
}

func newID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	return strconv.FormatInt(time.Now().UnixMilli(), 10) + hex.EncodeToString(b)
}
