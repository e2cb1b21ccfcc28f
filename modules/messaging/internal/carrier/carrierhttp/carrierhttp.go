// Package carrierhttp holds what the HTTP carrier adapters share: the
// checks of their configured URLs and the client their API is reached
// with, the service's error envelope for refused callbacks, bounded body
// reads, a JSON request helper with the answer's status and Retry-After,
// and the masking of phone numbers in carriers' free-text error messages.
package carrierhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// DefaultTimeout bounds one request to a carrier's API unless the
// adapter's configuration sets another.
const DefaultTimeout = 10 * time.Second

// AbsoluteURL reports whether s is an absolute http(s) URL.
func AbsoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// API resolves a carrier account's API: its base URL (raw without trailing
// slashes; def when raw is empty) and the client to reach it with (see
// Client; timeout 0 or less means DefaultTimeout). The error, naming the
// carrier (name), says that the base URL is not an absolute http(s) URL.
func API(name, raw, def string, timeout time.Duration, transport http.RoundTripper) (string, *http.Client, error) {
	base := strings.TrimRight(raw, "/")
	if base == "" {
		base = def
	}
	if !AbsoluteURL(base) {
		return "", nil, fmt.Errorf("%s: api_url must be an absolute http(s) URL", name)
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return base, Client(timeout, transport), nil
}

// MaxCallbackBytes bounds a callback's body; carriers' are a few KB.
const MaxCallbackBytes = 64 << 10

// WriteError answers with the service's error envelope.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	type detail struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		Error detail `json:"error"`
	}{detail{code, message}})
}

// ReadCallback checks that r is a POST and reads its body (at most
// MaxCallbackBytes), answering 405 or 400 itself when it cannot; what names
// the callbacks in the answer ("Telnyx webhooks").
func ReadCallback(w http.ResponseWriter, r *http.Request, what string) ([]byte, bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		WriteError(w, http.StatusMethodNotAllowed, httpapi.CodeMethodNotAllowed, what+" are POST")
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxCallbackBytes))
	if err != nil {
		WriteError(w, http.StatusBadRequest, fault.CodeInvalidRequest, "the body could not be read or is too large")
		return nil, false
	}
	return body, true
}

// Answer is a carrier API's answer to one request.
type Answer struct {
	Status     int           // HTTP status
	RetryAfter time.Duration // Retry-After in seconds, when given
	Body       []byte        // at most 1 MiB of it
}

// PostJSON sends v as JSON to url with the headers set by auth and reads the
// answer. An error means no answer arrived (network, timeout, context).
func PostJSON(ctx context.Context, client *http.Client, url string, v any, auth func(*http.Request)) (Answer, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return Answer{}, fmt.Errorf("encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	auth(req)
	resp, err := client.Do(req)
	if err != nil {
		return Answer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Answer{}, fmt.Errorf("read answer: %w", err)
	}
	a := Answer{Status: resp.StatusCode, Body: raw}
	if s, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && s > 0 {
		a.RetryAfter = time.Duration(s) * time.Second
	}
	return a, nil
}

// Client returns an HTTP client for a carrier's API: timeout per request,
// no redirects followed, transport (nil: a clone of the default one).
func Client(timeout time.Duration, transport http.RoundTripper) *http.Client {
	if transport == nil {
		transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &http.Client{Transport: transport, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// MaskNumbers replaces every run of seven or more digits (with the
// separators phone numbers are written with) by its masked form, so that
// carriers' error messages, which often repeat the number, can be logged
// and stored.
func MaskNumbers(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		opens := (rs[i] == '+' || rs[i] == '(') && i+1 < len(rs) && isDigit(rs[i+1])
		if !isDigit(rs[i]) && !opens {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j, digits := i, []rune{}
		for j < len(rs) && (isDigit(rs[j]) || strings.ContainsRune("+ -().", rs[j])) {
			if isDigit(rs[j]) {
				digits = append(digits, rs[j])
			}
			j++
		}
		for j > i && !isDigit(rs[j-1]) { // give back trailing separators
			j--
		}
		if len(digits) >= 7 {
			b.WriteString(phone.Mask(string(digits)))
		} else {
			b.WriteString(string(rs[i:j]))
		}
		i = j
	}
	return b.String()
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }
