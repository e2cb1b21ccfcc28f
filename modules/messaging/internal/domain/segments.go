// SMS segment counting: which character set a text is sent in and how many
// SMS segments it takes. Twilio's open-source segment calculator
// (TwilioDevEd/message-segment-calculator) is the reference.
//
// Rules:
//   - A text is GSM-7 when every character is in the GSM 03.38 default
//     alphabet (3GPP TS 23.038 §6.2.1) or its extension table; otherwise the
//     whole text is UCS-2.
//   - GSM-7 units are septets: 1 per default-alphabet character, 2 per
//     extension character (ESC + character). UCS-2 units are UTF-16 code
//     units: 1 per BMP character (GSM ones included), 2 per astral
//     character (surrogate pair).
//   - A text of at most 160 septets (GSM-7) or 70 code units (UCS-2) is one
//     segment. A longer text is split into segments of at most 153 septets
//     or 67 code units (the rest of each 140-octet segment holds the 6-octet
//     concatenation header), filled greedily in order.
//   - A character's units are never split across segments: an extension
//     character that does not fit in the last free septet, or a surrogate
//     pair that does not fit in the last free code unit, moves whole to the
//     next segment and the free unit is wasted.
//   - The empty text is GSM-7 with 0 units and 0 segments.
//   - Units are counted per Unicode code point. Twilio's calculator also keeps
//     multi-code-point grapheme clusters (skin-tone emoji, ZWJ sequences,
//     flags, combining marks) together in one segment; that needs Unicode
//     grapheme segmentation, which the standard library lacks, so here only
//     a surrogate pair is indivisible.
//   - Each byte of invalid UTF-8 counts as one U+FFFD, which is not GSM-7.

package domain

import "unicode/utf8"

// Encoding is the SMS character set a text is sent in.
type Encoding string

// The SMS character sets.
const (
	GSM7 Encoding = "GSM-7"
	UCS2 Encoding = "UCS-2"
)

// SegmentInfo describes how a text is split into SMS segments.
type SegmentInfo struct {
	Encoding Encoding
	Segments int // number of SMS segments (0 for the empty text)
	Units    int // GSM-7 septets (escape characters count 2) or UCS-2 code units (UTF-16; astral characters count 2)
}

// Segment capacities in units: a single-segment text, and each segment of
// a multi-part (concatenated) text.
const (
	gsm7Single = 160
	gsm7Multi  = 153
	ucs2Single = 70
	ucs2Multi  = 67
)

// gsm7Basic is the GSM 03.38 default alphabet in code order, 0x00 to 0x7F,
// one septet each. Position 0x1B is the escape to the extension table, not
// a character; it holds '\x1b' here as a placeholder and is left out of the
// lookup table.
const gsm7Basic = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ" +
	" !\"#¤%&'()*+,-./0123456789:;<=>?" +
	"¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§" +
	"¿abcdefghijklmnopqrstuvwxyzäöñüà"

// gsm7Extension is the GSM 03.38 extension table: each character is sent as
// ESC followed by its code, two septets.
const gsm7Extension = "\f^{}\\[~]|€"

// gsm7Septets maps each GSM-7 character to its size in septets, and
// gsm7ASCII holds the same for the ASCII range (0: not GSM-7), where most
// texts' characters are: a table read instead of a map look-up per
// character. Both are built once at package initialisation and never
// modified.
var (
	gsm7Septets = buildGSM7Septets()
	gsm7ASCII   = buildGSM7ASCII(gsm7Septets)
)

func buildGSM7ASCII(septets map[rune]int) [utf8.RuneSelf]uint8 {
	var t [utf8.RuneSelf]uint8
	for r, n := range septets {
		if r < utf8.RuneSelf {
			t[r] = uint8(n)
		}
	}
	return t
}

// gsm7Size returns r's size in septets, and whether r is GSM-7 at all.
func gsm7Size(r rune) (int, bool) {
	if r >= 0 && r < utf8.RuneSelf {
		n := gsm7ASCII[r]
		return int(n), n > 0
	}
	n, ok := gsm7Septets[r]
	return n, ok
}

func buildGSM7Septets() map[rune]int {
	m := make(map[rune]int, 136)
	for _, r := range gsm7Basic {
		if r != '\x1b' {
			m[r] = 1
		}
	}
	for _, r := range gsm7Extension {
		m[r] = 2
	}
	return m
}

// Segments computes the encoding and segment count of text.
func Segments(text string) SegmentInfo {
	if text == "" {
		return SegmentInfo{Encoding: GSM7}
	}
	enc, single, multi := GSM7, gsm7Single, gsm7Multi
	for _, r := range text {
		if _, ok := gsm7Size(r); !ok {
			enc, single, multi = UCS2, ucs2Single, ucs2Multi
			break
		}
	}

	// One pass packs the text into multi-part segments and totals its
	// units; if the total fits in a single segment, that packing is unused.
	units, segments, used := 0, 1, 0
	for _, r := range text {
		n := unitsOf(enc, r)
		units += n
		if used+n > multi {
			segments++
			used = 0
		}
		used += n
	}
	if units <= single {
		segments = 1
	}
	return SegmentInfo{Encoding: enc, Segments: segments, Units: units}
}

// unitsOf returns r's size in enc's units. In GSM-7, r must be a GSM-7
// character. Invalid UTF-8 reaches here as utf8.RuneError (U+FFFD), one
// UCS-2 unit.
func unitsOf(enc Encoding, r rune) int {
	if enc == GSM7 {
		n, _ := gsm7Size(r)
		return n
	}
	if r > 0xFFFF {
		return 2
	}
	return 1
}
