// Package delivery makes one signed webhook request: it POSTs the stored
// envelope bytes with the spec's headers through the guarded client and
// reports what happened. It decides nothing about retries.
package delivery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/teamtext/teamtext/modules/webhooks/internal/guard"
	"github.com/teamtext/teamtext/modules/webhooks/internal/signature"
	"github.com/teamtext/teamtext/platform/clock"
)

// The request headers of spec §6.
const (
	HeaderEvent     = "X-Service-Event"
	HeaderDelivery  = "X-Service-Delivery"
	HeaderSignature = "X-Service-Signature"
)

// Request is one attempt to send.
type Request struct {
	URL    string
	Secret string
	// PreviousSecret ("" none) signs beside Secret: a rotation's overlap.
	PreviousSecret string
	Event          string // event type
	DeliveryID     string
	Body           []byte // the envelope exactly as stored
}

// Result is what an attempt gave.
type Result struct {
	At         time.Time // when it was sent (the service clock); also the signature's t
	StatusCode int       // 0 when no answer came
	Err        string    // "" on success; never holds the URL or the secret
	Duration   time.Duration
}

// OK reports a 2xx answer.
func (r Result) OK() bool { return r.Err == "" && r.StatusCode >= 200 && r.StatusCode < 300 }

// Sender signs and sends.
type Sender struct {
	client *http.Client
	clock  clock.Clock
}

// NewSender returns a sender using client (the guard's) and clk for timestamps.
func NewSender(client *http.Client, clk clock.Clock) *Sender {
	return &Sender{client: client, clock: clk}
}

// maxDrain is how much of an answer is read so the connection can be reused.
const maxDrain = 64 << 10

// Send POSTs r.Body, signed afresh with the current time.
func (s *Sender) Send(ctx context.Context, r Request) Result {
	at := s.clock.Now()
	res := Result{At: at}
	u, err := url.Parse(r.URL)
	if err != nil || u.Scheme != "https" {
		res.Err = "url is not an https URL"
		return res
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		res.Err = "cannot build request"
		return res
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "teamtext-webhooks/1")
	req.Header.Set(HeaderEvent, r.Event)
	req.Header.Set(HeaderDelivery, r.DeliveryID)
	secrets := []string{r.Secret}
	if r.PreviousSecret != "" {
		secrets = append(secrets, r.PreviousSecret)
	}
	req.Header.Set(HeaderSignature, signature.Header(at, r.Body, secrets...))
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		res.Duration = time.Since(start)
		res.Err = describe(err)
		return res
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	_ = resp.Body.Close()
	res.Duration = time.Since(start)
	res.StatusCode = resp.StatusCode
	if !res.OK() {
		res.Err = fmt.Sprintf("receiver answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			res.Err += " (redirects are not followed)"
		}
	}
	return res
}

// describe turns a transport error into a short message without the URL
// (which may carry the integrator's own tokens).
func describe(err error) string {
	if guard.ReasonOf(err) != 0 {
		var g *guard.Error
		errors.As(err, &g)
		return "refused: " + g.Msg
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "no answer within the time limit"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}
