// Package fault is the error vocabulary shared by every layer: a kind that
// the HTTP adapters map to a status, and the spec's machine-readable code.
// Use cases return faults; transports decide how to show them.
package fault

import (
	"errors"
	"fmt"
)

// Kind classifies a failure independently of the transport.
type Kind int

// The kinds, each mapped to one HTTP status by platform/httpapi.
const (
	Internal        Kind = iota // 500
	Invalid                     // 400
	Unauthorized                // 401
	PaymentRequired             // 402
	Forbidden                   // 403
	NotFound                    // 404
	Conflict                    // 409
	TooLarge                    // 413
	RateLimited                 // 429
	Unavailable                 // 503
)

// Error is a failure with a spec error code, a human message and optional
// extra fields that the error envelope carries (e.g. existing_member_id).
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Fields  map[string]any
	Err     error // optional cause, never shown to clients
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error with the same code, so sentinels work with errors.Is.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code && t.Kind == e.Kind
}

// New returns a fault of kind with code and message.
func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// Newf is New with a formatted message.
func Newf(kind Kind, code, format string, args ...any) *Error {
	return New(kind, code, fmt.Sprintf(format, args...))
}

// With returns a copy of e carrying an extra envelope field.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Fields = make(map[string]any, len(e.Fields)+1)
	for k, v := range e.Fields {
		c.Fields[k] = v
	}
	c.Fields[key] = value
	return &c
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var f *Error
	if errors.As(err, &f) {
		return f, true
	}
	return nil, false
}

// Common codes used across modules and platform packages (spec §7). Every
// error code is declared once, as a constant: these, the HTTP edge's own
// in platform/httpapi, the gates' in platform/auth, and each module's in
// its contract package (<m>api); app's TestErrorCodesDeclaredOnce holds it.
const (
	CodeInvalidRequest = "invalid_request"
	CodeNotFound       = "not_found"
	CodeConflict       = "conflict"
	CodeForbidden      = "forbidden"
	CodeServerError    = "server_error"
	CodeUnauthorized   = "unauthorized"
	CodeRateLimited    = "rate_limited"
	CodeInvalidPhone   = "invalid_phone" // a person's or a team's number that is not a valid US number
)

// NotFoundf is the spec's 404 not_found for a named thing.
func NotFoundf(format string, args ...any) *Error {
	return Newf(NotFound, CodeNotFound, format, args...)
}

// Invalidf is the spec's 400 invalid_request.
func Invalidf(format string, args ...any) *Error {
	return Newf(Invalid, CodeInvalidRequest, format, args...)
}
