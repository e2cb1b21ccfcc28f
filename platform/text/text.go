// Package text holds the rules about human-visible text that every module
// shares.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible reports whether s shows anything to a reader: at least one
// character that is neither white space nor invisible — format controls
// (zero-width space and joiners, word joiner, byte-order mark, bidi marks:
// Unicode category Cf), other controls, and the blank fillers that render
// as nothing (Hangul fillers, braille blank). Names must be visible: a
// name of zero-width characters alone would show as an empty line.
func Visible(s string) bool {
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.In(r, unicode.Cf, unicode.Cc) || blank(r) {
			continue
		}
		return true
	}
	return false
}

// blank are letters and symbols that render as empty space.
func blank(r rune) bool {
	switch r {
	case '\u115F', '\u1160', '\u3164', '\uFFA0', // Hangul fillers
		'\u2800': // braille pattern blank
		return true
	}
	return false
}

// Storable returns s as Postgres can store it: NUL characters dropped and
// invalid UTF-8 replaced with U+FFFD. It is for text someone else wrote
// that must be kept rather than refused — a carrier's inbound texts and
// report fields — where the API's own input is refused at the edge.
func Storable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
