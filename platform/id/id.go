// Package id makes the service's public identifiers: a short type prefix and
// a UUIDv7 in hex, so ids sort by creation time and say what they name.
package id

import (
	"encoding/hex"
	"fmt"

	"github.com/google/uuid"
)

// New returns prefix + "_" + 32 hex characters, e.g. "mem_0193f1c2...".
func New(prefix string) string {
	u := uuid.Must(uuid.NewV7())
	return prefix + "_" + hex.EncodeToString(u[:])
}

// Series names up to 2³² things made together (a broadcast's deliveries)
// from one UUIDv7: its last 32 random bits are replaced by the item's
// position, so the ids keep New's form, sort by position after the
// series' creation time, and can be built by SQL from Head (see At).
// Two series made in the same millisecond still differ in 42 random bits.
type Series struct{ head string }

// NewSeries starts a series of ids with prefix.
func NewSeries(prefix string) Series {
	s := New(prefix)
	return Series{head: s[:len(s)-8]}
}

// Head is every id's text before its last 8 hex characters: SQL builds
// item n's id as head || lpad(to_hex(n), 8, '0').
func (s Series) Head() string { return s.head }

// At returns the id of item n.
func (s Series) At(n uint32) string { return fmt.Sprintf("%s%08x", s.head, n) }
