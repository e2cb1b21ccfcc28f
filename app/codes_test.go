package app

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestErrorCodesDeclaredOnce holds the spec's error codes to one
// declaration each (checkCodes): the contract packages declare the
// modules' codes, platform/fault, platform/auth and platform/httpapi the
// shared ones, and every other use goes through the constant.
func TestErrorCodesDeclaredOnce(t *testing.T) {
	t.Parallel()
	rep, err := checkCodes("..", codeLiteralElsewhere)
	require.NoError(t, err)
	require.Empty(t, rep.violations)
	require.GreaterOrEqual(t, len(rep.declared), 50, "the guard found the codes' declarations")
	require.Equal(t, []string{"modules/billing/billingapi/billingapi.go"}, rep.declared["trial_limit"])
}

// TestErrorCodesCatchPlanted runs checkCodes over testdata/codes, a tree
// with one planted violation of each rule, and testdata/codesclean, the
// same tree without them.
func TestErrorCodesCatchPlanted(t *testing.T) {
	t.Parallel()
	rep, err := checkCodes("testdata/codes", nil)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{
		`declared twice: "widget_limit" in modules/alpha/alphaapi/codes.go and modules/alpha/internal/domain/domain.go`,
		`literal: modules/alpha/internal/service/service.go: "widget_exists" is the code alphaapi.CodeWidgetExists declares; use the constant`,
		`inline: modules/alpha/internal/service/service.go: fault.New's code is the literal "brand_new"; declare it once as a constant`,
		`inline: modules/alpha/internal/service/service.go: fault.New's code is the literal "widget_limit"; declare it once as a constant`,
		`inline: platform/edge/edge.go: NewError's code is the literal "edge_busy"; declare it once as a constant`,
		`inline: platform/edge/edge.go: fault.Error's Code is the literal "edge_down"; declare it once as a constant`,
	}, rep.violations)

	clean, err := checkCodes("testdata/codesclean", nil)
	require.NoError(t, err)
	require.Empty(t, clean.violations)
	require.Len(t, clean.declared, 3)
}

// codeLiteralElsewhere are string literals that spell a code but belong to
// another vocabulary, by file and value.
var codeLiteralElsewhere = map[string]string{
	// The roster entry status opted_out (Member.Status), not the error code.
	"modules/roster/internal/domain/domain.go:opted_out":                  "StatusOptedOut, the member status",
	"modules/roster/internal/web/roster.go:opted_out":                     "the member status filter",
	"modules/roster/internal/httpapi/roster.go:opted_out":                 "the member status of a consent import row",
	"modules/roster/rosterapi/rostertest/rostertest.go:opted_out":         "the member status in the roster fake",
	"modules/roster/rosterapi/rostertest/exercise.go:opted_out":           "the member status the fake's exercise expects",
	"platform/httpapi/access.go:card_required":                            "a member of the x-teamtext-access extension (a boolean)",
	"modules/messaging/fakes/bandwidthtest/bandwidthtest.go:forbidden":    "Bandwidth's own error type, in the fake carrier",
	"modules/messaging/fakes/bandwidthtest/bandwidthtest.go:unauthorized": "Bandwidth's own error type, in the fake carrier",
}

// codeDeclRE is what an error code looks like: snake_case words (a
// carrier's numeric code, e.g. "21610", is not one of ours).
var codeDeclRE = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// codeCtors are the calls whose argument at the index is an error code.
var codeCtors = map[string]int{"fault.New": 1, "fault.Newf": 1, "NewError": 1, "httpapi.NewError": 1,
	"WriteError": 2, "carrierhttp.WriteError": 2}

// codeReport is what checkCodes found.
type codeReport struct {
	declared   map[string][]string // code → the files declaring it
	violations []string
}

// checkCodes reads the production Go files (not _test.go, not testdata)
// under root's modules, platform and app directories and reports:
//
//   - "declared twice": a code (a snake_case string) that two constants
//     named Code… are declared with;
//
//   - "literal": a string literal spelling a declared code anywhere but in
//     its declaration (struct tags aside), unless elsewhere lists it by
//     file and value as another vocabulary's word;
//
//   - "inline": a string literal where an error code goes: the code
//     argument of fault.New, fault.Newf, NewError or WriteError, or the
//     Code of a fault.Error literal, even when no constant declares it.
func checkCodes(root string, elsewhere map[string]string) (*codeReport, error) {
	type lit struct {
		rel, value string
	}
	rep := &codeReport{declared: map[string][]string{}}
	declName := map[string]string{} // code → pkg.Name
	var lits []lit
	for _, top := range []string{"modules", "platform", "app"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && path == filepath.Join(root, top) {
					return filepath.SkipDir
				}
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return fmt.Errorf("parse %s: %w", rel, err)
			}
			decl := map[*ast.BasicLit]bool{} // literals read already: declarations, tags, inline codes
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ImportSpec:
					return false
				case *ast.Field:
					if n.Tag != nil {
						decl[n.Tag] = true // a struct tag names JSON members, not codes
					}
				case *ast.GenDecl:
					if n.Tok != token.CONST {
						return true
					}
					for _, spec := range n.Specs {
						vs := spec.(*ast.ValueSpec)
						for i, name := range vs.Names {
							if i >= len(vs.Values) || !strings.HasPrefix(name.Name, "Code") {
								continue
							}
							bl, ok := vs.Values[i].(*ast.BasicLit)
							if !ok || bl.Kind != token.STRING {
								continue
							}
							v, err := strconv.Unquote(bl.Value)
							if err != nil || !codeDeclRE.MatchString(v) {
								continue
							}
							decl[bl] = true
							rep.declared[v] = append(rep.declared[v], rel)
							if _, ok := declName[v]; !ok {
								declName[v] = f.Name.Name + "." + name.Name
							}
						}
					}
				case *ast.CallExpr:
					name := exprName(n.Fun)
					if i, ok := codeCtors[name]; ok && i < len(n.Args) {
						if v, ok := stringLit(n.Args[i]); ok {
							decl[n.Args[i].(*ast.BasicLit)] = true // reported here, not again as a literal
							rep.violations = append(rep.violations, fmt.Sprintf("inline: %s: %s's code is the literal %q; declare it once as a constant", rel, name, v))
						}
					}
				case *ast.CompositeLit:
					if t := exprName(n.Type); t == "fault.Error" || t == "Error" && f.Name.Name == "fault" {
						for _, el := range n.Elts {
							kv, ok := el.(*ast.KeyValueExpr)
							if !ok || exprName(kv.Key) != "Code" {
								continue
							}
							if v, ok := stringLit(kv.Value); ok {
								decl[kv.Value.(*ast.BasicLit)] = true
								rep.violations = append(rep.violations, fmt.Sprintf("inline: %s: fault.Error's Code is the literal %q; declare it once as a constant", rel, v))
							}
						}
					}
				case *ast.BasicLit:
					if n.Kind != token.STRING || decl[n] {
						return true
					}
					if v, err := strconv.Unquote(n.Value); err == nil && codeDeclRE.MatchString(v) {
						lits = append(lits, lit{rel, v})
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for v, files := range rep.declared {
		if len(files) > 1 {
			sort.Strings(files)
			rep.violations = append(rep.violations, fmt.Sprintf("declared twice: %q in %s", v, strings.Join(files, " and ")))
		}
	}
	seen := map[lit]bool{}
	for _, l := range lits {
		if _, isCode := rep.declared[l.value]; !isCode || seen[l] {
			continue
		}
		seen[l] = true
		if _, ok := elsewhere[l.rel+":"+l.value]; ok {
			continue
		}
		rep.violations = append(rep.violations, fmt.Sprintf("literal: %s: %q is the code %s declares; use the constant", l.rel, l.value, declName[l.value]))
	}
	sort.Strings(rep.violations)
	return rep, nil
}

// exprName is the name of an identifier or selector (pkg.Name), else "".
func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name
		}
	case *ast.StarExpr:
		return exprName(e.X)
	}
	return ""
}

// stringLit is the value of e when e is a string literal.
func stringLit(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(bl.Value)
	return v, err == nil
}
