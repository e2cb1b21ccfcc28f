package app

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// issueCitation is a comment that points at a tracker's issue by its
// number instead of stating its reason: a reader of the repository cannot
// look the number up.
var issueCitation = regexp.MustCompile(`(?i)\bissues? #?[0-9]+`)

// issueCitations returns file:line for every comment under root, in Go
// files tests included, that cites an issue number.
func issueCitations(root string) ([]string, error) {
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				if issueCitation.MatchString(c.Text) {
					rel, _ := filepath.Rel(root, path)
					found = append(found, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), fset.Position(c.Pos()).Line))
				}
			}
		}
		return nil
	})
	return found, err
}

// No comment in the tree cites an issue number; each states its reason.
func TestNoCommentCitesAnIssueNumber(t *testing.T) {
	found, err := issueCitations("..")
	require.NoError(t, err)
	require.Empty(t, found, "comments that cite an issue number instead of stating the reason")
}

// The check fails on a planted tree: a citation in a test file's comment,
// in a block comment, and none for the same words in a string.
func TestIssueCitationCheckFailsOnAPlantedTree(t *testing.T) {
	root := t.TempDir()
	plant := func(rel, src string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	plant("modules/x/x.go", "package x\n\n// Keep the lock (issue 17).\nfunc F() {}\n\nconst s = \"issue 9 in a string is not a comment\"\n")
	plant("modules/x/x_test.go", "package x\n\n/* As Issue #4 asked. */\nfunc g() {}\n")
	plant("modules/x/testdata/t.go", "package t // issue 1: fixtures are not read\n")
	found, err := issueCitations(root)
	require.NoError(t, err)
	require.Equal(t, []string{"modules/x/x.go:3", "modules/x/x_test.go:3"}, found)
}
