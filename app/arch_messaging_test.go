package app

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Messaging is not bun-confined yet (its send side still hands rows up),
// but its inbound side is (issue 17, item 1): these packages and files see
// domain types and store interfaces, never the postgres package. Test files
// may (a dbtest set-up builds the real store).
var storageFree = []string{
	"../modules/messaging/internal/inbound",
	"../modules/messaging/internal/httpapi/view/inbound.go",
}

const messagingPostgres = modulePath + "/modules/messaging/internal/postgres"

func TestMessagingInboundStorageFree(t *testing.T) {
	t.Parallel()
	bad, checked, err := storageImports(storageFree, messagingPostgres)
	require.NoError(t, err)
	require.GreaterOrEqual(t, checked, 10, "the guard read the inbound files")
	require.Empty(t, bad)
}

func TestMessagingInboundStorageFreeCatchesPlanted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inbox.go"),
		[]byte("package inbound\n\nimport _ \""+messagingPostgres+"\"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inbox_test.go"),
		[]byte("package inbound\n\nimport _ \""+messagingPostgres+"\"\n"), 0o600))
	bad, checked, err := storageImports([]string{dir}, messagingPostgres)
	require.NoError(t, err)
	require.Equal(t, 1, checked, "test files are not read")
	require.Equal(t, []string{filepath.Join(dir, "inbox.go") + ": imports " + messagingPostgres}, bad)
}

// storageImports reads the non-test Go files of paths (directories, not
// recursive, or files) and reports those importing forbidden, with how
// many files it read.
func storageImports(paths []string, forbidden string) ([]string, int, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, 0, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		ms, err := filepath.Glob(filepath.Join(p, "*.go"))
		if err != nil {
			return nil, 0, err
		}
		for _, m := range ms {
			if !strings.HasSuffix(m, "_test.go") {
				files = append(files, m)
			}
		}
	}
	var bad []string
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return nil, 0, fmt.Errorf("parse %s: %w", path, err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == forbidden {
				bad = append(bad, path+": imports "+p)
			}
		}
	}
	return bad, len(files), nil
}
