// Package httpapi is the HTTP edge shared by the public and admin APIs: huma
// wiring, the spec's error envelope on every path (router, huma validation,
// handlers, panics), body guards, request ids, request logs and pagination.
package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/platform/fault"
)

// ErrorDetail is the inside of the envelope: {"code","message"} plus any
// extra fields a code documents (e.g. existing_member_id).
type ErrorDetail struct {
	Code    string         `json:"code" doc:"Machine-readable error code (spec §7)." example:"not_found"`
	Message string         `json:"message" doc:"Human-readable explanation; do not parse it." example:"member not found"`
	Fields  map[string]any `json:"-"`
}

// ExtraErrorMembers are the members some codes add next to code and
// message, as the documents declare them. A fault's Fields must use these
// names (the e2e contract test holds them to it: the envelope allows no other member).
func ExtraErrorMembers() map[string]string {
	return map[string]string{
		"existing_member_id":   "With 409 member_exists: the id of the member with the same phone and name.",
		"existing_template_id": "With 409 template_exists: the id of the template with that name.",
		"existing_field_id":    "With 409 field_exists: the id of the custom field with that label or key.",
	}
}

// TransformSchema declares the extra members (huma.SchemaTransformer):
// Fields is a map, which huma cannot describe member by member.
func (ErrorDetail) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	for name, doc := range ExtraErrorMembers() {
		s.Properties[name] = &huma.Schema{Type: huma.TypeString, Description: doc}
	}
	return s
}

// MarshalJSON flattens Fields next to code and message.
func (d ErrorDetail) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(d.Fields)+2)
	for k, v := range d.Fields {
		m[k] = v
	}
	m["code"] = d.Code
	m["message"] = d.Message
	return json.Marshal(m)
}

// Error is every non-2xx answer: {"error":{"code","message",...}}.
type Error struct {
	Detail  ErrorDetail `json:"error"`
	status  int
	headers http.Header
	cause   error
}

// GetStatus returns the HTTP status (huma.StatusError).
func (e *Error) GetStatus() int { return e.status }

// Error implements error.
func (e *Error) Error() string { return e.Detail.Code + ": " + e.Detail.Message }

// Unwrap gives the cause, which is logged and never shown.
func (e *Error) Unwrap() error { return e.cause }

// ContentType makes huma send the envelope as plain JSON, not problem+json.
func (e *Error) ContentType(string) string { return "application/json" }

// GetHeaders returns headers to send with the error (e.g. Retry-After).
func (e *Error) GetHeaders() http.Header { return e.headers }

// NewError builds an envelope error.
func NewError(status int, code, message string) *Error {
	return &Error{status: status, Detail: ErrorDetail{Code: code, Message: message}}
}

// WithHeader returns e with an extra response header.
func (e *Error) WithHeader(k, v string) *Error {
	if e.headers == nil {
		e.headers = http.Header{}
	}
	e.headers.Set(k, v)
	return e
}

var kindStatus = map[fault.Kind]int{
	fault.Internal:        http.StatusInternalServerError,
	fault.Invalid:         http.StatusBadRequest,
	fault.Unauthorized:    http.StatusUnauthorized,
	fault.PaymentRequired: http.StatusPaymentRequired,
	fault.Forbidden:       http.StatusForbidden,
	fault.NotFound:        http.StatusNotFound,
	fault.Conflict:        http.StatusConflict,
	fault.TooLarge:        http.StatusRequestEntityTooLarge,
	fault.RateLimited:     http.StatusTooManyRequests,
	fault.Unavailable:     http.StatusServiceUnavailable,
}

// FromFault maps a use-case fault to the envelope.
func FromFault(f *fault.Error) *Error {
	status, ok := kindStatus[f.Kind]
	if !ok || status >= 500 && f.Kind != fault.Unavailable {
		return internal(f)
	}
	e := NewError(status, f.Code, f.Message)
	e.Detail.Fields = f.Fields
	e.cause = f
	return e
}

// The HTTP edge's own error codes (spec §7): answers the framework, the
// router and the body guards give before any use case runs.
const (
	CodeBadRequest           = "bad_request"
	CodeInvalidJSON          = "invalid_json"
	CodeUnknownField         = "unknown_field"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodePayloadTooLarge      = "payload_too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeNotReady             = "not_ready" // 503 from the readiness probe
)

// statusCodes are the codes for statuses that come from the framework rather
// than from a use case.
var statusCodes = map[int]string{
	http.StatusBadRequest:            fault.CodeInvalidRequest,
	http.StatusUnauthorized:          fault.CodeUnauthorized,
	http.StatusForbidden:             fault.CodeForbidden,
	http.StatusNotFound:              fault.CodeNotFound,
	http.StatusMethodNotAllowed:      CodeMethodNotAllowed,
	http.StatusConflict:              fault.CodeConflict,
	http.StatusRequestEntityTooLarge: CodePayloadTooLarge,
	http.StatusUnsupportedMediaType:  CodeUnsupportedMediaType,
	http.StatusTooManyRequests:       fault.CodeRateLimited,
}

func internal(cause error) *Error {
	e := NewError(http.StatusInternalServerError, fault.CodeServerError, "internal server error; retry later")
	e.cause = cause
	return e
}

// Convert turns whatever huma or a handler produced into the envelope. It is
// the body of huma.NewError, so every error huma writes passes through it.
func Convert(status int, msg string, errs ...error) *Error {
	for _, err := range errs {
		var e *Error
		if errors.As(err, &e) {
			return e
		}
		if f, ok := fault.As(err); ok {
			return FromFault(f)
		}
	}
	details := make([]*huma.ErrorDetail, 0, len(errs))
	for _, err := range errs {
		var d huma.ErrorDetailer
		if errors.As(err, &d) {
			details = append(details, d.ErrorDetail())
		}
	}
	switch {
	case status == http.StatusUnprocessableEntity || status == http.StatusBadRequest && msg == "validation failed" && !isBodyParse(details):
		for _, d := range details {
			if strings.Contains(d.Message, "unexpected property") {
				return NewError(http.StatusBadRequest, CodeUnknownField, "unknown field "+fieldName(d.Location))
			}
		}
		return NewError(http.StatusBadRequest, fault.CodeInvalidRequest, describe(details, msg))
	case status == http.StatusBadRequest && isBodyParse(details):
		return NewError(http.StatusBadRequest, CodeInvalidJSON, "request body is not valid JSON")
	case status >= 500:
		return internal(errors.Join(append([]error{errors.New(msg)}, errs...)...))
	}
	code, ok := statusCodes[status]
	if !ok {
		code = fault.CodeInvalidRequest
		if status < 400 || status > 499 {
			return internal(errors.New(msg))
		}
	}
	return NewError(status, code, msg)
}

// isBodyParse recognises huma's report of an unparseable body: a detail at
// "body" whose value is the raw text.
func isBodyParse(details []*huma.ErrorDetail) bool {
	for _, d := range details {
		if d.Location == "body" && d.Value != nil {
			if _, isString := d.Value.(string); isString {
				return true
			}
		}
	}
	return false
}

func fieldName(loc string) string {
	loc = strings.TrimPrefix(loc, "body.")
	if loc == "" {
		return "in body"
	}
	return strings.TrimPrefix(loc, "body")
}

func describe(details []*huma.ErrorDetail, fallback string) string {
	if len(details) == 0 {
		return fallback
	}
	parts := make([]string, 0, len(details))
	for _, d := range details {
		if d.Location != "" {
			parts = append(parts, d.Location+": "+d.Message)
		} else {
			parts = append(parts, d.Message)
		}
	}
	return strings.Join(parts, "; ")
}

var installOnce sync.Once

// installErrorModel replaces huma's package-level error constructors (huma
// offers no per-API hook) so that both APIs speak the spec's envelope, and
// sets huma's other process-wide switches. It also records 5xx causes on
// the request for the request log.
func installErrorModel() {
	installOnce.Do(func() {
		huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
			return Convert(status, msg, errs...)
		}
		huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
			e := Convert(status, msg, errs...)
			if ctx != nil && e.cause != nil {
				if st := stateFrom(ctx.Context()); st != nil {
					st.err = e.cause
				}
			}
			return e
		}
		huma.ValidateStrictCasing = true
		// A list is an array, never null: every list the service sends is
		// one ([] when empty), and a request's null list is refused.
		huma.DefaultArrayNullable = false
	})
}

// StatusOf is the HTTP status of a fault kind (500 for an unknown one),
// for faces other than the JSON APIs (the dashboard).
func StatusOf(k fault.Kind) int {
	if s, ok := kindStatus[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}
