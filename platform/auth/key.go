// Package auth carries the authenticated principal in the context, defines
// the API key format and its hashing, and provides the bearer middleware.
// Looking keys up is a port (Authenticator) implemented by the roster module.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"math/big"
	"strings"
)

// Key format: "tt_live_" + 40 base62 characters (about 238 bits). The first
// LookupLen characters after the prefix are stored in clear as the lookup
// prefix; the full key is stored only as its SHA-256. A fast hash is right
// here: keys are long random strings, so there is nothing to brute-force.
const (
	KeyPrefix   = "tt_live_"
	keyBodyLen  = 40
	LookupLen   = 12
	KeyLen      = len(KeyPrefix) + keyBodyLen
	base62chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// ErrMalformed means the Authorization header is absent or not a bearer key
// of our shape (-> 401 unauthorized).
var ErrMalformed = errors.New("auth: missing or malformed bearer key")

// NewKey returns a fresh key, its lookup prefix and its hash.
func NewKey() (key, lookup string, hash []byte, err error) {
	var b strings.Builder
	b.WriteString(KeyPrefix)
	max := big.NewInt(int64(len(base62chars)))
	for i := 0; i < keyBodyLen; i++ {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", "", nil, err
		}
		b.WriteByte(base62chars[n.Int64()])
	}
	key = b.String()
	return key, Lookup(key), Hash(key), nil
}

// Lookup returns the stored lookup prefix of a well-formed key.
func Lookup(key string) string { return key[len(KeyPrefix) : len(KeyPrefix)+LookupLen] }

// Hash is the stored form of a key.
func Hash(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// Verify compares a presented key with a stored hash in constant time.
func Verify(key string, hash []byte) bool { return SameHash(Hash(key), hash) }

// SameHash compares a presented key's hash (Hash) with a stored one in
// constant time: Verify for a caller that already hashed the key.
func SameHash(presented, stored []byte) bool {
	return subtle.ConstantTimeCompare(presented, stored) == 1
}

// ParseBearer extracts a well-formed key from an Authorization header value.
// Its work does not depend on where a malformed header differs from a good one.
func ParseBearer(header string) (string, error) {
	const scheme = "Bearer "
	if len(header) != len(scheme)+KeyLen || !strings.EqualFold(header[:len(scheme)], scheme) {
		return "", ErrMalformed
	}
	key := header[len(scheme):]
	ok := subtle.ConstantTimeCompare([]byte(key[:len(KeyPrefix)]), []byte(KeyPrefix))
	bad := 0
	for i := len(KeyPrefix); i < len(key); i++ {
		c := key[i]
		isAlnum := (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
		if !isAlnum {
			bad |= 1
		}
	}
	if ok != 1 || bad != 0 {
		return "", ErrMalformed
	}
	return key, nil
}
