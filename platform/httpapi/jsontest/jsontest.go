// Package jsontest makes the strings that the tests of a JSON encoder
// standing in for encoding/json feed it (httpapi.JSONFormat, the webhooks
// event log's Marshal): every byte, and random mixes of bytes and runes
// that encoding/json escapes, replaces or passes through.
package jsontest

import (
	"math/rand/v2"
	"unicode/utf8"
)

// EveryByte is the string of the bytes 0 to 255, in order.
func EveryByte() string {
	b := make([]byte, 0, 256)
	for c := range 256 {
		b = append(b, byte(c))
	}
	return string(b)
}

// Random is a string of up to 39 pieces from rng, each a random byte, an
// ASCII byte, or the UTF-8 of a random rune of any plane (surrogates and
// all: utf8 writes those as U+FFFD). The same rng state gives the same
// string.
func Random(rng *rand.Rand) string {
	b := make([]byte, 0, 40)
	for range rng.IntN(40) {
		switch rng.IntN(4) {
		case 0:
			b = append(b, byte(rng.IntN(256)))
		case 1:
			b = append(b, byte(rng.IntN(128)))
		default:
			b = utf8.AppendRune(b, rune(rng.IntN(0x110000)))
		}
	}
	return string(b)
}
