package bandwidth

import (
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carrierhttp"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

// Event is one element of a callback's JSON array.
type Event struct {
	Type        string     `json:"type"`
	Time        string     `json:"time"`
	Description string     `json:"description"`
	To          string     `json:"to"`
	ErrorCode   int        `json:"errorCode"`
	Message     apiMessage `json:"message"`
}

// Handler receives one Bandwidth account's callbacks at CallbackPath/{account_id}.
// Callbacks without the account's callback credentials (basic auth) are
// refused with 403 and record nothing; otherwise each event is handed to
// messaging's sink (which only stages it) and the handler answers 204.
type Handler struct {
	sink       carrier.Sink
	user, pass []byte
	clock      clock.Clock
	log        *slog.Logger
}

// NewHandler returns the handler for the account's callback credentials.
func NewHandler(sink carrier.Sink, callbackUsername, callbackPassword string, clk clock.Clock, log *slog.Logger) *Handler {
	return &Handler{sink: sink, user: []byte(callbackUsername), pass: []byte(callbackPassword), clock: clk, log: log}
}

// ServeHTTP handles one callback (an array of events).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := carrierhttp.ReadCallback(w, r, "Bandwidth callbacks")
	if !ok {
		return
	}
	user, pass, ok := r.BasicAuth()
	// Both compared in full, in constant time, whatever the first says.
	okUser := subtle.ConstantTimeCompare([]byte(user), h.user)
	okPass := subtle.ConstantTimeCompare([]byte(pass), h.pass)
	if !ok || okUser&okPass != 1 {
		h.log.Warn("bandwidth callback refused: bad credentials", "path", r.URL.Path)
		carrierhttp.WriteError(w, http.StatusForbidden, fault.CodeForbidden, "missing or wrong callback credentials")
		return
	}
	var evs []Event
	if err := json.Unmarshal(body, &evs); err != nil {
		carrierhttp.WriteError(w, http.StatusBadRequest, fault.CodeInvalidRequest, "the body is not an array of Bandwidth events")
		return
	}
	for i := range evs {
		if err := h.handle(r, &evs[i]); err != nil {
			h.log.Error("bandwidth callback not recorded", "type", evs[i].Type, "message_id", evs[i].Message.ID, "err", err)
			carrierhttp.WriteError(w, http.StatusInternalServerError, fault.CodeServerError, "the event could not be recorded; retry later")
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) handle(r *http.Request, ev *Event) error {
	if ev.Type == "message-received" {
		from, errFrom := phone.Parse(ev.Message.From)
		to, errTo := phone.Parse(ev.To)
		if errFrom != nil || errTo != nil || ev.Message.ID == "" {
			h.log.Warn("bandwidth inbound dropped: unroutable", "from", phone.Mask(ev.Message.From), "message_id", ev.Message.ID)
			return nil
		}
		return h.sink.Receive(r.Context(), carrier.InboundText{From: from.String(), To: to.String(), Body: ev.Message.Text,
			ProviderMessageID: ev.Message.ID, ReceivedAt: h.clock.Now().UTC()})
	}
	a, ok := h.StatusArgs(ev)
	if !ok {
		return nil
	}
	if a.DeliveryID == "" {
		h.log.Warn("bandwidth callback without tag ignored", "message_id", ev.Message.ID)
		return nil
	}
	return h.sink.Report(r.Context(), a)
}

// StatusArgs normalises a status event for the ingestion job (the delivery
// id is the message's tag), stamped with the service's clock; ok is false
// for types MapStatus ignores.
func (h *Handler) StatusArgs(ev *Event) (carrier.StatusArgs, bool) {
	st, ok := MapStatus(ev.Type)
	if !ok {
		return carrier.StatusArgs{}, false
	}
	a := carrier.StatusArgs{DeliveryID: ev.Message.Tag, ProviderMessageID: ev.Message.ID, Status: st, CarrierStatus: ev.Type,
		At: h.clock.Now().UTC()}
	if st == "failed" {
		if ev.ErrorCode != 0 {
			a.ErrorCode = strconv.Itoa(ev.ErrorCode)
		}
		a.ErrorMessage = ErrorMessage(a.ErrorCode)
		if a.ErrorMessage == "" {
			a.ErrorMessage = carrierhttp.MaskNumbers(ev.Description)
		}
		if a.ErrorMessage == "" {
			a.ErrorMessage = ev.Type
		}
	}
	return a, true
}
