package twilio

import (
	"log/slog"
	"net/http"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carrierhttp"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

// InboundPath is where Twilio posts texts sent to a team number (set it as
// the number's "A message comes in" webhook: PUBLIC_BASE_URL + InboundPath).
const InboundPath = "/carrier/twilio/inbound"

// InboundHandler receives Twilio's incoming-message webhook. It refuses a
// missing or wrong X-Twilio-Signature with 403; otherwise it hands the text
// to messaging's sink (which only stages it) and answers at once
// with an empty TwiML response (teamtext replies, e.g. to HELP, through the
// API, never inline, and sends nothing for STOP: Twilio's own opt-out
// handling does).
type InboundHandler struct {
	CallbackHandler
}

// NewInboundHandler returns the handler; the arguments are NewCallbackHandler's.
func NewInboundHandler(sink carrier.Sink, authToken, publicBaseURL string, clk clock.Clock, log *slog.Logger) *InboundHandler {
	return &InboundHandler{*NewCallbackHandler(sink, authToken, publicBaseURL, clk, log)}
}

// ServeHTTP handles one incoming text.
func (h *InboundHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.admit(w, r, "incoming-message webhooks", "twilio inbound") {
		return
	}
	from, errFrom := phone.Parse(r.PostForm.Get("From"))
	to, errTo := phone.Parse(r.PostForm.Get("To"))
	sid := first(r.PostForm.Get("MessageSid"), r.PostForm.Get("SmsSid"))
	if errFrom != nil || errTo != nil || sid == "" {
		// Not a US number or not a message we can route: acknowledge, so
		// Twilio does not retry, and drop it.
		h.log.Warn("twilio inbound dropped: unroutable", "from", phone.Mask(r.PostForm.Get("From")), "message_sid", sid)
		writeTwiML(w)
		return
	}
	err := h.sink.Receive(r.Context(), carrier.InboundText{From: from.String(), To: to.String(),
		Body: r.PostForm.Get("Body"), ProviderMessageID: sid, ReceivedAt: h.clock.Now().UTC()})
	if err != nil {
		h.log.Error("twilio inbound: enqueue", "err", err, "message_sid", sid)
		carrierhttp.WriteError(w, http.StatusInternalServerError, fault.CodeServerError, "could not record the message; retry")
		return
	}
	writeTwiML(w)
}

func writeTwiML(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/xml")
	_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Response></Response>`))
}
