// Package telnyx is the Telnyx adapter of messaging's carrier port. It
// sends texts through Telnyx's Messaging API v2 (POST /v2/messages, a
// bearer API key) with a per-text webhook URL naming the delivery, and
// turns Telnyx's signed webhooks (message.sent, message.finalized,
// message.received) into the port's normalised forms, handed to messaging
// through carrier.Sink. Pacing is not the adapter's: messaging plans each
// number's texts at its throughput (Paced is true).
//
// It is written on net/http rather than Telnyx's Go SDK: the adapter uses
// one endpoint and one webhook shape, the SDK's generated client adds a
// large dependency for them, and the fake (telnyxtest) is then checked
// against the wire format the documentation states rather than against the
// SDK's own encoding.
package telnyx

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
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

// DefaultAPIURL is Telnyx's API; Config.APIURL overrides it (tests).
const DefaultAPIURL = "https://api.telnyx.com"

// CallbackPath is where Telnyx posts an account's webhooks:
// CallbackPath + "/" + the carrier account's id.
const CallbackPath = "/carrier/telnyx"

// ErrRateLimited is wrapped by the *carrier.BusyError Send returns when
// Telnyx answers 429 (error 10011 or 40011): nothing was sent.
var ErrRateLimited = errors.New("telnyx: rate limited")

// Config configures one Telnyx account.
type Config struct {
	// AccountID is teamtext's carrier-account id: webhooks come back to
	// PublicBaseURL + CallbackPath + "/" + AccountID.
	AccountID string
	APIKey    string // the v2 API key (bearer)
	// PublicKey is the account's webhook public key: standard base64 of
	// the raw 32-byte Ed25519 key (Mission Control, "Public Key").
	PublicKey          string
	MessagingProfileID string
	// APIURL is the base URL of Telnyx's API; empty means DefaultAPIURL.
	APIURL        string
	PublicBaseURL string
	Timeout       time.Duration     // one request; 0 means carrierhttp.DefaultTimeout
	Transport     http.RoundTripper // nil: a clone of http.DefaultTransport
}

// Carrier implements carrier.Carrier with Telnyx's Messaging API v2.
// Telnyx takes no idempotency key on POST /v2/messages, so a hand-over
// retried after a lost answer may text twice: the crash window described
// on the Twilio adapter applies as is.
type Carrier struct {
	cfg      Config
	apiURL   string
	callback string
	client   *http.Client
	log      *slog.Logger
}

// New checks cfg and returns the adapter.
func New(cfg Config, log *slog.Logger) (*Carrier, error) {
	if cfg.AccountID == "" {
		return nil, errors.New("telnyx: the carrier account id is required")
	}
	if strings.TrimSpace(cfg.APIKey) == "" || strings.ContainsAny(cfg.APIKey, " \r\n") {
		return nil, errors.New("telnyx: api_key is required and has no spaces")
	}
	if _, err := PublicKey(cfg.PublicKey); err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.MessagingProfileID) == "" {
		return nil, errors.New("telnyx: messaging_profile_id is required")
	}
	if !carrierhttp.AbsoluteURL(cfg.PublicBaseURL) {
		return nil, errors.New("telnyx: PUBLIC_BASE_URL must be an absolute http(s) URL")
	}
	api, client, err := carrierhttp.API("telnyx", cfg.APIURL, DefaultAPIURL, cfg.Timeout, cfg.Transport)
	if err != nil {
		return nil, err
	}
	return &Carrier{cfg: cfg, apiURL: api,
		callback: strings.TrimRight(cfg.PublicBaseURL, "/") + CallbackPath + "/" + url.PathEscape(cfg.AccountID),
		client:   client, log: log}, nil
}

// PublicKey decodes a webhook public key (standard base64 of 32 bytes).
func PublicKey(s string) (ed25519.PublicKey, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, errors.New("telnyx: public_key must be standard base64 of a 32-byte Ed25519 key")
	}
	return ed25519.PublicKey(raw), nil
}

// Name is "telnyx".
func (c *Carrier) Name() string { return "telnyx" }

// Paced is true: Telnyx sends each number at its throughput and queues (or
// refuses with 429) the excess, so messaging plans texts at that pace.
func (c *Carrier) Paced(context.Context) (bool, error) { return true, nil }

// NumberFault implements carrier.FaultClassifier.
func (c *Carrier) NumberFault(code string) domain.NumberFault { return NumberFault(code) }

// sendRequest is the body of POST /v2/messages
// (https://developers.telnyx.com/api/messaging/send-message).
type sendRequest struct {
	From               string `json:"from"`
	To                 string `json:"to"`
	Text               string `json:"text"`
	MessagingProfileID string `json:"messaging_profile_id"`
	WebhookURL         string `json:"webhook_url"`
	UseProfileWebhooks bool   `json:"use_profile_webhooks"`
}

// sendAnswer is the part of Telnyx's answer the adapter reads.
type sendAnswer struct {
	Data struct {
		ID string `json:"id"`
		To []struct {
			Status string `json:"status"`
		} `json:"to"`
	} `json:"data"`
	Errors []apiError `json:"errors"`
}

type apiError struct {
	Code   string `json:"code"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
}

// Send creates the text at Telnyx with a webhook URL naming the delivery.
// 429 comes back as a *carrier.BusyError with Telnyx's Retry-After;
// refusals retrying cannot fix (Permanent) as *carrier.PermanentError with
// Telnyx's code; anything else (auth, 5xx, no answer) as a transient error.
func (c *Carrier) Send(ctx context.Context, m carrier.Message) (carrier.Receipt, error) {
	req := sendRequest{From: m.From, To: m.To, Text: m.Body, MessagingProfileID: c.cfg.MessagingProfileID,
		WebhookURL: c.callback + "?d=" + url.QueryEscape(m.DeliveryID)}
	ans, err := carrierhttp.PostJSON(ctx, c.client, c.apiURL+"/v2/messages", req, func(r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	})
	if err != nil {
		return carrier.Receipt{}, fmt.Errorf("telnyx send %s: %w", m.DeliveryID, err)
	}
	var out sendAnswer
	decodeErr := json.Unmarshal(ans.Body, &out)
	if ans.Status/100 == 2 {
		if decodeErr != nil || out.Data.ID == "" {
			// Accepted but unreadable: the text may be out; an error errs
			// on the side of a duplicate, as the Twilio adapter does.
			return carrier.Receipt{}, fmt.Errorf("telnyx send %s: accepted without a message id", m.DeliveryID)
		}
		st := "queued"
		if len(out.Data.To) > 0 && out.Data.To[0].Status != "" {
			st = out.Data.To[0].Status
		}
		return carrier.Receipt{ProviderMessageID: out.Data.ID, Status: st}, nil
	}
	e := apiError{Title: http.StatusText(ans.Status)}
	if len(out.Errors) > 0 {
		e = out.Errors[0]
	}
	msg := carrierhttp.MaskNumbers(strings.TrimSpace(e.Title + ": " + e.Detail))
	switch {
	case ans.Status == http.StatusTooManyRequests || e.Code == "10011" || e.Code == "40011":
		return carrier.Receipt{}, &carrier.BusyError{RetryAfter: ans.RetryAfter,
			Err: fmt.Errorf("telnyx send %s from %s: %w: HTTP %d %s", m.DeliveryID, phone.Mask(m.From), ErrRateLimited, ans.Status, e.Code)}
	case ans.Status/100 == 4 && Permanent(e.Code):
		text := ErrorMessage(e.Code)
		if text == "" {
			text = msg
		}
		c.log.Info("telnyx refused text", "delivery_id", m.DeliveryID, "to", phone.Mask(m.To), "code", e.Code)
		return carrier.Receipt{}, &carrier.PermanentError{Code: e.Code, Message: text}
	default:
		return carrier.Receipt{}, fmt.Errorf("telnyx send %s: HTTP %d, error %s: %s", m.DeliveryID, ans.Status, e.Code, msg)
	}
}
