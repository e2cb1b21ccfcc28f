package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// TestAdminHelpHidesToken: help text never prints the live admin token; the
// flag says where its value comes from instead, and commands still use it.
func TestAdminHelpHidesToken(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"admin", "--help"}, {"admin", "teams", "get", "--help"}, {"admin", "request", "--help"}} {
		code, stdout, stderr := runCLI(t, args...)
		require.Equal(t, 0, code, stderr)
		require.NotContains(t, stdout+stderr, harness.AdminToken, "%v prints the token", args)
		require.Contains(t, stdout, "(from ADMIN_TOKEN)", "%v says where the token comes from", args)
	}
	f, _ := newTeam(t, harness.TeamOptions{})
	code, stdout, stderr := runCLI(t, "admin", "teams", "get", "--team", f.TeamID)
	require.Equal(t, 0, code, "the environment's token is still used: %s", stderr)
	require.Contains(t, stdout, f.TeamID)
}
