package app

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const modulePath = "github.com/teamtext/teamtext"

// TestArchitecture guards the module boundaries of ARCHITECTURE.md: a module
// imports another module only through its <module>api contract package
// (and, from its tests, the contract's fakes: <module>api/<module>test),
// and platform/ imports no module. (The compiler already stops imports of
// another module's internal/ packages; this catches the rest, e.g. a
// module.go or a non-internal helper package.)
func TestArchitecture(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps=false", "-json=ImportPath,Imports,TestImports,XTestImports", modulePath+"/...").Output()
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		require.NoError(t, dec.Decode(&p))
		owner := moduleOf(p.ImportPath)
		isPlatform := strings.HasPrefix(p.ImportPath, modulePath+"/platform")
		testImports := map[string]bool{}
		for _, imp := range append(p.TestImports, p.XTestImports...) {
			testImports[imp] = true
		}
		for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			target := moduleOf(imp)
			if target == "" {
				continue
			}
			checked++
			if isPlatform {
				t.Errorf("%s (platform) imports module package %s", p.ImportPath, imp)
				continue
			}
			if owner == "" || owner == target {
				continue // app/, e2e/ and a module's own packages
			}
			if imp == modulePath+"/modules/"+target+"/"+target+"api" {
				continue
			}
			if isFakesPath(imp) && (testImports[imp] || isFakesPath(p.ImportPath)) {
				continue
			}
			t.Errorf("%s (module %s) imports %s: only %sapi is allowed across modules (and its fakes, from tests)", p.ImportPath, owner, imp, target)
		}
	}
	require.Positive(t, checked, "the guard saw module imports")
}

// moduleOf returns the module name of a package under modules/, or "".
func moduleOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, modulePath+"/modules/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

func TestIsFakesPath(t *testing.T) {
	t.Parallel()
	require.True(t, isFakesPath(modulePath+"/modules/roster/rosterapi/rostertest"))
	require.False(t, isFakesPath(modulePath+"/modules/roster/rosterapi"), "the contract")
	require.False(t, isFakesPath(modulePath+"/modules/messaging/fakes/fakecarrier"), "not below a contract")
	require.False(t, isFakesPath(modulePath+"/modules/roster/internal/servicetest"), "a module's own helper")
}

func TestModuleOf(t *testing.T) {
	t.Parallel()
	require.Equal(t, "roster", moduleOf(modulePath+"/modules/roster/internal/service"))
	require.Equal(t, "billing", moduleOf(modulePath+"/modules/billing"))
	require.Equal(t, "", moduleOf(modulePath+"/platform/db"))
}

// TestArchitectureRules runs the rules of checkTree over this repository:
// contracts stay leaves, domains stay pure, and a module's SQL stays in its
// own tables.
func TestArchitectureRules(t *testing.T) {
	t.Parallel()
	rep, err := checkTree("..", bunConfined)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(rep.prefixes), 5, "the guard found every module's table prefix")
	require.Positive(t, rep.sqlTexts, "the guard read SQL")
	require.Empty(t, rep.violations)
}

// TestArchitectureRulesCatchPlanted runs checkTree over testdata/arch, a
// tree with one planted violation of each rule (go build ignores testdata),
// and over testdata/archclean, the same modules without them.
func TestArchitectureRulesCatchPlanted(t *testing.T) {
	t.Parallel()
	rep, err := checkTree("testdata/arch", map[string]bool{"alpha": true})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"alpha": "alpha_", "beta": "beta"}, rep.prefixes)
	require.ElementsMatch(t, []string{
		`contract: modules/alpha/alphaapi/api.go: alphaapi imports github.com/uptrace/bun (only the standard library, other <m>api packages and the shared vocabulary types)`,
		`contract: modules/alpha/alphaapi/api.go: alphaapi imports github.com/teamtext/teamtext/platform/db (only the standard library, other <m>api packages and the shared vocabulary types)`,
		`domain: modules/alpha/internal/domain/domain.go: imports net/http (a domain package imports no River, bun or net/http)`,
		`domain: modules/beta/internal/domain/domain.go: imports github.com/riverqueue/river (a domain package imports no River, bun or net/http)`,
		`domain: modules/beta/internal/domain/domain_test.go: imports github.com/uptrace/bun/dialect/pgdialect (a domain package imports no River, bun or net/http)`,
		`sql: modules/alpha/internal/postgres/postgres.go: names beta's table "betas"`,
		`sql: modules/alpha/internal/postgres/postgres.go: names beta's table "beta_items"`,
		`sql: modules/alpha/internal/postgres/postgres.go: names beta's table "beta_secret"`,
		`sql: modules/alpha/internal/postgres/migrations/0002_ref.sql: names beta's table "beta_items"`,
		`sql: modules/beta/internal/postgres/postgres.go: names alpha's table "alpha_things"`,
		`storage: modules/alpha/alphaapi/api.go: imports github.com/uptrace/bun (in alpha only internal/postgres imports bun)`,
		`storage: modules/alpha/internal/service/service.go: imports github.com/uptrace/bun (in alpha only internal/postgres imports bun)`,
		`storage: modules/alpha/internal/service/service.go: imports github.com/teamtext/teamtext/modules/alpha/internal/postgres (in alpha only the module's wiring reaches internal/postgres)`,
		`fakes: modules/alpha/alphaapi/alphatest/alphatest.go: alphatest imports github.com/stretchr/testify/require (a fake imports only the standard library, contracts, other fakes and platform)`,
		`fakes: modules/alpha/alphaapi/alphatest/alphatest.go: alphatest imports github.com/teamtext/teamtext/modules/alpha/internal/domain (a fake imports only the standard library, contracts, other fakes and platform)`,
		`fakes: modules/beta/internal/service/service.go: imports github.com/teamtext/teamtext/modules/alpha/alphaapi/alphatest (a fake: only test files and other fakes import it)`,
		`wiring: modules/beta/internal/service/deps.go: imports go.uber.org/fx (only the module's root package, its wiring, imports fx)`,
		`wiring: modules/beta/internal/service/service_test.go: imports go.uber.org/fx/fxtest (only the module's root package, its wiring, imports fx)`,
		`wiring: modules/beta/fxhelp/fxhelp.go: imports go.uber.org/fx (only the module's root package, its wiring, imports fx)`,
	}, rep.violations)

	clean, err := checkTree("testdata/archclean", map[string]bool{"alpha": true})
	require.NoError(t, err)
	require.Empty(t, clean.violations)
	require.Positive(t, clean.sqlTexts)
}

// archReport is what checkTree found.
type archReport struct {
	prefixes   map[string]string // module → the prefix of its tables
	sqlTexts   int               // string literals and .sql files read
	violations []string
}

// bunConfined are the modules whose storage is behind their domain (issue
// 17, item 1): in them only internal/postgres imports bun. Add a module
// when its rows stop travelling above its postgres package.
var bunConfined = map[string]bool{"billing": true, "campaigns": true, "messaging": true, "roster": true, "webhooks": true}

// fxPath is the wiring library: only a module's root package imports it.
const fxPath = "go.uber.org/fx"

// contractVocabulary are the platform packages a contract may import: value
// types of the spec's vocabulary that contracts' fields are made of (an
// E.164 phone.Number), with no I/O and no dependency on any module.
var contractVocabulary = map[string]bool{modulePath + "/platform/phone": true}

// domainForbidden are the imports a domain package may not have (a path
// and everything below it).
var domainForbidden = []string{"github.com/riverqueue/river", "github.com/uptrace/bun", "net/http"}

var (
	createTableRE = regexp.MustCompile(`(?i)\bcreate\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?"?([a-z_][a-z0-9_]*)`)
	identRE       = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	sqlCommentRE  = regexp.MustCompile(`--[^\n]*`)
)

// tablePosition are the SQL words after which an identifier names a table.
var tablePosition = map[string]bool{"from": true, "join": true, "into": true, "update": true, "table": true,
	"references": true, "exists": true, "only": true}

// checkTree applies the module-boundary rules to the tree at root (a
// checkout: root/modules/<m>/...):
//
//   - a contract package (modules/<m>/<m>api) imports only the standard
//     library, other contract packages and contractVocabulary;
//
//   - a domain package (any .../domain directory of a module) imports no
//     River, bun or net/http;
//
//   - a module's SQL (its Go string literals, struct tags included, and its
//     .sql files) names no table of another module: not another module's
//     table by name (names with an underscore, which prose does not use),
//     and no identifier with another module's table prefix where SQL names
//     a table (after FROM, JOIN, INTO, UPDATE, TABLE, REFERENCES…).
//
//   - a fake of a contract (modules/<m>/<m>api/<m>test: an in-memory
//     implementation other modules' tests share) imports only the
//     standard library, contracts, other fakes and platform, so that it
//     stands for the contract and not the module behind it; and only test
//     files and other fakes import a fake.
//
//   - in a module of confined (bunConfined), no package but
//     internal/postgres imports bun, and no package under internal/ but
//     internal/postgres and test helpers (<x>test packages, _test.go
//     files) imports internal/postgres: the use cases and adapters see
//     storage through the stores they declare, the module's root package
//     wires the repository in.
//
//   - only a module's root package (modules/<m>/*.go: module.go, its
//     wiring) imports go.uber.org/fx: use cases, adapters and their tests
//     declare plain Deps structs and constructors, and the fx.In
//     parameter structs that fill them live in module.go. (app/, the
//     composition root, is not under modules/ and imports fx freely.)
//
// A module's table prefix is the common prefix of the tables its .sql files
// create (roster_, messaging_, billing_, webhook, campaign).
func checkTree(root string, confined map[string]bool) (*archReport, error) {
	modsDir := filepath.Join(root, "modules")
	entries, err := os.ReadDir(modsDir)
	if err != nil {
		return nil, fmt.Errorf("read modules: %w", err)
	}
	rep := &archReport{prefixes: map[string]string{}}
	tables := map[string]map[string]bool{} // module → its tables
	files := map[string][]string{}         // module → its .go and .sql files
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		m := e.Name()
		tables[m] = map[string]bool{}
		err := filepath.WalkDir(filepath.Join(modsDir, m), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			switch filepath.Ext(path) {
			case ".sql":
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				for _, match := range createTableRE.FindAllStringSubmatch(sqlCommentRE.ReplaceAllString(string(b), ""), -1) {
					tables[m][strings.ToLower(match[1])] = true
				}
				files[m] = append(files[m], path)
			case ".go":
				files[m] = append(files[m], path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walk module %s: %w", m, err)
		}
		if len(tables[m]) > 0 {
			p, err := tablePrefix(tables[m])
			if err != nil {
				return nil, fmt.Errorf("module %s: %w", m, err)
			}
			rep.prefixes[m] = p
		}
	}
	for m, paths := range files {
		for _, path := range paths {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return nil, err
			}
			rel = filepath.ToSlash(rel)
			if strings.HasSuffix(path, ".sql") {
				b, err := os.ReadFile(path)
				if err != nil {
					return nil, err
				}
				rep.sqlTexts++
				rep.scanSQL(m, rel, sqlCommentRE.ReplaceAllString(string(b), ""), tables)
				continue
			}
			if err := rep.checkGo(m, rel, path, tables, confined[m]); err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(rep.violations)
	return rep, nil
}

// checkGo applies the import rules and reads the string literals of one Go file.
func (rep *archReport) checkGo(m, rel, path string, tables map[string]map[string]bool, bunConfined bool) error {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("parse %s: %w", rel, err)
	}
	dir := filepath.ToSlash(filepath.Dir(rel))
	isContract := dir == "modules/"+m+"/"+m+"api"
	isFake := isFakesPath(modulePath + "/" + dir)
	isTestFile := strings.HasSuffix(rel, "_test.go")
	isDomain := strings.HasPrefix(dir, "modules/"+m+"/") && filepath.Base(dir) == "domain"
	isStorage := dir == "modules/"+m+"/internal/postgres" || strings.HasPrefix(dir, "modules/"+m+"/internal/postgres/")
	aboveStorage := strings.HasPrefix(dir, "modules/"+m+"/internal/") && !isStorage &&
		!strings.HasSuffix(filepath.Base(dir), "test") && !strings.HasSuffix(rel, "_test.go")
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return fmt.Errorf("%s: import %s: %w", rel, imp.Path.Value, err)
		}
		if isContract && !isStandard(p) && !isContractPath(p) && !contractVocabulary[p] {
			rep.violations = append(rep.violations, fmt.Sprintf("contract: %s: %sapi imports %s (only the standard library, other <m>api packages and the shared vocabulary types)", rel, m, p))
		}
		if isFake && !isStandard(p) && !isContractPath(p) && !isFakesPath(p) && !strings.HasPrefix(p, modulePath+"/platform/") {
			rep.violations = append(rep.violations, fmt.Sprintf("fakes: %s: %s imports %s (a fake imports only the standard library, contracts, other fakes and platform)",
				rel, filepath.Base(dir), p))
		}
		if isFakesPath(p) && !isFake && !isTestFile {
			rep.violations = append(rep.violations, fmt.Sprintf("fakes: %s: imports %s (a fake: only test files and other fakes import it)", rel, p))
		}
		if bunConfined && !isStorage && (p == "github.com/uptrace/bun" || strings.HasPrefix(p, "github.com/uptrace/bun/")) {
			rep.violations = append(rep.violations, fmt.Sprintf("storage: %s: imports %s (in %s only internal/postgres imports bun)", rel, p, m))
		}
		if bunConfined && aboveStorage && p == modulePath+"/modules/"+m+"/internal/postgres" {
			rep.violations = append(rep.violations, fmt.Sprintf("storage: %s: imports %s (in %s only the module's wiring reaches internal/postgres)", rel, p, m))
		}
		if (p == fxPath || strings.HasPrefix(p, fxPath+"/")) && dir != "modules/"+m {
			rep.violations = append(rep.violations, fmt.Sprintf("wiring: %s: imports %s (only the module's root package, its wiring, imports fx)", rel, p))
		}
		if isDomain {
			for _, bad := range domainForbidden {
				if p == bad || strings.HasPrefix(p, bad+"/") {
					rep.violations = append(rep.violations, fmt.Sprintf("domain: %s: imports %s (a domain package imports no River, bun or net/http)", rel, p))
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if _, isImport := n.(*ast.ImportSpec); isImport {
			return false // import paths are not SQL
		}
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		rep.sqlTexts++
		rep.scanSQL(m, rel, s, tables)
		return true
	})
	return nil
}

// scanSQL reports the tables of other modules that text names.
func (rep *archReport) scanSQL(owner, rel, text string, tables map[string]map[string]bool) {
	prev := ""
	seen := map[string]bool{}
	for _, tok := range identRE.FindAllString(text, -1) {
		tok = strings.ToLower(tok)
		for other, p := range rep.prefixes {
			if other == owner || seen[tok] {
				continue
			}
			named := tables[other][tok] && strings.Contains(tok, "_")
			if named || (tablePosition[prev] && strings.HasPrefix(tok, p)) {
				seen[tok] = true
				rep.violations = append(rep.violations, fmt.Sprintf("sql: %s: names %s's table %q", rel, other, tok))
			}
		}
		prev = tok
	}
}

// tablePrefix is the common prefix of a module's tables: up to and with
// the first "_" when it has one table.
func tablePrefix(ts map[string]bool) (string, error) {
	names := make([]string, 0, len(ts))
	for t := range ts {
		names = append(names, t)
	}
	sort.Strings(names)
	p := names[0]
	if len(names) == 1 {
		if i := strings.IndexByte(p, '_'); i > 0 {
			p = p[:i+1]
		}
	}
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, p) {
			p = p[:len(p)-1]
		}
	}
	if len(p) < 4 {
		return "", fmt.Errorf("tables %v share no prefix of 4 or more characters (the convention is <module>_)", names)
	}
	return p, nil
}

// isStandard tells a standard-library import path: its first element has no dot.
func isStandard(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// isFakesPath tells a fake of a contract: modules/<m>/<m>api/<x>test.
func isFakesPath(p string) bool {
	rest, ok := strings.CutPrefix(p, modulePath+"/modules/")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	return len(parts) == 3 && parts[1] == parts[0]+"api" && strings.HasSuffix(parts[2], "test")
}

// isContractPath tells an import of a contract package: modules/<m>/<m>api.
func isContractPath(p string) bool {
	rest, ok := strings.CutPrefix(p, modulePath+"/modules/")
	if !ok {
		return false
	}
	m, pkg, ok := strings.Cut(rest, "/")
	return ok && pkg == m+"api"
}
