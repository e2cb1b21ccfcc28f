package app

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// codemapSpan is a backticked span of docs/CODEMAP.md.
var codemapSpan = regexp.MustCompile("`([^`\n]+)`")

// codemapPaths returns the repository paths a CODEMAP names: the backticked
// spans that contain a "/" or end in ".go". Routes (`/api/v1`, `POST
// /messages`) and placeholders (`<name>api`) are not paths.
func codemapPaths(doc string) []string {
	var paths []string
	for _, m := range codemapSpan.FindAllStringSubmatch(doc, -1) {
		p := m[1]
		if !strings.Contains(p, "/") && !strings.HasSuffix(p, ".go") {
			continue
		}
		if strings.HasPrefix(p, "/") || strings.ContainsAny(p, " <>{}") {
			continue
		}
		paths = append(paths, p)
	}
	return paths
}

// codemapMissing returns the paths doc names that do not exist under root.
func codemapMissing(root, doc string) []string {
	var missing []string
	for _, p := range codemapPaths(doc) {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			missing = append(missing, p)
		}
	}
	return missing
}

// TestCodemapPathsExist: every file docs/CODEMAP.md names exists, so the map
// from spec to code cannot go stale unnoticed.
func TestCodemapPathsExist(t *testing.T) {
	b, err := os.ReadFile("../docs/CODEMAP.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(codemapPaths(string(b))); n < 50 {
		t.Fatalf("docs/CODEMAP.md names %d paths: the pattern no longer matches it", n)
	}
	for _, p := range codemapMissing("..", string(b)) {
		t.Errorf("docs/CODEMAP.md names %s, which does not exist", p)
	}
}

// TestCodemapCheckCatchesPlanted: the check fails on a planted tree whose
// map names a file that is not there, and ignores routes and placeholders.
func TestCodemapCheckCatchesPlanted(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "modules/roster/internal/service"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "modules/roster/internal/service/service.go"), []byte("package service\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := "| §4 | `modules/roster/internal/service/service.go`, `modules/admin/gone.go`, `module.go`, `GET /team`, `/api/v1`, `<name>api/` |\n"
	got := codemapMissing(root, doc)
	want := []string{"modules/admin/gone.go", "module.go"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("missing = %v, want %v", got, want)
	}
}
