// Package twilio is the Twilio adapter of messaging's carrier port. It sends
// texts through Twilio's Messages API (twilio-go) with a status callback,
// and turns Twilio's signed callbacks (status reports, incoming texts) into
// the port's normalised forms, handed to messaging through carrier.Sink.
// Pacing is not the adapter's: messaging plans each number's texts at its
// throughput and hands them over when due (Paced is true).
package twilio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	twclient "github.com/twilio/twilio-go/client"
	openapi "github.com/twilio/twilio-go/rest/api/v2010"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carrierhttp"
	"github.com/teamtext/teamtext/platform/phone"
)

// StatusPath is where Twilio posts status callbacks. The app mounts
// CallbackHandler here, outside /api/v1; the adapter gives Twilio
// PUBLIC_BASE_URL + StatusPath + "?d=<delivery id>" with every text.
const StatusPath = "/carrier/twilio/status"

// DefaultAPIURL is Twilio's REST API; Config.APIURL overrides it (tests).
const DefaultAPIURL = "https://api.twilio.com"

// ErrRateLimited is wrapped by the *carrier.BusyError Send returns when
// Twilio answers 429 / 20429: nothing was sent, and messaging holds the
// sending number back for Twilio's Retry-After (or its own backoff) before
// trying again. This is a safety net: numbers are paced by plan, and a 429
// means a number's throughput is set higher than Twilio allows it.
var ErrRateLimited = errors.New("twilio: rate limited")

// Config configures the adapter. AccountSID, AuthToken and PublicBaseURL
// are required; every other field has a default.
type Config struct {
	AccountSID string // TWILIO_ACCOUNT_SID
	AuthToken  string // TWILIO_AUTH_TOKEN
	// APIURL is the base URL of Twilio's REST API (TWILIO_API_URL); empty
	// means DefaultAPIURL. Tests point it at a fake Twilio.
	APIURL string
	// PublicBaseURL is how Twilio reaches this service (PUBLIC_BASE_URL);
	// status callbacks go to PublicBaseURL + StatusPath.
	PublicBaseURL string
	// Timeout bounds one HTTP request to Twilio; 0 means
	// carrierhttp.DefaultTimeout.
	Timeout time.Duration
	// Transport carries the HTTP requests; nil means a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
}

// Carrier implements carrier.Carrier with Twilio's Messages API.
//
// Crash window. Twilio has no idempotency key, so the adapter cannot make a
// repeated Send for the same delivery harmless. If the process dies (or the
// HTTP response is lost: timeout, reset, 5xx from a proxy) after Twilio
// accepted a text and before the hand-over's transaction commits, the
// delivery is still queued, the hand-over runs again, and Twilio sends a
// second text. The adapter therefore errs on the side of a possible
// duplicate. The window is one hand-over: a slot's texts (one second of
// the number's throughput), plus requests whose answer never arrives.
//
// The alternative, at most once, would commit the delivery as "sending" in
// its own transaction before calling Twilio and never call again for it: a
// crash would then leave a text that may or may not have gone out, reported
// as delivery_unconfirmed after the unconfirmed timeout. We did not choose
// it because a team notice that arrives twice costs less than one that
// silently never arrives (a cancelled game, a changed meeting place), the
// coach sees an unconfirmed delivery only hours later, and it would cost a
// second committed write per recipient before every send. A future
// reconciliation could narrow the window further: on a retried attempt,
// list the sending number's recent messages to the same recipient with the
// same body and adopt that message instead of sending again.
type Carrier struct {
	creds     *twclient.Credentials
	accountID string
	apiURL    *url.URL // nil: twilio-go's own host
	callback  string   // PublicBaseURL + StatusPath
	timeout   time.Duration
	transport http.RoundTripper
	log       *slog.Logger
}

// New checks cfg and returns the adapter.
func New(cfg Config, log *slog.Logger) (*Carrier, error) {
	if !alphanumeric(cfg.AccountSID) || !strings.HasPrefix(cfg.AccountSID, "AC") {
		return nil, errors.New("twilio: TWILIO_ACCOUNT_SID must be an account SID (AC followed by letters and digits)")
	}
	// twilio-go refuses credentials with other characters on every request
	// (as a 400 that would look like a refusal of the text); refuse them here.
	if !alphanumeric(cfg.AuthToken) {
		return nil, errors.New("twilio: TWILIO_AUTH_TOKEN is required and must be letters and digits")
	}
	if !carrierhttp.AbsoluteURL(cfg.PublicBaseURL) {
		return nil, errors.New("twilio: PUBLIC_BASE_URL must be an absolute http(s) URL")
	}
	c := &Carrier{
		creds:     twclient.NewCredentials(cfg.AccountSID, cfg.AuthToken),
		accountID: cfg.AccountSID,
		callback:  strings.TrimRight(cfg.PublicBaseURL, "/") + StatusPath,
		timeout:   cfg.Timeout,
		transport: cfg.Transport,
		log:       log,
	}
	if c.timeout <= 0 {
		c.timeout = carrierhttp.DefaultTimeout
	}
	if cfg.APIURL != "" && strings.TrimRight(cfg.APIURL, "/") != DefaultAPIURL {
		api := strings.TrimRight(cfg.APIURL, "/")
		if !carrierhttp.AbsoluteURL(api) {
			return nil, errors.New("twilio: TWILIO_API_URL must be an absolute http(s) URL")
		}
		c.apiURL, _ = url.Parse(api)
	}
	if c.transport == nil {
		c.transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	return c, nil
}

// Name is "twilio".
func (c *Carrier) Name() string { return "twilio" }

// Paced is true: Twilio sends each number at its throughput and queues the
// excess, so messaging plans texts at that pace.
func (c *Carrier) Paced(context.Context) (bool, error) { return true, nil }

// Send creates the text at Twilio with a status callback naming the
// delivery, in one request. Rate limiting (HTTP 429 or error 20429) comes
// back as a *carrier.BusyError carrying Twilio's Retry-After; refusals that
// retrying cannot fix as *carrier.PermanentError with Twilio's code;
// anything else is a transient error, tried again later (see the crash
// window on Carrier: a retry after a lost answer may text the recipient
// twice). Send never waits: pacing and backing off are messaging's plan.
func (c *Carrier) Send(ctx context.Context, m carrier.Message) (carrier.Receipt, error) {
	params := &openapi.CreateMessageParams{}
	params.SetTo(m.To).SetFrom(m.From).SetBody(m.Body).
		SetStatusCallback(c.callback + "?d=" + url.QueryEscape(m.DeliveryID))
	msg, status, retryAfter, err := c.create(ctx, params)
	if err == nil {
		return c.receipt(m, msg)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return carrier.Receipt{}, fmt.Errorf("twilio send %s: %w", m.DeliveryID, ctxErr)
	}
	apiErr := apiError(err, status)
	switch {
	case apiErr == nil:
		return carrier.Receipt{}, fmt.Errorf("twilio send %s: %w", m.DeliveryID, err)
	case apiErr.rateLimited():
		wait := time.Duration(0)
		if s, err := strconv.Atoi(strings.TrimSpace(retryAfter)); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		return carrier.Receipt{}, &carrier.BusyError{RetryAfter: wait,
			Err: fmt.Errorf("twilio send %s from %s: %w: %w", m.DeliveryID, phone.Mask(m.From), ErrRateLimited, apiErr)}
	case permanent(apiErr.Code):
		code := strconv.Itoa(apiErr.Code)
		msg := ErrorMessage(code)
		if msg == "" {
			msg = apiErr.Message
		}
		c.log.Info("twilio refused text", "delivery_id", m.DeliveryID, "to", phone.Mask(m.To), "code", code)
		return carrier.Receipt{}, &carrier.PermanentError{Code: code, Message: msg}
	default:
		return carrier.Receipt{}, fmt.Errorf("twilio send %s: %w", m.DeliveryID, apiErr)
	}
}

// receipt reads Twilio's answer.
func (c *Carrier) receipt(m carrier.Message, msg *openapi.ApiV2010Message) (carrier.Receipt, error) {
	if msg == nil || msg.Sid == nil || *msg.Sid == "" {
		// Twilio accepted the request but its answer is unreadable: the text
		// may be out, and returning an error errs on the side of a duplicate.
		return carrier.Receipt{}, fmt.Errorf("twilio send %s: accepted without a message sid", m.DeliveryID)
	}
	st := "queued"
	if msg.Status != nil && *msg.Status != "" {
		st = *msg.Status
	}
	return carrier.Receipt{ProviderMessageID: *msg.Sid, Status: st}, nil
}

// create makes one request. twilio-go's client takes no context and drops
// the HTTP status of error answers it cannot decode, so each request gets
// its own round tripper that carries ctx, points at the configured API URL
// and remembers the status and Retry-After of the answer.
func (c *Carrier) create(ctx context.Context, params *openapi.CreateMessageParams) (*openapi.ApiV2010Message, int, string, error) {
	rt := &roundTripper{ctx: ctx, apiURL: c.apiURL, next: c.transport}
	tc := &twclient.Client{
		Credentials: c.creds,
		HTTPClient: &http.Client{Transport: rt, Timeout: c.timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
	tc.SetAccountSid(c.accountID)
	msg, err := openapi.NewApiServiceWithClient(tc).CreateMessage(params)
	return msg, rt.status, rt.retryAfter, err
}

// roundTripper is one request's transport; see Carrier.create.
type roundTripper struct {
	ctx        context.Context
	apiURL     *url.URL
	next       http.RoundTripper
	status     int
	retryAfter string
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(rt.ctx)
	if rt.apiURL != nil {
		req.URL.Scheme, req.URL.Host = rt.apiURL.Scheme, rt.apiURL.Host
		req.URL.Path = strings.TrimRight(rt.apiURL.Path, "/") + req.URL.Path
		req.URL.RawPath = ""
		req.Host = ""
	}
	resp, err := rt.next.RoundTrip(req)
	if err == nil {
		rt.status, rt.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
	}
	return resp, err
}

// APIError is Twilio's refusal of a request, with any phone number in its
// message masked (Twilio repeats the number in some messages).
type APIError struct {
	Status  int // HTTP status
	Code    int // Twilio error code; 0 when the answer carried none
	Message string
}

// Error says what Twilio answered, without any full phone number.
func (e *APIError) Error() string {
	return fmt.Sprintf("twilio API: HTTP %d, error %d: %s", e.Status, e.Code, e.Message)
}

func (e *APIError) rateLimited() bool {
	return e.Status == http.StatusTooManyRequests || e.Code == 20429
}

// apiError reads an error answer from err (twilio-go's *TwilioRestError) or,
// when twilio-go could not decode it, from the HTTP status alone. It returns
// nil for errors without an answer (network, timeout).
func apiError(err error, status int) *APIError {
	var re *twclient.TwilioRestError
	if errors.As(err, &re) {
		e := &APIError{Status: re.Status, Code: re.Code, Message: carrierhttp.MaskNumbers(re.Message)}
		if e.Status == 0 {
			e.Status = status
		}
		return e
	}
	if status >= 400 {
		return &APIError{Status: status, Message: http.StatusText(status)}
	}
	return nil
}

// permanent reports whether Twilio's create-time refusal is about this
// text, its recipient or its sender, so that asking again cannot succeed.
// Everything else (authentication, account, queue full, unknown codes) is
// transient: Twilio did not send, so a retry costs nothing but time, and an
// operator's fix lets the delivery through.
func permanent(code int) bool {
	switch code {
	case 21211, 21212, 21214, 21217, 21265, 21266, 21401, 21407, 21408, 21421,
		21602, 21604, 21606, 21608, 21610, 21612, 21614, 21617, 21635, 21659, 21660,
		30003, 30004, 30005, 30006, 30007, 30008, 30032, 30034:
		return true
	}
	return false
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func alphanumeric(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || isDigit(r)) {
			return false
		}
	}
	return true
}
