// Merge tags: the grammar of the {name} placeholders that the dashboard
// fills in per recipient. The API refuses texts that contain them.
//
// Grammar (this comment is the project's written grammar):
//
//	tag  = "{" ws* name ws* "}"
//	ws   = " " | "\t"
//	name = letter { letter | digit | "_" }      (1 to 64 characters)
//	letter = "A"…"Z" | "a"…"z"                  (ASCII only)
//	digit  = "0"…"9"
//
//   - A tag is found wherever this grammar matches; everything else is
//     literal text, including {}, { }, {1st}, {_x}, {first name} (a space
//     inside the name), {ä} (a non-ASCII letter), {a-b}, a newline inside the
//     braces, unbalanced braces, and a name longer than 64 characters.
//   - Text is scanned left to right. At each "{" a tag is tried; if it
//     matches, scanning resumes after its "}", otherwise at the next byte.
//     So {{name}} holds the tag {name} (the outer braces are literal), and
//     in {a{b} only {b} is a tag.
//   - Tags never overlap and are reported in order of position.
//   - A tag's name is reported as written (case kept, spaces and tabs
//     around it dropped). Names are case-insensitive: to match a name
//     against field keys, compare lowercased (strings.ToLower).
//   - Offsets are byte offsets into the text; the text need not be valid
//     UTF-8 (braces are ASCII, so they never occur inside a multi-byte
//     character).

package domain

// maxTagName is the longest merge tag name, in characters (ASCII, so bytes).
const maxTagName = 64

// Tag is one merge tag found in a text.
type Tag struct {
	Name  string // as written
	Start int    // byte offset of '{'
	End   int    // byte offset just after '}'
}

// FindTags returns the merge tags in text, in order. It returns nil if there
// are none.
func FindTags(text string) []Tag {
	var tags []Tag
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		if t, ok := tagAt(text, i); ok {
			tags = append(tags, t)
			i = t.End - 1 // the loop's i++ resumes just after '}'
		}
	}
	return tags
}

// tagAt matches a merge tag whose '{' is at text[start].
func tagAt(text string, start int) (Tag, bool) {
	i := skipBlanks(text, start+1)
	nameStart := i
	if i >= len(text) || !isTagLetter(text[i]) {
		return Tag{}, false
	}
	for i < len(text) && (isTagLetter(text[i]) || isTagDigit(text[i]) || text[i] == '_') {
		i++
	}
	nameEnd := i
	if nameEnd-nameStart > maxTagName {
		return Tag{}, false
	}
	i = skipBlanks(text, i)
	if i >= len(text) || text[i] != '}' {
		return Tag{}, false
	}
	return Tag{Name: text[nameStart:nameEnd], Start: start, End: i + 1}, true
}

// skipBlanks returns the offset of the first byte at or after i that is not
// a space or a tab.
func skipBlanks(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

func isTagLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isTagDigit(c byte) bool { return '0' <= c && c <= '9' }
