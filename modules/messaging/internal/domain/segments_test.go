// Tests for SMS segment counting. Every expectation below is worked out by
// hand from the rules in segments.go (160/153 septets, 70/67 code units, no
// character split across segments), not taken from the implementation.

package domain

import (
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestSegments(t *testing.T) {
	t.Parallel()
	rep := strings.Repeat
	const (
		a  = "a" // GSM-7 basic: 1 septet
		zh = "ж" // U+0436, not GSM-7, BMP: 1 UCS-2 unit
	)
	cases := []struct {
		name     string
		text     string
		encoding Encoding
		units    int
		segments int
	}{
		// Empty text: no segments, GSM-7.
		{"empty", "", GSM7, 0, 0},
		{"one char", "a", GSM7, 1, 1},
		// 13 basic characters.
		{"hello", "Hello, world!", GSM7, 13, 1},

		// GSM-7 single/multi boundaries.
		// 160 septets fit one segment.
		{"160 plain", rep(a, 160), GSM7, 160, 1},
		// 161 > 160: multi-part, 153 + 8.
		{"161 plain", rep(a, 161), GSM7, 161, 2},
		// 306 = 153 + 153.
		{"306 plain", rep(a, 306), GSM7, 306, 2},
		// 307 = 153 + 153 + 1.
		{"307 plain", rep(a, 307), GSM7, 307, 3},

		// Extension characters count 2.
		// € is ESC+e: 2 septets.
		{"euro", "€", GSM7, 2, 1},
		// 158 + 2 = 160 septets: still one segment.
		{"158 plain + euro", rep(a, 158) + "€", GSM7, 160, 1},
		// 159 + 2 = 161 septets: multi-part. 153 plain | 6 plain + € (8): 2.
		{"159 plain + euro", rep(a, 159) + "€", GSM7, 161, 2},
		// 152 + 2 = 154 ≤ 160 septets: one segment. The 153-septet boundary
		// applies only to multi-part texts.
		{"152 plain + brace", rep(a, 152) + "{", GSM7, 154, 1},
		// 152 + 2 + 7 = 161 septets: multi-part. Segment 1 holds 152 plain
		// and has 1 septet left, too little for {, which moves whole to
		// segment 2 (the septet is wasted): 152 | { + 7 = 9 → 2 segments.
		{"152 plain + brace + 7 plain", rep(a, 152) + "{" + rep(a, 7), GSM7, 161, 2},
		// 151 + 2 = 153 ≤ 160: one segment.
		{"151 plain + brace", rep(a, 151) + "{", GSM7, 153, 1},
		// 151 + 2 + 8 = 161: multi-part. 151 plain + { is exactly 153, so
		// nothing is wasted: 153 | 8 → 2 segments.
		{"151 plain + brace + 8 plain", rep(a, 151) + "{" + rep(a, 8), GSM7, 161, 2},
		// The wasted septet changes the count: 152 + 2 + 152 = 306 septets,
		// which would be exactly 2 × 153. But ^ cannot take the last septet
		// of segment 1, so: 152 (1 wasted) | ^ + 151 plain = 153 | 1 → 3.
		{"wasted septet adds a segment", rep(a, 152) + "^" + rep(a, 152), GSM7, 306, 3},
		// 80 × 2 = 160 septets: one segment.
		{"80 euros", rep("€", 80), GSM7, 160, 1},
		// 81 × 2 = 162: multi-part. 76 € fill 152 septets and the 153rd is
		// wasted, so 76 | 5 → 2 segments.
		{"81 euros", rep("€", 81), GSM7, 162, 2},
		// 153 × 2 = 306 (2 × 153), but only 76 € fit per segment:
		// 76 | 76 | 1 → 3 segments.
		{"153 euros", rep("€", 153), GSM7, 306, 3},
		// Form feed is an extension character: 1 + 2 + 1.
		{"form feed", "a\fb", GSM7, 4, 1},
		// All ten extension characters (\f ^ { } \ [ ~ ] | €): 10 × 2 = 20.
		{"extension table", "\f^{}\\[~]|€", GSM7, 20, 1},

		// Line breaks are basic characters: 1 septet each.
		// "line1" 5 + \r 1 + \n 1 + "line2" 5 = 12.
		{"crlf", "line1\r\nline2", GSM7, 12, 1},
		// 160 newlines: 160 septets, one segment.
		{"160 newlines", rep("\n", 160), GSM7, 160, 1},
		// Greek capitals and Ç are basic: 4.
		{"greek and c cedilla", "ΔΦΓÇ", GSM7, 4, 1},
		// The whole default alphabet (127 characters, ESC excluded): 127.
		{"whole basic set", strings.ReplaceAll(gsm7BasicForTest, "\x1b", ""), GSM7, 127, 1},

		// One non-GSM character makes the whole text UCS-2.
		// ç (lowercase) is not GSM-7 (only Ç is): 5 code units.
		{"lowercase c cedilla", "ça va", UCS2, 5, 1},
		// Curly apostrophe U+2019: I t ’ s = 4 code units.
		{"curly quote", "It’s", UCS2, 4, 1},
		// Backtick is not GSM-7.
		{"backtick", "`", UCS2, 1, 1},
		// Lowercase Greek is not GSM-7.
		{"greek alpha", "α", UCS2, 1, 1},
		// 159 + 1 = 160 code units > 70: 67 | 67 | 26 → 3 segments.
		{"159 plain + c cedilla", rep(a, 159) + "ç", UCS2, 160, 3},
		// In UCS-2, GSM extension characters are 1 code unit: { ж } = 3.
		{"extension chars in UCS-2", "{ж}", UCS2, 3, 1},
		// € is BMP (U+20AC): € ж = 2.
		{"euro in UCS-2", "€ж", UCS2, 2, 1},

		// UCS-2 single/multi boundaries.
		// 70 units fit one segment.
		{"70 ucs2", rep(zh, 70), UCS2, 70, 1},
		// 71 > 70: 67 | 4.
		{"71 ucs2", rep(zh, 71), UCS2, 71, 2},
		// 134 = 67 + 67.
		{"134 ucs2", rep(zh, 134), UCS2, 134, 2},
		// 135 = 67 + 67 + 1.
		{"135 ucs2", rep(zh, 135), UCS2, 135, 3},

		// Astral characters are surrogate pairs: 2 code units.
		// A single emoji makes UCS-2: 2 units.
		{"emoji", "😀", UCS2, 2, 1},
		// H i space = 3, + 2 = 5.
		{"text + emoji", "Hi 😀", UCS2, 5, 1},
		// Non-emoji astral (U+1D11E musical G clef): 2.
		{"astral clef", "𝄞", UCS2, 2, 1},
		// 35 × 2 = 70: one segment.
		{"35 emoji", rep("😀", 35), UCS2, 70, 1},
		// 36 × 2 = 72: multi-part. 33 emoji fill 66 units and the 67th is
		// wasted: 33 | 3 → 2 segments.
		{"36 emoji", rep("😀", 36), UCS2, 72, 2},
		// 66 + 2 = 68 ≤ 70: one segment, the boundary does not apply.
		{"66 ucs2 + emoji", rep(zh, 66) + "😀", UCS2, 68, 1},
		// 66 + 2 + 3 = 71: multi-part. The emoji does not fit in unit 67, so
		// 66 | emoji + 3 = 5 → 2 segments.
		{"66 ucs2 + emoji + 3", rep(zh, 66) + "😀" + rep(zh, 3), UCS2, 71, 2},
		// The moved emoji changes the count: 66 + 2 + 66 = 134 units, which
		// would be exactly 2 × 67. But the emoji cannot take unit 67 of
		// segment 1, so: 66 (1 wasted) | emoji + 65 = 67 | 1 → 3 segments.
		{"emoji at 67-unit boundary", rep(zh, 66) + "😀" + rep(zh, 66), UCS2, 134, 3},
		// 65 + 2 + 67 = 134: the emoji takes units 66-67 exactly, nothing is
		// wasted: 67 | 67 → 2 segments.
		{"emoji ending at 67", rep(zh, 65) + "😀" + rep(zh, 67), UCS2, 134, 2},

		// Invalid UTF-8: each bad byte is one U+FFFD, not GSM-7.
		{"invalid utf-8", "a\xffb", UCS2, 3, 1},
	}
	require.GreaterOrEqual(t, len(cases), 25)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Segments(c.text)
			require.Equal(t, SegmentInfo{Encoding: c.encoding, Units: c.units, Segments: c.segments}, got)
		})
	}
}

// gsm7BasicForTest is the GSM 03.38 default alphabet by code 0x00-0x7F,
// written as code points independently of gsm7Basic (0x1B is ESC).
var gsm7BasicForTest = string([]rune{
	0x0040, 0x00A3, 0x0024, 0x00A5, 0x00E8, 0x00E9, 0x00F9, 0x00EC, // 0x00 @ £ $ ¥ è é ù ì
	0x00F2, 0x00C7, 0x000A, 0x00D8, 0x00F8, 0x000D, 0x00C5, 0x00E5, // 0x08 ò Ç LF Ø ø CR Å å
	0x0394, 0x005F, 0x03A6, 0x0393, 0x039B, 0x03A9, 0x03A0, 0x03A8, // 0x10 Δ _ Φ Γ Λ Ω Π Ψ
	0x03A3, 0x0398, 0x039E, 0x001B, 0x00C6, 0x00E6, 0x00DF, 0x00C9, // 0x18 Σ Θ Ξ ESC Æ æ ß É
	0x0020, 0x0021, 0x0022, 0x0023, 0x00A4, 0x0025, 0x0026, 0x0027, // 0x20 SP ! " # ¤ % & '
	0x0028, 0x0029, 0x002A, 0x002B, 0x002C, 0x002D, 0x002E, 0x002F, // 0x28 ( ) * + , - . /
	0x0030, 0x0031, 0x0032, 0x0033, 0x0034, 0x0035, 0x0036, 0x0037, // 0x30 0-7
	0x0038, 0x0039, 0x003A, 0x003B, 0x003C, 0x003D, 0x003E, 0x003F, // 0x38 8 9 : ; < = > ?
	0x00A1, 0x0041, 0x0042, 0x0043, 0x0044, 0x0045, 0x0046, 0x0047, // 0x40 ¡ A-G
	0x0048, 0x0049, 0x004A, 0x004B, 0x004C, 0x004D, 0x004E, 0x004F, // 0x48 H-O
	0x0050, 0x0051, 0x0052, 0x0053, 0x0054, 0x0055, 0x0056, 0x0057, // 0x50 P-W
	0x0058, 0x0059, 0x005A, 0x00C4, 0x00D6, 0x00D1, 0x00DC, 0x00A7, // 0x58 X Y Z Ä Ö Ñ Ü §
	0x00BF, 0x0061, 0x0062, 0x0063, 0x0064, 0x0065, 0x0066, 0x0067, // 0x60 ¿ a-g
	0x0068, 0x0069, 0x006A, 0x006B, 0x006C, 0x006D, 0x006E, 0x006F, // 0x68 h-o
	0x0070, 0x0071, 0x0072, 0x0073, 0x0074, 0x0075, 0x0076, 0x0077, // 0x70 p-w
	0x0078, 0x0079, 0x007A, 0x00E4, 0x00F6, 0x00F1, 0x00FC, 0x00E0, // 0x78 x y z ä ö ñ ü à
})

// gsm7ExtensionForTest is the GSM 03.38 extension table as code points
// (codes 0x0A, 0x14, 0x28, 0x29, 0x2F, 0x3C, 0x3D, 0x3E, 0x40, 0x65).
var gsm7ExtensionForTest = []rune{0x000C, 0x005E, 0x007B, 0x007D, 0x005C, 0x005B, 0x007E, 0x005D, 0x007C, 0x20AC}

func TestGSM7Tables(t *testing.T) {
	t.Parallel()
	// The basic set in code order matches the 3GPP TS 23.038 table.
	require.Equal(t, 128, utf8.RuneCountInString(gsm7Basic))
	require.Equal(t, gsm7BasicForTest, gsm7Basic)

	want := map[rune]int{}
	for _, r := range gsm7BasicForTest {
		if r != 0x1B {
			want[r] = 1
		}
	}
	for _, r := range gsm7ExtensionForTest {
		want[r] = 2
	}
	require.Len(t, want, 127+10) // 127 basic characters (ESC is not one) and 10 extension ones
	require.Equal(t, want, gsm7Septets)

	// Spot checks of the usual confusions.
	for _, r := range "ç`\x1bÀÈáíóú\u00a0’“”" {
		_, ok := gsm7Septets[r]
		require.False(t, ok, "%q must not be GSM-7", r)
	}
	for r := rune(0); r < 0x80; r++ {
		_, ok := gsm7Septets[r]
		switch {
		case r == '\n' || r == '\r' || r == '\f':
			require.True(t, ok, "%q", r)
		case r < 0x20 || r == 0x7F || r == '`':
			require.False(t, ok, "%q", r)
		default:
			require.True(t, ok, "%q", r) // printable ASCII except backtick
		}
	}
}

func FuzzSegments(f *testing.F) {
	for _, s := range []string{
		"", "a", "€", "ç", "😀", "\r\n", "a\xffb",
		strings.Repeat("a", 152) + "^" + strings.Repeat("a", 152),
		strings.Repeat("ж", 66) + "😀" + strings.Repeat("ж", 66),
		strings.Repeat("€", 81),
	} {
		for _, r := range []rune{'a', '{', 'ç', '😀', utf8.RuneError} {
			f.Add(s, r)
		}
	}
	f.Fuzz(func(t *testing.T, text string, r rune) {
		got := Segments(text)

		if text == "" {
			require.Equal(t, SegmentInfo{Encoding: GSM7}, got)
		} else {
			require.GreaterOrEqual(t, got.Segments, 1)
		}

		chars := utf8.RuneCountInString(text)
		switch got.Encoding {
		case GSM7:
			// Every character is 1 or 2 septets.
			require.GreaterOrEqual(t, got.Units, chars)
			require.LessOrEqual(t, got.Units, 2*chars)
			checkSegmentBounds(t, got, gsm7Single, gsm7Multi)
		case UCS2:
			// Units are exactly the UTF-16 length (invalid bytes as U+FFFD).
			require.Equal(t, len(utf16.Encode([]rune(text))), got.Units)
			checkSegmentBounds(t, got, ucs2Single, ucs2Multi)
		default:
			t.Fatalf("unknown encoding %q", got.Encoding)
		}

		// Appending a character never decreases the segment count.
		longer := Segments(text + string(r))
		require.GreaterOrEqual(t, longer.Segments, got.Segments, "appending %q", r)
	})
}

// checkSegmentBounds checks the segment count against the capacities: one
// segment up to single units; otherwise at least ceil(units/multi), and at
// most ceil(units/(multi-1)) since each segment wastes at most one unit.
func checkSegmentBounds(t *testing.T, got SegmentInfo, single, multi int) {
	t.Helper()
	ceil := func(n, d int) int { return (n + d - 1) / d }
	switch {
	case got.Units == 0:
		require.Equal(t, 0, got.Segments)
	case got.Units <= single:
		require.Equal(t, 1, got.Segments)
	default:
		require.GreaterOrEqual(t, got.Segments, ceil(got.Units, multi))
		require.LessOrEqual(t, got.Segments, ceil(got.Units, multi-1))
	}
}

// The ASCII table answers exactly as the map for every character.
func TestGSM7SizeMatchesTheMap(t *testing.T) {
	t.Parallel()
	for r := rune(-1); r <= 0x10FFFF; r++ {
		want, wantOK := gsm7Septets[r]
		got, ok := gsm7Size(r)
		if got != want || ok != wantOK {
			t.Fatalf("%U: %d %v, want %d %v", r, got, ok, want, wantOK)
		}
	}
}
