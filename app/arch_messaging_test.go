package app

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// In messaging, storage is behind the domain on both sides, so a use case
// can be read and tested without SQL: below modules/messaging/internal only the postgres package
// imports it; the use cases, handlers and views see domain types and store
// interfaces. The module's wiring (module.go) provides the store.
// Test files may import it (a dbtest set-up builds the real store).
const messagingPostgres = modulePath + "/modules/messaging/internal/postgres"

func TestMessagingStorageStaysBelow(t *testing.T) {
	t.Parallel()
	bad, checked, err := storageImports("../modules/messaging/internal", "postgres", messagingPostgres)
	require.NoError(t, err)
	require.GreaterOrEqual(t, checked, 50, "the guard read messaging's internal packages")
	require.Empty(t, bad)
}

func TestMessagingStorageStaysBelowCatchesPlanted(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for path, src := range map[string]string{
		"inbound/inbox.go":       "package inbound\n\nimport _ \"" + messagingPostgres + "\"\n",
		"inbound/inbox_test.go":  "package inbound\n\nimport _ \"" + messagingPostgres + "\"\n",
		"httpapi/view/view.go":   "package view\n\nimport (\n\t\"fmt\"\n\tpg \"" + messagingPostgres + "\"\n)\n",
		"postgres/postgres.go":   "package postgres\n\nimport _ \"" + messagingPostgres + "/migrations\"\n",
		"service/service.go":     "package service\n\nimport _ \"" + modulePath + "/modules/messaging/internal/domain\"\n",
		"postgres/sub/helper.go": "package sub\n\nimport _ \"" + messagingPostgres + "\"\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(path)), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(root, path), []byte(src), 0o600))
	}
	bad, checked, err := storageImports(root, "postgres", messagingPostgres)
	require.NoError(t, err)
	require.Equal(t, 3, checked, "test files and the postgres package (with its subdirectories) are not read")
	require.ElementsMatch(t, []string{
		"httpapi/view/view.go: imports " + messagingPostgres,
		"inbound/inbox.go: imports " + messagingPostgres,
	}, bad)
}

// storageImports reads the non-test Go files under root, except those in
// root's directory skip and below it, and reports those importing
// forbidden (by path relative to root), with how many files it read.
func storageImports(root, skip, forbidden string) ([]string, int, error) {
	var bad []string
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == skip || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".go" || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		checked++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("parse %s: %w", rel, err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == forbidden {
				bad = append(bad, rel+": imports "+p)
			}
		}
		return nil
	})
	return bad, checked, err
}
