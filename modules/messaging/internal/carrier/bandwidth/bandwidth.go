// Package bandwidth is the Bandwidth adapter of messaging's carrier port.
// It sends texts through Bandwidth's Messaging API v2 (POST
// /api/v2/users/{accountId}/messages, basic auth) with the delivery id as
// the message's tag, and turns Bandwidth's callbacks (message-sending,
// message-delivered, message-failed, message-received; a JSON array of
// events, authenticated with the account's callback basic-auth
// credentials) into the port's normalised forms, handed to messaging
// through carrier.Sink. Pacing is messaging's (Paced is true).
//
// It is written on net/http: Bandwidth's Go SDK is deprecated, and the
// adapter uses one endpoint and one callback shape.
package bandwidth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carrierhttp"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/phone"
)

// DefaultAPIURL is Bandwidth's messaging API; Config.APIURL overrides it.
const DefaultAPIURL = "https://messaging.bandwidth.com"

// CallbackPath is where Bandwidth posts an account's callbacks:
// CallbackPath + "/" + the carrier account's id (set it as the callback
// URL of the Bandwidth application).
const CallbackPath = "/carrier/bandwidth"

// ErrRateLimited is wrapped by the *carrier.BusyError Send returns when
// Bandwidth answers 429: nothing was sent.
var ErrRateLimited = errors.New("bandwidth: rate limited")

// Config configures one Bandwidth account.
type Config struct {
	AccountID        string // Bandwidth's account id (in the API path)
	Username         string // API user
	Password         string
	ApplicationID    string // the messaging application the numbers belong to
	CallbackUsername string // the application's callback basic-auth credentials
	CallbackPassword string
	APIURL           string        // empty: DefaultAPIURL
	Timeout          time.Duration // one request; 0 means carrierhttp.DefaultTimeout
	Transport        http.RoundTripper
}

// Carrier implements carrier.Carrier with Bandwidth's Messaging API v2.
// Bandwidth takes no idempotency key, so the Twilio adapter's crash window
// applies: a hand-over retried after a lost answer may text twice.
type Carrier struct {
	cfg    Config
	url    string
	client *http.Client
	log    *slog.Logger
}

// New checks cfg and returns the adapter.
func New(cfg Config, log *slog.Logger) (*Carrier, error) {
	for name, v := range map[string]string{"account_id": cfg.AccountID, "username": cfg.Username, "password": cfg.Password,
		"application_id": cfg.ApplicationID, "callback_username": cfg.CallbackUsername, "callback_password": cfg.CallbackPassword} {
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("bandwidth: %s is required", name)
		}
	}
	api, client, err := carrierhttp.API("bandwidth", cfg.APIURL, DefaultAPIURL, cfg.Timeout, cfg.Transport)
	if err != nil {
		return nil, err
	}
	return &Carrier{cfg: cfg, url: api + "/api/v2/users/" + url.PathEscape(cfg.AccountID) + "/messages", client: client, log: log}, nil
}

// Name is "bandwidth".
func (c *Carrier) Name() string { return "bandwidth" }

// Paced is true: Bandwidth queues each number's excess at its throughput.
func (c *Carrier) Paced(context.Context) (bool, error) { return true, nil }

// NumberFault implements carrier.FaultClassifier.
func (c *Carrier) NumberFault(code string) domain.NumberFault { return NumberFault(code) }

// sendRequest is the body of POST /api/v2/users/{accountId}/messages
// (https://dev.bandwidth.com/apis/messaging/#operation/createMessage).
type sendRequest struct {
	ApplicationID string   `json:"applicationId"`
	To            []string `json:"to"`
	From          string   `json:"from"`
	Text          string   `json:"text"`
	Tag           string   `json:"tag"`
}

// apiMessage is the part of a message the adapter reads.
type apiMessage struct {
	ID   string   `json:"id"`
	Tag  string   `json:"tag"`
	From string   `json:"from"`
	To   []string `json:"to"`
	Text string   `json:"text"`
}

// apiError is Bandwidth's error body.
type apiError struct {
	Type        string `json:"type"`
	Description string `json:"description"`
	FieldErrors []struct {
		FieldName   string `json:"fieldName"`
		Description string `json:"description"`
	} `json:"fieldErrors"`
}

// permanent reports whether a 400 is about this text (its recipient or
// body), so that asking again cannot succeed; one about the application
// or the sender is the operator's to fix, and retried.
func (e *apiError) permanent(status int) bool {
	if status != http.StatusBadRequest {
		return false
	}
	if len(e.FieldErrors) == 0 {
		return e.Type == "request-validation"
	}
	for _, f := range e.FieldErrors {
		if f.FieldName != "to" && f.FieldName != "text" {
			return false
		}
	}
	return true
}

// Send creates the text at Bandwidth, tagged with the delivery id, which
// every callback about it carries back. 429 comes back as a
// *carrier.BusyError; a 400 about the recipient or the body as a
// *carrier.PermanentError with Bandwidth's error type as its code; anything
// else (credentials, application, 5xx, no answer) as a transient error.
func (c *Carrier) Send(ctx context.Context, m carrier.Message) (carrier.Receipt, error) {
	req := sendRequest{ApplicationID: c.cfg.ApplicationID, To: []string{m.To}, From: m.From, Text: m.Body, Tag: m.DeliveryID}
	ans, err := carrierhttp.PostJSON(ctx, c.client, c.url, req, func(r *http.Request) {
		r.SetBasicAuth(c.cfg.Username, c.cfg.Password)
	})
	if err != nil {
		return carrier.Receipt{}, fmt.Errorf("bandwidth send %s: %w", m.DeliveryID, err)
	}
	if ans.Status/100 == 2 {
		var out apiMessage
		if err := json.Unmarshal(ans.Body, &out); err != nil || out.ID == "" {
			return carrier.Receipt{}, fmt.Errorf("bandwidth send %s: accepted without a message id", m.DeliveryID)
		}
		return carrier.Receipt{ProviderMessageID: out.ID, Status: "accepted"}, nil
	}
	var e apiError
	if json.Unmarshal(ans.Body, &e) != nil || e.Type == "" {
		e = apiError{Type: strings.ToLower(strings.ReplaceAll(http.StatusText(ans.Status), " ", "-"))}
	}
	msg := e.Description
	for _, f := range e.FieldErrors {
		msg += "; " + f.FieldName + ": " + f.Description
	}
	msg = carrierhttp.MaskNumbers(msg)
	switch {
	case ans.Status == http.StatusTooManyRequests:
		return carrier.Receipt{}, &carrier.BusyError{RetryAfter: ans.RetryAfter,
			Err: fmt.Errorf("bandwidth send %s from %s: %w", m.DeliveryID, phone.Mask(m.From), ErrRateLimited)}
	case e.permanent(ans.Status):
		c.log.Info("bandwidth refused text", "delivery_id", m.DeliveryID, "to", phone.Mask(m.To), "code", e.Type)
		if msg == "" {
			msg = e.Type
		}
		return carrier.Receipt{}, &carrier.PermanentError{Code: e.Type, Message: msg}
	default:
		return carrier.Receipt{}, fmt.Errorf("bandwidth send %s: HTTP %d %s: %s", m.DeliveryID, ans.Status, e.Type, msg)
	}
}
