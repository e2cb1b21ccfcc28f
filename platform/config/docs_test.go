package config

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// elsewhere lists the files outside this package that read a documented
// variable themselves (the admin CLI's ADMIN_URL), relative to this package.
var elsewhere = []string{"../../app/admincli.go"}

var (
	// get("NAME", …) and getenv("NAME"): the readers Load hands around.
	readCall = regexp.MustCompile(`\b(?:get|getenv)\("([A-Z][A-Z0-9_]*)"`)
	// Tables of variables read in a loop: {"WEBHOOK_WORKERS", "200", &c.…},
	// {"RETENTION_JOBS", "24h", time.Hour, &c.…}. &Error{"NAME", "msg"} only
	// names a variable read elsewhere, so it is left out.
	tableRow = regexp.MustCompile(`(\w*)\{"([A-Z][A-Z0-9_]*)",\s*"`)
	// A row of the configuration table: its first cell holds the names.
	docRow  = regexp.MustCompile("(?m)^\\| *(`[A-Z][A-Z0-9_]*`(?: *, *`[A-Z][A-Z0-9_]*`)*) *\\|")
	docName = regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")
)

// codeVars returns every environment variable the configuration code reads,
// with the file that reads it.
func codeVars(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, elsewhere...)
	vars := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range readCall.FindAllStringSubmatch(string(b), -1) {
			vars[m[1]] = f
		}
		for _, m := range tableRow.FindAllStringSubmatch(string(b), -1) {
			if m[1] != "Error" {
				vars[m[2]] = f
			}
		}
	}
	return vars
}

// docVars returns every variable named by a row of docs/CONFIGURATION.md.
func docVars(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../../docs/CONFIGURATION.md")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]bool{}
	for _, m := range docRow.FindAllStringSubmatch(string(b), -1) {
		for _, n := range docName.FindAllStringSubmatch(m[1], -1) {
			vars[n[1]] = true
		}
	}
	return vars
}

// TestConfigurationDoc holds docs/CONFIGURATION.md to the code: every
// variable the code reads has a row, and every row names a variable the code
// reads.
func TestConfigurationDoc(t *testing.T) {
	code, doc := codeVars(t), docVars(t)
	if len(code) < 40 || len(doc) < 40 {
		t.Fatalf("found %d variables in the code and %d in the doc: the patterns no longer match", len(code), len(doc))
	}
	var missing, extra []string
	for v, f := range code {
		if !doc[v] {
			missing = append(missing, v+" (read in "+f+")")
		}
	}
	for v := range doc {
		if _, ok := code[v]; !ok {
			extra = append(extra, v)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("docs/CONFIGURATION.md has no row for: %s", strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		t.Errorf("docs/CONFIGURATION.md documents variables the code does not read: %s", strings.Join(extra, ", "))
	}
}
