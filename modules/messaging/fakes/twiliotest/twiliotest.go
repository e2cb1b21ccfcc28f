// Package twiliotest is a fake of Twilio's Messages API for tests: it
// accepts texts the way Twilio does (basic auth, form body, JSON answers
// and error bodies), can be told to refuse or rate-limit, and posts status
// callbacks signed the way Twilio signs them, when the test says so.
package twiliotest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/fakes/fakecarrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// Outcome is what happens to texts to a number after Twilio accepts them.
type Outcome struct {
	// Status is the final MessageStatus: "delivered" (default),
	// "undelivered", "failed", "read", or "" for no final callback at all.
	Status    string
	ErrorCode string // sent with undelivered and failed
}

// Fault is a scripted error answer to the next create request.
type Fault struct {
	Status     int    // HTTP status
	Code       int    // Twilio error code; 0 for none
	Message    string // Twilio's message
	RetryAfter string // Retry-After header, if any
	RawBody    string // if set, sent as is instead of Twilio's JSON error
}

// Message is a text the fake accepted.
type Message struct {
	Sid            string
	To, From, Body string
	StatusCallback string
	Segments       int
	At             time.Time // Server.Now at acceptance
}

// Server is the fake. Its URL is Twilio's API base URL for the adapter.
type Server struct {
	URL        string
	AccountSID string
	AuthToken  string
	// Now stamps accepted messages; tests that pace set it to their fake clock.
	Now func() time.Time
	// Rewrite, when set, changes where a callback is posted (a test's
	// service listens elsewhere than its PUBLIC_BASE_URL says).
	Rewrite func(url string) string

	client *http.Client

	*fakecarrier.Script[Fault, Message, Outcome, callback]
}

type callback struct {
	url    string
	params url.Values
}

// NewServer starts a fake for the account, stopped when t ends.
func NewServer(t testing.TB, accountSID, authToken string) *Server {
	t.Helper()
	s := &Server{AccountSID: accountSID, AuthToken: authToken, Now: time.Now,
		Script: fakecarrier.New[Fault, Message, Outcome, callback](), client: fakecarrier.NewClient()}
	s.URL = fakecarrier.Serve(t, "POST /2010-04-01/Accounts/{sid}/Messages.json", s.create)
	return s
}

// Refuse makes every create to number fail with HTTP 400 and code, with
// Twilio's habit of repeating the number in the message.
func (s *Server) Refuse(number string, code int) {
	s.Script.Refuse(number, Fault{Status: http.StatusBadRequest, Code: code,
		Message: fmt.Sprintf("The 'To' number %s is not a valid phone number.", number)})
}

// Flush posts the pending status callbacks, signed with the auth token:
// each text's in order, several texts' at once (fakecarrier.Flush). It
// returns an error naming every callback that was not answered 2xx; Twilio
// does not retry a status callback, so none is owed again.
func (s *Server) Flush(ctx context.Context) error {
	return s.Script.Flush(ctx, func(cb callback) string { return cb.params.Get("MessageSid") },
		func(ctx context.Context, cb callback) error {
			return s.Post(ctx, cb.url, cb.params, Sign(s.AuthToken, cb.url, cb.params))
		}, false)
}

// Post sends one callback with the given signature (tests forge bad ones)
// and fails unless it is answered 2xx.
func (s *Server) Post(ctx context.Context, callbackURL string, params url.Values, signature string) error {
	if s.Rewrite != nil {
		callbackURL = s.Rewrite(callbackURL) // the signature stays over the URL Twilio was given
	}
	err := fakecarrier.Post(ctx, s.client, callbackURL, "application/x-www-form-urlencoded", []byte(params.Encode()), func(r *http.Request) {
		r.Header.Set("User-Agent", "TwilioProxy/1.1")
		if signature != "" {
			r.Header.Set("X-Twilio-Signature", signature)
		}
	})
	if err != nil {
		return fmt.Errorf("callback %s: %w", params.Get("MessageStatus"), err)
	}
	return nil
}

// Sign computes X-Twilio-Signature the way Twilio documents it: the full
// URL followed by each POST parameter's name and value, sorted by name,
// HMAC-SHA1 with the auth token, base64. It is written independently of
// twilio-go so that the adapter's check with twilio-go's validator is a
// real interoperability test.
func Sign(authToken, fullURL string, params url.Values) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString(fullURL)
	for _, k := range keys {
		for _, v := range params[k] {
			b.WriteString(k)
			b.WriteString(v)
		}
	}
	mac := hmac.New(sha1.New, []byte(authToken))
	mac.Write(b.Bytes())
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	user, pass, ok := r.BasicAuth()
	if !ok || user != s.AccountSID || pass != s.AuthToken {
		s.Count()
		writeFault(w, Fault{Status: http.StatusUnauthorized, Code: 20003, Message: "Authenticate"})
		return
	}
	if r.PathValue("sid") != s.AccountSID {
		s.Count()
		writeFault(w, Fault{Status: http.StatusNotFound, Code: 20404, Message: "The requested resource was not found"})
		return
	}
	if err := r.ParseForm(); err != nil {
		s.Count()
		writeFault(w, Fault{Status: http.StatusBadRequest, Code: 20001, Message: "bad form"})
		return
	}
	to, from, body, cbURL := r.PostForm.Get("To"), r.PostForm.Get("From"), r.PostForm.Get("Body"), r.PostForm.Get("StatusCallback")

	if f, ok := s.Answer(to); ok {
		writeFault(w, f)
		return
	}
	switch {
	case to == "":
		writeFault(w, Fault{Status: http.StatusBadRequest, Code: 21604, Message: "A 'To' phone number is required."})
		return
	case from == "":
		writeFault(w, Fault{Status: http.StatusBadRequest, Code: 21603, Message: "A 'From' phone number is required."})
		return
	case body == "":
		writeFault(w, Fault{Status: http.StatusBadRequest, Code: 21602, Message: "Message body is required."})
		return
	}
	m := Message{Sid: "SM" + randomHex(16), To: to, From: from, Body: body, StatusCallback: cbURL,
		Segments: max(domain.Segments(body).Segments, 1), At: s.Now()}
	var cbs []callback
	if cbURL != "" {
		cbs = s.callbacks(m)
	}
	s.Accept(m, cbs...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"sid": m.Sid, "account_sid": s.AccountSID, "to": to, "from": from, "body": body,
		"status": "queued", "num_segments": strconv.Itoa(m.Segments), "num_media": "0",
		"direction": "outbound-api", "api_version": "2010-04-01", "error_code": nil, "error_message": nil,
		"date_created": m.At.UTC().Format(time.RFC1123Z), "date_updated": m.At.UTC().Format(time.RFC1123Z),
		"uri": "/2010-04-01/Accounts/" + s.AccountSID + "/Messages/" + m.Sid + ".json",
	})
}

// callbacks are "sent" and then the number's final status, as Twilio
// reports them.
func (s *Server) callbacks(m Message) []callback {
	o := s.Outcome(m.To, Outcome{Status: "delivered"})
	var out []callback
	add := func(status, code string) {
		p := url.Values{"AccountSid": {s.AccountSID}, "ApiVersion": {"2010-04-01"}, "MessageSid": {m.Sid}, "SmsSid": {m.Sid},
			"MessageStatus": {status}, "SmsStatus": {status}, "To": {m.To}, "From": {m.From}}
		if code != "" {
			p.Set("ErrorCode", code)
		}
		out = append(out, callback{url: m.StatusCallback, params: p})
	}
	if o.Status != "failed" {
		add("sent", "")
	}
	switch o.Status {
	case "":
	case "undelivered", "failed":
		add(o.Status, o.ErrorCode)
	default:
		add(o.Status, "")
	}
	return out
}

func writeFault(w http.ResponseWriter, f Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.RawBody != "" {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.RawBody))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": f.Code, "message": f.Message, "status": f.Status,
		"more_info": fmt.Sprintf("https://www.twilio.com/docs/errors/%d", f.Code)})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
