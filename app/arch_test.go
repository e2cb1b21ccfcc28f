package app

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const modulePath = "github.com/teamtext/teamtext"

// TestArchitecture guards the module boundaries of ARCHITECTURE.md: a module
// imports another module only through its <module>api contract package, and
// platform/ imports no module. (The compiler already stops imports of
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
			if imp != modulePath+"/modules/"+target+"/"+target+"api" {
				t.Errorf("%s (module %s) imports %s: only %sapi is allowed across modules", p.ImportPath, owner, imp, target)
			}
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

func TestModuleOf(t *testing.T) {
	t.Parallel()
	require.Equal(t, "roster", moduleOf(modulePath+"/modules/roster/internal/service"))
	require.Equal(t, "billing", moduleOf(modulePath+"/modules/billing"))
	require.Equal(t, "", moduleOf(modulePath+"/platform/db"))
}
