package text

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestVisible(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"Ann":                      true,
		" Ann\u200b ":              true, // visible with an invisible inside
		"李":                        true,
		"🏈":                        true,
		".":                        true,
		"":                         false,
		"   \t\n":                  false,
		"\u200b":                   false, // zero-width space
		"\u200c\u200d\u2060\ufeff": false, // joiners, word joiner, BOM
		"\u200e\u202e":             false, // bidi marks
		"\u3164\u2800":             false, // Hangul filler, braille blank
		"\u00a0\u3000":             false, // no-break and ideographic spaces
	} {
		require.Equal(t, want, Visible(s), "%q", s)
	}
}

func TestStorable(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Running late":      "Running late",
		"a\x00b":            "ab",
		"\x00":              "",
		"caf\xe9 ok":        "caf\uFFFD ok",
		"\xed\xa0\x80 lone": "\uFFFD lone", // an encoded lone surrogate is invalid UTF-8
		"Olá ⚽\x00\xff":     "Olá ⚽\uFFFD",
	} {
		got := Storable(in)
		require.Equal(t, want, got, "Storable(%q)", in)
		require.True(t, utf8.ValidString(got) && !strings.ContainsRune(got, 0), "Storable(%q) = %q", in, got)
	}
}
