// Tests for the merge tag grammar in mergetags.go. Offsets are worked out
// by hand (byte offsets; emoji are 4 bytes in UTF-8).

package domain

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFindTags(t *testing.T) {
	t.Parallel()
	name64 := "a" + strings.Repeat("b", 63) // 64 characters: the longest name
	name65 := "a" + strings.Repeat("b", 64) // 65 characters: too long
	cases := []struct {
		name string
		text string
		want []Tag
	}{
		{"empty", "", nil},
		{"no braces", "Hello there", nil},
		// '{' at 3, name at 4-13, '}' at 14.
		{"simple", "Hi {first_name}!", []Tag{{"first_name", 3, 15}}},
		{"whole text", "{name}", []Tag{{"name", 0, 6}}},
		{"at end", "x{name}", []Tag{{"name", 1, 7}}},
		{"spaces inside", "{ first_name }", []Tag{{"first_name", 0, 14}}},
		{"tabs inside", "{\tfirst_name\t}", []Tag{{"first_name", 0, 14}}},
		{"several blanks", "{ \t a  }", []Tag{{"a", 0, 8}}},
		// The inner {first_name} is at 1-12; the outer braces are literal.
		{"double braces", "{{first_name}}", []Tag{{"first_name", 1, 13}}},
		{"triple braces", "{{{a}}}", []Tag{{"a", 2, 5}}},
		{"case kept", "{FirstName}", []Tag{{"FirstName", 0, 11}}},
		{"digits and underscores", "{x_1}", []Tag{{"x_1", 0, 5}}},
		{"one letter", "{x}", []Tag{{"x", 0, 3}}},
		{"adjacent", "{x}{y}", []Tag{{"x", 0, 3}, {"y", 3, 6}}},
		// "Hi " 3, {first_name} 3-15, ", your code is " 15-30, {code} 30-36.
		{"two in a sentence", "Hi {first_name}, your code is {code}.", []Tag{{"first_name", 3, 15}, {"code", 30, 36}}},
		{"longest name", "{" + name64 + "}", []Tag{{name64, 0, 66}}},
		// 😀 is 4 bytes: {name} at 4-10.
		{"emoji around", "😀{name}😀", []Tag{{"name", 4, 10}}},
		// "é" is 2 bytes: "Café " is 6 bytes, {x} at 6-9.
		{"after non-ASCII", "Café {x}", []Tag{{"x", 6, 9}}},
		// An unmatched '{' before a tag: {b} at 2-5.
		{"brace before tag", "{a{b}", []Tag{{"b", 2, 5}}},
		{"extra closing brace", "{a}}", []Tag{{"a", 0, 3}}},
		{"extra opening brace", "{{a}", []Tag{{"a", 1, 4}}},

		// Literal text, not tags.
		{"empty braces", "{}", nil},
		{"blank braces", "{ }", nil},
		{"space in name", "{first name}", nil},
		{"space in name, double braces", "{{first name}}", nil},
		{"leading digit", "{1abc}", nil},
		{"leading digit 1st", "{1st}", nil},
		{"leading underscore", "{_x}", nil},
		{"name too long", "{" + name65 + "}", nil},
		{"non-ASCII letter", "{ä}", nil},
		{"non-ASCII in name", "{nämé}", nil},
		{"hyphen", "{a-b}", nil},
		{"dot", "{a.b}", nil},
		{"newline inside", "{\na}", nil},
		{"no-break space inside", "{\u00a0a}", nil},
		{"unclosed", "a { b", nil},
		{"unclosed name", "{name", nil},
		{"unopened", "a } b", nil},
		{"reversed", "}name{", nil},
		{"other brackets", "[name] (name) <name>", nil},
		{"invalid utf-8", "\xff{\xffa}", nil},
	}
	require.GreaterOrEqual(t, len(cases), 20)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, FindTags(c.text))
		})
	}
}

var tagNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

func FuzzFindTags(f *testing.F) {
	for _, s := range []string{
		"", "Hi {first_name}!", "{ first_name }", "{{first_name}}", "{first name}",
		"{}", "a { b", "{x}{y}", "{1abc}", "{_x}", "{a" + strings.Repeat("b", 64) + "}",
		"😀{name}😀", "{{{a}}}", "{a{b}", "{\tx\t}", "\xff{\xffa}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tags := FindTags(text)
		prevEnd := 0
		for _, tag := range tags {
			require.Less(t, tag.Start, tag.End)
			require.GreaterOrEqual(t, tag.Start, prevEnd, "tags out of order or overlapping: %+v", tags)
			require.LessOrEqual(t, tag.End, len(text))
			require.Equal(t, byte('{'), text[tag.Start])
			require.Equal(t, byte('}'), text[tag.End-1])
			require.Equal(t, strings.Trim(text[tag.Start+1:tag.End-1], " \t"), tag.Name)
			require.Regexp(t, tagNameRE, tag.Name)
			prevEnd = tag.End
		}
		// No tag is missed: the same scan done with an independent regexp.
		require.Equal(t, regexpTags(text), tags)
	})
}

// tagRE is the grammar as a regular expression; leftmost-first matching
// without overlap gives the same left-to-right scan as FindTags.
var tagRE = regexp.MustCompile(`\{[ \t]*([A-Za-z][A-Za-z0-9_]{0,63})[ \t]*\}`)

func regexpTags(text string) []Tag {
	var tags []Tag
	for _, m := range tagRE.FindAllStringSubmatchIndex(text, -1) {
		tags = append(tags, Tag{Name: text[m[2]:m[3]], Start: m[0], End: m[1]})
	}
	return tags
}

func TestMergeRender(t *testing.T) {
	fields := map[string]bool{"jersey": false, "allergy": true}
	ava := MergeValues{Name: "  Ava  Rivera ", TeamName: "Lions", Fields: map[string]string{"jersey": "12"}}
	for _, c := range []struct {
		name, text, want string
		missing          []string
	}{
		{"no tags", "Practice at 6", "Practice at 6", nil},
		{"first name", "Hi {first_name}!", "Hi Ava!", nil},
		{"case and blanks", "Hi { First_Name }, {NAME} of {team_name}", "Hi Ava, Ava  Rivera of Lions", nil},
		{"custom field", "Jersey #{jersey}", "Jersey #12", nil},
		{"missing value left empty", "Allergy: {allergy}.", "Allergy: .", []string{"allergy"}},
		{"missing counted once", "{allergy}{allergy}", "", []string{"allergy"}},
		{"literal braces kept", "{{first_name}} {1st} { }", "{Ava} {1st} { }", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := ParseMerge(c.text, fields)
			if err != nil {
				t.Fatal(err)
			}
			got, missing := m.Render(ava)
			if got != c.want || !slices.Equal(missing, c.missing) {
				t.Fatalf("Render(%q) = %q, %v; want %q, %v", c.text, got, missing, c.want, c.missing)
			}
		})
	}
	if _, err := ParseMerge("Hi {frist_name}", fields); err == nil || !strings.Contains(err.Error(), "frist_name") {
		t.Fatalf("an unknown tag is refused, naming it: %v", err)
	}
	m, _ := ParseMerge("{jersey} {first_name} {JERSEY} {allergy}", fields)
	if got := m.Fields(); !slices.Equal(got, []string{"jersey", "allergy"}) {
		t.Fatalf("Fields() = %v", got)
	}
	if got, _ := m.Render(MergeValues{Name: ""}); got != "   " {
		t.Fatalf("an empty name gives an empty first name: %q", got)
	}
}
