// Package secrets seals small secrets the service must keep and use again
// (carrier accounts' credentials) with AES-256-GCM under the operator's
// SECRETS_KEY, so that a copy of the database alone does not reveal them.
//
// Rotation. A sealed value names the key that sealed it (the first 8 bytes
// of the key's SHA-256). To rotate, an operator sets the new key as
// SECRETS_KEY and the old one as SECRETS_KEY_PREVIOUS on every node: values
// sealed under either open, new values are sealed under the new key, and
// `teamtext secrets rotate` reseals every stored value under it. Once that
// reports nothing left under the old key, SECRETS_KEY_PREVIOUS is removed.
package secrets

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// version is the first byte of a sealed value.
const version = 1

const idLen = 8

// ErrNoKey is returned when no SECRETS_KEY is configured, or when a value
// was sealed under a key that is neither SECRETS_KEY nor
// SECRETS_KEY_PREVIOUS.
var ErrNoKey = errors.New("secrets: no key to seal or open with (SECRETS_KEY)")

// ErrTampered is returned for a value that does not open under its key: it
// was changed, or moved to another record (the record's id is bound in).
var ErrTampered = errors.New("secrets: sealed value does not open (changed, or moved from another record)")

type key struct {
	id   []byte
	aead cipher.AEAD
}

// Keys seals with the current key and opens with the current or the
// previous one. The zero value (and nil) has no key: every call answers
// ErrNoKey.
type Keys struct {
	current, previous *key
}

// New reads the keys: each standard base64 of 32 random bytes; current ""
// gives Keys without a key (sealing is refused), previous "" none to
// rotate from.
func New(current, previous string) (*Keys, error) {
	k := &Keys{}
	var err error
	if k.current, err = parse(current, "SECRETS_KEY"); err != nil {
		return nil, err
	}
	if k.previous, err = parse(previous, "SECRETS_KEY_PREVIOUS"); err != nil {
		return nil, err
	}
	if k.current == nil && k.previous != nil {
		return nil, errors.New("secrets: SECRETS_KEY_PREVIOUS is set without SECRETS_KEY")
	}
	return k, nil
}

func parse(s, name string) (*key, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw) != 32 {
		return nil, fmt.Errorf("secrets: %s must be standard base64 of 32 random bytes (openssl rand -base64 32)", name)
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, fmt.Errorf("secrets: %s: %w", name, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secrets: %s: %w", name, err)
	}
	sum := sha256.Sum256(raw)
	return &key{id: sum[:idLen], aead: aead}, nil
}

// Configured reports whether values can be sealed.
func (k *Keys) Configured() bool { return k != nil && k.current != nil }

// Seal encrypts plaintext for the record named by record (bound in as
// additional data, so a sealed value copied to another record does not
// open there).
func (k *Keys) Seal(plaintext []byte, record string) ([]byte, error) {
	if !k.Configured() {
		return nil, ErrNoKey
	}
	nonce := make([]byte, k.current.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("secrets: nonce: %w", err)
	}
	out := make([]byte, 0, 1+idLen+len(nonce)+len(plaintext)+k.current.aead.Overhead())
	out = append(out, version)
	out = append(out, k.current.id...)
	out = append(out, nonce...)
	return k.current.aead.Seal(out, nonce, plaintext, []byte(record)), nil
}

// Open decrypts a sealed value of record.
func (k *Keys) Open(sealed []byte, record string) ([]byte, error) {
	kk, err := k.keyOf(sealed)
	if err != nil {
		return nil, err
	}
	ns := kk.aead.NonceSize()
	if len(sealed) < 1+idLen+ns {
		return nil, ErrTampered
	}
	body := sealed[1+idLen:]
	plain, err := kk.aead.Open(nil, body[:ns], body[ns:], []byte(record))
	if err != nil {
		return nil, ErrTampered
	}
	return plain, nil
}

// Current reports whether sealed was sealed under the current key (a
// rotation leaves such values as they are).
func (k *Keys) Current(sealed []byte) bool {
	kk, err := k.keyOf(sealed)
	return err == nil && kk == k.current
}

func (k *Keys) keyOf(sealed []byte) (*key, error) {
	if len(sealed) < 1+idLen || sealed[0] != version {
		return nil, ErrTampered
	}
	id := sealed[1 : 1+idLen]
	switch {
	case k == nil:
		return nil, ErrNoKey
	case k.current != nil && bytes.Equal(id, k.current.id):
		return k.current, nil
	case k.previous != nil && bytes.Equal(id, k.previous.id):
		return k.previous, nil
	}
	return nil, ErrNoKey
}
