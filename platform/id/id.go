// Package id makes the service's public identifiers: a short type prefix and
// a UUIDv7 in hex, so ids sort by creation time and say what they name.
package id

import (
	"encoding/hex"

	"github.com/google/uuid"
)

// New returns prefix + "_" + 32 hex characters, e.g. "mem_0193f1c2...".
func New(prefix string) string {
	u := uuid.Must(uuid.NewV7())
	return prefix + "_" + hex.EncodeToString(u[:])
}
