package twilio

import (
	"log/slog"
	"net/http"
	"strings"

	twclient "github.com/twilio/twilio-go/client"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carrierhttp"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// maxCallbackBytes bounds a callback's form body; Twilio's are ~1 KB.
const maxCallbackBytes = carrierhttp.MaxCallbackBytes

// CallbackHandler receives Twilio's status callbacks (POST, form-encoded,
// at StatusPath?d=<delivery id>). It refuses a missing or wrong
// X-Twilio-Signature with 403, and otherwise hands the normalised status to
// messaging's sink (which only stages it) and answers 204 at once.
// Unknown delivery ids are ingestion's business (it logs and ignores them).
type CallbackHandler struct {
	sink      carrier.Sink
	validator twclient.RequestValidator
	baseURL   string
	clock     clock.Clock
	log       *slog.Logger
}

// NewCallbackHandler returns the handler. authToken is TWILIO_AUTH_TOKEN,
// which Twilio signs callbacks with; publicBaseURL is PUBLIC_BASE_URL, the
// start of the URL Twilio called (the signature covers the full URL).
func NewCallbackHandler(sink carrier.Sink, authToken, publicBaseURL string, clk clock.Clock, log *slog.Logger) *CallbackHandler {
	return &CallbackHandler{sink: sink, validator: twclient.NewRequestValidator(authToken),
		baseURL: strings.TrimRight(publicBaseURL, "/"), clock: clk, log: log}
}

// ServeHTTP handles one callback.
func (h *CallbackHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.admit(w, r, "status callbacks", "twilio callback") {
		return
	}
	cb := Callback{
		DeliveryID:    r.URL.Query().Get("d"),
		MessageSid:    first(r.PostForm.Get("MessageSid"), r.PostForm.Get("SmsSid")),
		MessageStatus: first(r.PostForm.Get("MessageStatus"), r.PostForm.Get("SmsStatus")),
		ErrorCode:     r.PostForm.Get("ErrorCode"),
	}
	if cb.DeliveryID == "" {
		h.log.Warn("twilio callback without delivery id ignored", "message_sid", cb.MessageSid)
		carrierhttp.WriteError(w, http.StatusBadRequest, fault.CodeInvalidRequest, "the d query parameter (delivery id) is required")
		return
	}
	args, ok := cb.StatusArgs(h.clock.Now())
	if !ok {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := h.sink.Report(r.Context(), args); err != nil {
		h.log.Error("twilio callback not recorded", "delivery_id", cb.DeliveryID, "message_sid", cb.MessageSid,
			"to", phone.Mask(r.PostForm.Get("To")), "err", err)
		carrierhttp.WriteError(w, http.StatusInternalServerError, fault.CodeServerError, "the status could not be recorded; retry later")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// admit reads a webhook's form and checks its signature, answering 405, 400
// or 403 itself when it cannot go on; what names the webhook in those
// answers ("status callbacks"), logAs in the log line.
func (h *CallbackHandler) admit(w http.ResponseWriter, r *http.Request, what, logAs string) bool {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		carrierhttp.WriteError(w, http.StatusMethodNotAllowed, httpapi.CodeMethodNotAllowed, what+" are POST")
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxCallbackBytes)
	if err := r.ParseForm(); err != nil {
		carrierhttp.WriteError(w, http.StatusBadRequest, fault.CodeInvalidRequest, "the body is not a form")
		return false
	}
	if !h.valid(r) {
		h.log.Warn(logAs+" refused: bad signature", "path", r.URL.Path)
		carrierhttp.WriteError(w, http.StatusForbidden, fault.CodeForbidden, "missing or invalid X-Twilio-Signature")
		return false
	}
	return true
}

// valid checks the signature with twilio-go's validator over the URL Twilio
// called (PUBLIC_BASE_URL + the request target as sent, so proxies that
// strip a path prefix are covered) and the POST parameters.
func (h *CallbackHandler) valid(r *http.Request) bool {
	sig := r.Header.Get("X-Twilio-Signature")
	if sig == "" {
		return false
	}
	target := r.RequestURI
	if target == "" {
		target = r.URL.RequestURI()
	}
	params := make(map[string]string, len(r.PostForm))
	for k, vs := range r.PostForm {
		if len(vs) > 0 {
			params[k] = vs[0]
		}
	}
	return h.validator.Validate(h.baseURL+target, params, sig)
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
