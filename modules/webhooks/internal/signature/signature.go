// Package signature signs webhook deliveries and verifies signatures, as
// spec §6 describes: X-Service-Signature is "t=<unix seconds>,v1=<hex>",
// where v1 is the hex HMAC-SHA256 of the t value, a period and the raw body,
// keyed with the whole secret string ("whsec_" included, not decoded).
package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Tolerance is how far a receiver lets the timestamp be from its clock.
const Tolerance = 5 * time.Minute

// Errors of Parse and Verify.
var (
	ErrMalformed   = errors.New("signature: malformed header")
	ErrNoSignature = errors.New("signature: no v1 signature")
	ErrTimestamp   = errors.New("signature: timestamp outside the tolerance")
	ErrMismatch    = errors.New("signature: no v1 signature matches")
)

// Sign returns the hex v1 signature of body sent at unix time t.
func Sign(secret string, t int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(strconv.AppendInt(nil, t, 10))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// Header returns the X-Service-Signature value for body sent at t, with
// one v1 signature per secret, in order: during a secret rotation's
// overlap the new secret and the one it replaced both sign, so a receiver
// that checks any v1 with either secret accepts the delivery.
func Header(t time.Time, body []byte, secrets ...string) string {
	ts := t.Unix()
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(strconv.FormatInt(ts, 10))
	for _, s := range secrets {
		b.WriteString(",v1=")
		b.WriteString(Sign(s, ts, body))
	}
	return b.String()
}

// Parsed is a decoded signature header.
type Parsed struct {
	Timestamp int64
	V1        [][]byte // every v1 signature given (several during a secret rotation)
}

// Parse decodes "t=<unix>,v1=<hex>[,v1=<hex>...]". Unknown keys are ignored
// so that later schemes can be added; t must appear once, as a
// non-negative decimal integer, and each v1 must be 64 hex digits.
func Parse(header string) (Parsed, error) {
	var p Parsed
	seenT := false
	for _, item := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return Parsed{}, fmt.Errorf("%w: item %q is not key=value", ErrMalformed, item)
		}
		switch k {
		case "t":
			if seenT {
				return Parsed{}, fmt.Errorf("%w: t given twice", ErrMalformed)
			}
			if v == "" || strings.TrimLeft(v, "0123456789") != "" || len(v) > 18 {
				return Parsed{}, fmt.Errorf("%w: t is not a unix time", ErrMalformed)
			}
			ts, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return Parsed{}, fmt.Errorf("%w: t: %v", ErrMalformed, err)
			}
			p.Timestamp, seenT = ts, true
		case "v1":
			if len(v) != 2*sha256.Size {
				return Parsed{}, fmt.Errorf("%w: v1 must be %d hex digits", ErrMalformed, 2*sha256.Size)
			}
			sig, err := hex.DecodeString(v)
			if err != nil {
				return Parsed{}, fmt.Errorf("%w: v1 is not hex", ErrMalformed)
			}
			p.V1 = append(p.V1, sig)
		}
	}
	if !seenT {
		return Parsed{}, fmt.Errorf("%w: no t", ErrMalformed)
	}
	if len(p.V1) == 0 {
		return Parsed{}, ErrNoSignature
	}
	return p, nil
}

// Verify checks a delivery as a receiver should: the header parses, its
// timestamp is within tolerance of now, and one v1 signature matches body
// (compared in constant time).
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	p, err := Parse(header)
	if err != nil {
		return err
	}
	skew := now.Sub(time.Unix(p.Timestamp, 0))
	if skew < -tolerance || skew > tolerance {
		return ErrTimestamp
	}
	want, _ := hex.DecodeString(Sign(secret, p.Timestamp, body))
	for _, got := range p.V1 {
		if hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrMismatch
}
