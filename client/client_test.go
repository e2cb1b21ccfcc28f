package client_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/app"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// TestClientIsCurrent fails when the client is stale: the document it was
// generated from differs from what the code serves, or the generator
// (pinned in go.mod) makes other code from it. `make client` fixes both.
func TestClientIsCurrent(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load(func(string) string { return "" }, config.Need{})
	require.NoError(t, err)
	pub, _, err := app.Documents(cfg, "client")
	require.NoError(t, err)
	doc, err := httpapi.Document(pub, "3.0", false)
	require.NoError(t, err)
	committed, err := os.ReadFile("openapi-3.0.json")
	require.NoError(t, err)
	require.True(t, bytes.Equal(bytes.TrimSpace(doc), bytes.TrimSpace(committed)),
		"client/openapi-3.0.json is not what /api/v1/openapi-3.0.json serves: run make client")

	// Generate again with the pinned generator and compare.
	out := filepath.Join(t.TempDir(), "client.gen.go")
	settings, err := os.ReadFile("oapi-codegen.yaml")
	require.NoError(t, err)
	cfgFile := filepath.Join(t.TempDir(), "oapi-codegen.yaml")
	require.NoError(t, os.WriteFile(cfgFile, []byte(strings.Replace(string(settings), "output: client/client.gen.go", "output: "+out, 1)), 0o600))
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", cfgFile, "openapi-3.0.json")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, string(b))
	want, err := os.ReadFile(out)
	require.NoError(t, err)
	got, err := os.ReadFile("client.gen.go")
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "client/client.gen.go is not what oapi-codegen makes of the document: run make client")
}
