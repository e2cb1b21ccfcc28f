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
	f, api := newTeam(t, harness.TeamOptions{})
	code, stdout, stderr := runCLI(t, "admin", "teams", "get", "--team", f.TeamID)
	require.Equal(t, 0, code, "the environment's token is still used: %s", stderr)
	require.Contains(t, stdout, f.TeamID)

	// Nor do the service's logs, whatever was asked of it: no admin token, no key.
	requireCode(t, do(t, harness.NewClient(env.svc.PublicURL+"/api/v1", f.Key+"x"), "GET", "/team", nil), 401, "unauthorized")
	require.Equal(t, 200, getTeam(t, api).Status)
	logs := env.svc.Logs()
	require.NotContains(t, logs, harness.AdminToken)
	require.NotContains(t, logs, f.Key)
	require.NotRegexp(t, `tt_live_[0-9A-Za-z]{40}`, logs)
}
