package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// specSignature is written from spec §6 alone: the signed text is the t
// value as text, a period, and the raw body; v1 is the hex HMAC-SHA256 of
// it, keyed with the whole secret string as UTF-8 (whsec_ included).
func specSignature(secret string, t int64, body []byte) string {
	signed := fmt.Sprintf("%d.%s", t, body)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(signed))
	return hex.EncodeToString(m.Sum(nil))
}

func TestSignMatchesTheSpec(t *testing.T) {
	t.Parallel()
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"id":"evt_1","type":"member.joined","created_at":"2026-11-22T10:00:00.123456Z","team":{"id":"team_1","code":"fc"},"data":{}}`)
	at := time.Unix(1795000000, 0)
	h := Header(at, body, secret)
	require.Equal(t, "t=1795000000,v1="+specSignature(secret, 1795000000, body), h)

	// Keyed by the whole string: dropping the prefix or base64-decoding it gives another signature.
	require.NotEqual(t, specSignature(strings.TrimPrefix(secret, "whsec_"), 1795000000, body), Sign(secret, 1795000000, body))
	// A known vector, computed independently (Python: hmac.new(b"whsec_test", b"1700000000.{}", sha256).hexdigest()).
	require.Equal(t, "35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91", Sign("whsec_test", 1700000000, []byte("{}")))
}

func TestVerify(t *testing.T) {
	t.Parallel()
	secret, body := "whsec_abc", []byte(`{"a":1}`)
	now := time.Unix(1800000000, 0)
	h := Header(now, body, secret)
	require.NoError(t, Verify(secret, h, body, now, Tolerance))
	require.NoError(t, Verify(secret, h, body, now.Add(5*time.Minute), Tolerance))
	require.ErrorIs(t, Verify(secret, h, body, now.Add(5*time.Minute+time.Second), Tolerance), ErrTimestamp)
	require.ErrorIs(t, Verify(secret, h, body, now.Add(-6*time.Minute), Tolerance), ErrTimestamp)
	require.ErrorIs(t, Verify("whsec_other", h, body, now, Tolerance), ErrMismatch)
	require.ErrorIs(t, Verify(secret, h, []byte(`{"a":2}`), now, Tolerance), ErrMismatch)
	// A rotation: several v1 values, one matching.
	rot := fmt.Sprintf("t=%d,v1=%s,v1=%s", now.Unix(), strings.Repeat("00", 32), Sign(secret, now.Unix(), body))
	require.NoError(t, Verify(secret, rot, body, now, Tolerance))
}

func TestParse(t *testing.T) {
	t.Parallel()
	sig := strings.Repeat("ab", 32)
	p, err := Parse("t=12, v1=" + sig + ",v0=zzz")
	require.NoError(t, err)
	require.EqualValues(t, 12, p.Timestamp)
	require.Len(t, p.V1, 1)
	for _, bad := range []string{"", "t=", "t=1", "v1=" + sig, "t=-1,v1=" + sig, "t=+1,v1=" + sig, "t=1,t=2,v1=" + sig,
		"t=1,v1=abc", "t=1,v1=" + strings.Repeat("zz", 32), "t=1;v1=" + sig, "t=1,junk", "t=99999999999999999999,v1=" + sig} {
		_, err := Parse(bad)
		require.Error(t, err, bad)
	}
}

// FuzzParseVerify: Parse never panics, a parsed header has a timestamp and
// signatures, and anything Header produces verifies for its own body only.
func FuzzParseVerify(f *testing.F) {
	f.Add("t=1700000000,v1="+strings.Repeat("0f", 32), "whsec_x", []byte("{}"), int64(1700000000))
	f.Add("t=1,v1=", "", []byte(nil), int64(0))
	f.Add(",,,=,t==1", "whsec_", []byte("\x00\xff"), int64(-5))
	f.Fuzz(func(t *testing.T, header, secret string, body []byte, ts int64) {
		if p, err := Parse(header); err == nil {
			if p.Timestamp < 0 || len(p.V1) == 0 {
				t.Fatalf("parsed %q into %+v", header, p)
			}
		}
		if ts < 0 || ts > 1<<40 {
			return
		}
		at := time.Unix(ts, 0)
		h := Header(at, body, secret)
		if err := Verify(secret, h, body, at, Tolerance); err != nil {
			t.Fatalf("own header %q does not verify: %v", h, err)
		}
		if got := Sign(secret, ts, body); got != specSignature(secret, ts, body) {
			t.Fatalf("Sign differs from the spec's construction")
		}
		if err := Verify(secret, h, append(append([]byte{}, body...), 'x'), at, Tolerance); err == nil {
			t.Fatalf("a changed body verified")
		}
	})
}

// TestHeaderDuringRotation: with two secrets the header carries a v1 for
// each, the new one first; a receiver holding either verifies it.
func TestHeaderDuringRotation(t *testing.T) {
	t.Parallel()
	newer, older, body := "whsec_new", "whsec_old", []byte(`{"a":1}`)
	now := time.Unix(1800000000, 0)
	h := Header(now, body, newer, older)
	require.Equal(t, fmt.Sprintf("t=%d,v1=%s,v1=%s", now.Unix(), Sign(newer, now.Unix(), body), Sign(older, now.Unix(), body)), h)
	require.NoError(t, Verify(newer, h, body, now, Tolerance))
	require.NoError(t, Verify(older, h, body, now, Tolerance))
	require.ErrorIs(t, Verify("whsec_third", h, body, now, Tolerance), ErrMismatch)
}
