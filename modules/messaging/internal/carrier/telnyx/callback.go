package telnyx

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carrierhttp"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

// Signature headers of Telnyx's webhooks
// (https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks#webhook-signing).
const (
	SignatureHeader = "telnyx-signature-ed25519" // base64 Ed25519 signature of timestamp|body
	TimestampHeader = "telnyx-timestamp"         // Unix seconds
)

// MaxSkew is how far a webhook's timestamp may be from now before it is
// refused as a replay.
const MaxSkew = 5 * time.Minute

// Event is the part of a Telnyx webhook the adapter reads.
type Event struct {
	Data struct {
		EventType  string    `json:"event_type"` // message.sent, message.finalized, message.received
		ID         string    `json:"id"`         // the event's id
		OccurredAt time.Time `json:"occurred_at"`
		Payload    struct {
			ID        string `json:"id"` // the message's id
			Direction string `json:"direction"`
			From      struct {
				PhoneNumber string `json:"phone_number"`
			} `json:"from"`
			To []struct {
				PhoneNumber string `json:"phone_number"`
				Status      string `json:"status"`
			} `json:"to"`
			Text   string     `json:"text"`
			Errors []apiError `json:"errors"`
		} `json:"payload"`
	} `json:"data"`
}

// Handler receives one Telnyx account's webhooks, status reports and
// incoming texts alike, at CallbackPath/{account_id}. It refuses a missing,
// wrong or stale signature with 403 and records nothing then; otherwise it
// hands the normalised report or text to messaging's sink (which only
// stages it) and answers 204 at once.
type Handler struct {
	sink  carrier.Sink
	key   ed25519.PublicKey
	clock clock.Clock
	log   *slog.Logger
}

// NewHandler returns the handler for the account whose webhook public key
// is publicKey (standard base64 of the raw 32-byte key).
func NewHandler(sink carrier.Sink, publicKey string, clk clock.Clock, log *slog.Logger) (*Handler, error) {
	key, err := PublicKey(publicKey)
	if err != nil {
		return nil, err
	}
	return &Handler{sink: sink, key: key, clock: clk, log: log}, nil
}

// ServeHTTP handles one webhook.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := carrierhttp.ReadCallback(w, r, "Telnyx webhooks")
	if !ok {
		return
	}
	if reason := h.verify(r.Header, body); reason != "" {
		h.log.Warn("telnyx webhook refused: "+reason, "path", r.URL.Path)
		carrierhttp.WriteError(w, http.StatusForbidden, fault.CodeForbidden, "missing, invalid or stale telnyx-signature-ed25519")
		return
	}
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil {
		carrierhttp.WriteError(w, http.StatusBadRequest, fault.CodeInvalidRequest, "the body is not a Telnyx event")
		return
	}
	p := &ev.Data.Payload
	var err error
	switch ev.Data.EventType {
	case "message.received":
		err = h.receive(r, &ev)
	case "message.sent", "message.finalized":
		d := r.URL.Query().Get("d")
		if d == "" || len(p.To) == 0 {
			h.log.Warn("telnyx webhook without delivery id ignored", "message_id", p.ID)
			carrierhttp.WriteError(w, http.StatusBadRequest, fault.CodeInvalidRequest, "the d query parameter (delivery id) is required")
			return
		}
		if a, ok := StatusArgs(d, &ev, h.clock.Now()); ok {
			err = h.sink.Report(r.Context(), a)
		}
	}
	if err != nil {
		h.log.Error("telnyx webhook not recorded", "event", ev.Data.EventType, "message_id", p.ID, "err", err)
		carrierhttp.WriteError(w, http.StatusInternalServerError, fault.CodeServerError, "the event could not be recorded; retry later")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) receive(r *http.Request, ev *Event) error {
	p := &ev.Data.Payload
	var to string
	if len(p.To) > 0 {
		to = p.To[0].PhoneNumber
	}
	from, errFrom := phone.Parse(p.From.PhoneNumber)
	toN, errTo := phone.Parse(to)
	if errFrom != nil || errTo != nil || p.ID == "" {
		h.log.Warn("telnyx inbound dropped: unroutable", "from", phone.Mask(p.From.PhoneNumber), "message_id", p.ID)
		return nil
	}
	at := h.clock.Now().UTC()
	return h.sink.Receive(r.Context(), carrier.InboundText{From: from.String(), To: toN.String(), Body: p.Text,
		ProviderMessageID: p.ID, ReceivedAt: at})
}

// verify checks the Ed25519 signature over timestamp|body and the
// timestamp's age; it returns why it refuses, "" when it accepts.
func (h *Handler) verify(hd http.Header, body []byte) string {
	ts, sig := hd.Get(TimestampHeader), hd.Get(SignatureHeader)
	if ts == "" || sig == "" {
		return "unsigned"
	}
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return "bad timestamp"
	}
	if skew := h.clock.Now().Sub(time.Unix(secs, 0)); skew > MaxSkew || skew < -MaxSkew {
		return "stale timestamp"
	}
	raw, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return "bad signature"
	}
	msg := make([]byte, 0, len(ts)+1+len(body))
	msg = append(append(append(msg, ts...), '|'), body...)
	if !ed25519.Verify(h.key, msg, raw) {
		return "bad signature"
	}
	return ""
}

// StatusArgs normalises a status webhook for the ingestion job, stamped now
// (the service's clock, as for every carrier: the order of a delivery's
// reports is ingestion's business, by status rank); ok is false
// when MapStatus ignores its status. Error fields are kept on failures.
func StatusArgs(deliveryID string, ev *Event, now time.Time) (carrier.StatusArgs, bool) {
	p := &ev.Data.Payload
	if len(p.To) == 0 {
		return carrier.StatusArgs{}, false
	}
	carrierStatus := p.To[0].Status
	st, ok := MapStatus(carrierStatus)
	if !ok {
		return carrier.StatusArgs{}, false
	}
	a := carrier.StatusArgs{DeliveryID: deliveryID, ProviderMessageID: p.ID, Status: st, CarrierStatus: carrierStatus, At: now.UTC()}
	if st == "failed" {
		if len(p.Errors) > 0 {
			a.ErrorCode = p.Errors[0].Code
			a.ErrorMessage = ErrorMessage(a.ErrorCode)
			if a.ErrorMessage == "" {
				a.ErrorMessage = carrierhttp.MaskNumbers(p.Errors[0].Title)
			}
		}
		if a.ErrorMessage == "" {
			a.ErrorMessage = carrierStatus
		}
	}
	return a, true
}
