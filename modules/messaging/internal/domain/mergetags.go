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

import (
	"slices"
	"strings"

	"github.com/teamtext/teamtext/platform/fault"
)

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

// The merge tags the dashboard fills in, besides each custom field's key.
const (
	TagFirstName = "first_name" // the first word of the roster name
	TagName      = "name"       // the roster name
	TagTeamName  = "team_name"
)

// CodeUnknownMergeTag refuses a dashboard text with a tag that is neither
// one of the dashboard's tags nor a custom field's key.
const CodeUnknownMergeTag = "unknown_merge_tag"

// MergeText is a text whose merge tags were checked: each names one of the
// dashboard's tags or a custom field of the team.
type MergeText struct {
	text string
	tags []Tag
	keys []string // the tags' names, lowercased, in order
}

// ParseMerge checks text's merge tags against the team's custom field keys
// (lowercased). A tag naming nothing is refused: a typo must not reach
// every family as an empty gap.
func ParseMerge(text string, fields map[string]bool) (MergeText, error) {
	m := MergeText{text: text, tags: FindTags(text)}
	for _, t := range m.tags {
		k := strings.ToLower(t.Name)
		switch _, field := fields[k]; {
		case k == TagFirstName || k == TagName || k == TagTeamName || field:
		default:
			return MergeText{}, fault.Newf(fault.Invalid, CodeUnknownMergeTag,
				"{%s} is not a merge tag: use {first_name}, {name}, {team_name} or a custom field's key", t.Name)
		}
		m.keys = append(m.keys, k)
	}
	return m, nil
}

// Tagged reports whether the text has merge tags.
func (m MergeText) Tagged() bool { return len(m.tags) > 0 }

// Fields are the custom field keys the text uses, each once.
func (m MergeText) Fields() []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range m.keys {
		if k != TagFirstName && k != TagName && k != TagTeamName && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// MergeValues are one recipient's values: their roster name, the team's
// name and their custom fields' values by key.
type MergeValues struct {
	Name, TeamName string
	Fields         map[string]string
}

func (v MergeValues) value(key string) string {
	switch key {
	case TagFirstName:
		if f := strings.Fields(v.Name); len(f) > 0 {
			return f[0]
		}
		return ""
	case TagName:
		return strings.TrimSpace(v.Name)
	case TagTeamName:
		return v.TeamName
	}
	return v.Fields[key]
}

// Render fills in the tags for one recipient. A tag with no value is left
// out (empty) and its key is among missing, each once.
func (m MergeText) Render(v MergeValues) (text string, missing []string) {
	if !m.Tagged() {
		return m.text, nil
	}
	var b strings.Builder
	b.Grow(len(m.text) + 16*len(m.tags))
	at := 0
	for i, t := range m.tags {
		b.WriteString(m.text[at:t.Start])
		val := v.value(m.keys[i])
		if val == "" && !slices.Contains(missing, m.keys[i]) {
			missing = append(missing, m.keys[i])
		}
		b.WriteString(val)
		at = t.End
	}
	b.WriteString(m.text[at:])
	return b.String(), missing
}
