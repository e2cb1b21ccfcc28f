package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/modules/messaging/fakes/twiliotest"
)

// newestMigration is the path of the newest migration file (by its
// timestamped name) and the commit that added it.
func newestMigration(t *testing.T) (path, commit string) {
	t.Helper()
	root := harness.RepoRoot()
	out, err := exec.Command("git", "-C", root, "ls-files", "*.up.sql").Output()
	require.NoError(t, err)
	files := strings.Fields(string(out))
	require.NotEmpty(t, files)
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	path = files[len(files)-1]
	out, err = exec.Command("git", "-C", root, "log", "--diff-filter=A", "--format=%H", "-1", "--", path).Output()
	require.NoError(t, err)
	commit = strings.TrimSpace(string(out))
	require.NotEmpty(t, commit, "%s is committed", path)
	return path, commit
}

// buildAt builds app/teamtext as it was at rev (a clean tree from git
// archive; the build cache makes unchanged packages free).
func buildAt(t *testing.T, rev string) string {
	t.Helper()
	dir := t.TempDir()
	archive := exec.Command("git", "-C", harness.RepoRoot(), "archive", "--format=tar", rev)
	untar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	require.NoError(t, err)
	untar.Stdin = pipe
	require.NoError(t, untar.Start())
	require.NoError(t, archive.Run())
	require.NoError(t, untar.Wait())
	bin := filepath.Join(dir, "teamtext-previous")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./app/teamtext")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	b, err := build.CombinedOutput()
	require.NoError(t, err, "build %s: %s", rev, b)
	return bin
}

// plainClient talks to a service without recording the exchange: the
// previous build's answers are not held to this build's documents.
func plainClient(base, token string) *harness.Client {
	return &harness.Client{Base: base, Token: token, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// TestMigrationsUnderPreviousBuild: the rolling-upgrade rule (expand, then
// contract a release later) held by the newest migration. The build from
// just before it runs on its own schema; the newest migrations are applied
// under it while it serves; it keeps serving — reads, writes, a broadcast
// delivered — and another node of the previous build still starts on the
// migrated schema (a rollout's old pods restarting, or a rollback).
func TestMigrationsUnderPreviousBuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path, commit := newestMigration(t)
	t.Logf("newest migration %s, added in %.12s; previous build at its parent", filepath.Base(path), commit)
	prev := buildAt(t, commit+"^")

	psql(t, "teamtext", "CREATE DATABASE upgrade_prev")
	url := strings.Replace(env.pg.URL, "/teamtext?", "/upgrade_prev?", 1)
	require.NoError(t, harness.Migrate(ctx, prev, url))
	old := startBinOn(t, prev, url)
	admin := plainClient(old.AdminURL+"/admin/v1", harness.AdminToken)

	serves := func(svc *harness.Service, label string) {
		t.Helper()
		servesOn(t, admin, svc, url, label)
	}
	serves(old, "previous build on its own schema")

	require.NoError(t, harness.Migrate(ctx, env.bin, url), "the newest migrations, applied while the previous build serves")
	serves(old, "previous build after the newest migrations")
	restarted := startBinOn(t, prev, url)
	serves(restarted, "previous build started on the migrated schema")
	serves(startBinOn(t, env.bin, url), "this build beside it")
}

// startBinOn runs bin (another build) on url, stopped at test end.
func startBinOn(t *testing.T, bin, url string) *harness.Service {
	t.Helper()
	svc, err := harness.Start(context.Background(), bin, url)
	require.NoError(t, err)
	t.Cleanup(func() {
		select {
		case <-svc.Done():
		default:
			_ = svc.Stop()
		}
	})
	return svc
}

// servesOn checks that svc serves on the database at url: a new team with
// three members, a read, a broadcast delivered to all of them (River's jobs
// at work) and /readyz (no migration pending for this build).
func servesOn(t *testing.T, admin *harness.Client, svc *harness.Service, url, label string) {
	t.Helper()
	ctx := context.Background()
	f, err := harness.NewTeam(ctx, admin, harness.TeamOptions{Extra: map[string]any{"number": teamNumber()}})
	require.NoError(t, err, label)
	api := plainClient(svc.PublicURL+"/api/v1", f.Key)
	for i, phone := range []string{"+12025550101", "+12025550102", "+12025550103"} {
		r, err := api.Do(ctx, "POST", "/members", map[string]any{"name": "Athlete " + string(rune('A'+i)), "phone": phone})
		require.NoError(t, err)
		require.Equal(t, 201, r.Status, "%s: %s", label, r.Body)
	}
	r, err := api.Do(ctx, "GET", "/team", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status, label)
	require.Positive(t, practiceDelivered(t, api, url, label), label)
	r, err = plainClient(svc.PublicURL, "").Do(ctx, "GET", "/readyz", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status, "%s: %s", label, r.Body)
}

// practiceDelivered broadcasts "Practice at 6" to everyone through api,
// waits up to 60 s for every delivery (in the database at url) to be
// delivered, and returns how many recipients the broadcast had.
func practiceDelivered(t *testing.T, api *harness.Client, url, label string) int {
	t.Helper()
	r, err := api.Do(context.Background(), "POST", "/messages", map[string]any{"text": "Practice at 6", "audience": "all"})
	require.NoError(t, err)
	require.Equal(t, 201, r.Status, "%s: %s", label, r.Body)
	var m struct {
		ID         string `json:"id"`
		Recipients int    `json:"recipients"`
	}
	require.NoError(t, r.Data(&m))
	waitFor(t, 60*time.Second, func() bool { return deliveries(t, url, m.ID, "delivered") == m.Recipients })
	return m.Recipients
}

// riverUpgrade is the commit that moved River to v0.51.2: the build at its
// parent is the last on River v0.41.0.
func riverUpgrade(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "-C", harness.RepoRoot(), "log", "--format=%H", "-S", "github.com/riverqueue/river v0.51.2", "--", "go.mod").Output()
	require.NoError(t, err)
	commits := strings.Fields(string(out))
	require.NotEmpty(t, commits, "the River upgrade is committed")
	return commits[len(commits)-1] // the oldest: the one that added the line
}

// riverSchema is the newest version of River's main migration line applied to url.
func riverSchema(t *testing.T, url string) int {
	t.Helper()
	return countRowsIn(t, url, `SELECT max(version)::int FROM river_migration WHERE line = 'main'`)
}

// TestRiverUpgradeUnderPreviousBuild: the build on River v0.41.0 migrates
// and serves a database (River's schema at version 7); this build's
// migrate brings River's schema forward while that build serves; it keeps
// serving (its River works on the newer schema, as during a rolling
// upgrade), and this build serves beside it: its River works the jobs of a
// broadcast and its readiness sees nothing pending.
func TestRiverUpgradeUnderPreviousBuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	commit := riverUpgrade(t)
	t.Logf("River upgraded in %.12s; previous build at its parent", commit)
	prev := buildAt(t, commit+"^")

	psql(t, "teamtext", "CREATE DATABASE upgrade_river")
	url := strings.Replace(env.pg.URL, "/teamtext?", "/upgrade_river?", 1)
	require.NoError(t, harness.Migrate(ctx, prev, url))
	require.Equal(t, 7, riverSchema(t, url), "River v0.41.0's schema")
	old := startBinOn(t, prev, url)
	admin := plainClient(old.AdminURL+"/admin/v1", harness.AdminToken)
	servesOn(t, admin, old, url, "the build on River v0.41.0")

	require.NoError(t, harness.Migrate(ctx, env.bin, url), "River's newer migrations, applied while the previous build serves")
	require.Greater(t, riverSchema(t, url), 7)
	servesOn(t, admin, old, url, "the build on River v0.41.0 after River's migrations")
	servesOn(t, admin, startBinOn(t, env.bin, url), url, "this build beside it")
}

// TestTwilioDeploymentUpgradesToCarrierAccounts: a deployment configured
// only by CARRIER=twilio and TWILIO_* (the build before carrier accounts)
// sends through Twilio; the carrier-accounts migration is applied; this
// build, with the same environment and nothing else, keeps sending through
// the same Twilio account, and lists it as the one default account.
func TestTwilioDeploymentUpgradesToCarrierAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const (
		base  = "https://teamtext.example.test"
		sid   = "AC0a1b2c3d4e5f60718293a4b5c6d7e8f9"
		token = "twilioupgrade0123456789abcdefghi"
	)
	out, err := exec.Command("git", "-C", harness.RepoRoot(), "log", "--diff-filter=A", "--format=%H", "-1", "--",
		"modules/messaging/internal/postgres/migrations/20261207140001_carrier_accounts.tx.up.sql").Output()
	require.NoError(t, err)
	commit := strings.TrimSpace(string(out))
	require.NotEmpty(t, commit)
	prev := buildAt(t, commit+"^")

	psql(t, "teamtext", "CREATE DATABASE upgrade_twilio")
	url := strings.Replace(env.pg.URL, "/teamtext?", "/upgrade_twilio?", 1)
	require.NoError(t, harness.Migrate(ctx, prev, url))
	tw := twiliotest.NewServer(t, sid, token)
	vars := []string{"CARRIER=twilio", "TWILIO_ACCOUNT_SID=" + sid, "TWILIO_AUTH_TOKEN=" + token, "TWILIO_API_URL=" + tw.URL, "PUBLIC_BASE_URL=" + base}
	var node atomic.Pointer[harness.Service]
	tw.Rewrite = func(u string) string { return strings.Replace(u, base, node.Load().PublicURL, 1) }
	flushEvery(t, 200*time.Millisecond, tw.Flush)

	sends := func(bin, label string) {
		t.Helper()
		svc, err := harness.Start(ctx, bin, url, vars...)
		require.NoError(t, err, label)
		defer func() {
			if t.Failed() {
				logAlarms(t, label, svc) // what the node said about a 500
			}
			_ = svc.Stop()
		}()
		node.Store(svc)
		admin := plainClient(svc.AdminURL+"/admin/v1", harness.AdminToken)
		f, err := harness.NewTeam(ctx, admin, harness.TeamOptions{Extra: map[string]any{"number": teamNumber()}})
		require.NoError(t, err, label)
		api := plainClient(svc.PublicURL+"/api/v1", f.Key)
		r, err := api.Do(ctx, "POST", "/members", map[string]any{"name": "Athlete", "phone": "+12025550131"})
		require.NoError(t, err)
		require.Equal(t, 201, r.Status, "%s: %s", label, r.Body)
		before := len(tw.Messages())
		recipients := practiceDelivered(t, api, url, label)
		require.Equal(t, before+recipients, len(tw.Messages()), "%s: through the Twilio account", label)
		require.NotContains(t, svc.Logs(), token, label)
	}
	sends(prev, "the build before carrier accounts")
	require.NoError(t, harness.Migrate(ctx, env.bin, url))
	sends(env.bin, "this build, same environment")

	svc := startServiceOn(t, url, vars...)
	var list []carrierAccount
	require.NoError(t, plainClient(svc.AdminURL+"/admin/v1", harness.AdminToken).Expect(ctx, 200, "GET", "/carrier-accounts", nil, &list))
	require.Len(t, list, 1)
	require.True(t, list[0].Default)
	require.Equal(t, "twilio", list[0].Provider, "the environment's account")
	require.Zero(t, countRowsIn(t, url, `SELECT count(*) FROM messaging_numbers WHERE carrier_account_id <> 'cac_default'`),
		"every number, old and new, sends through the default account")
}
