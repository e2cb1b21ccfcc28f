// Package e2e drives teamtext as integrators and operators do: the real
// binary on random ports, a testcontainers Postgres, real HTTP.
package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/teamtext/teamtext/e2e/harness"
)

// suite is what every test in this package shares: one database, one
// built binary and one running service. Tests isolate by creating teams.
type suite struct {
	pg    *harness.Postgres
	bin   string
	svc   *harness.Service
	admin *harness.Client
}

var env suite

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

// sharedEnv names the variable through which `go test -fuzz`'s worker
// processes find the coordinator's database and service instead of
// starting their own.
const sharedEnv = "TEAMTEXT_E2E_SHARED"

// shared is what a fuzz worker needs of the coordinator's suite.
type shared struct {
	DatabaseURL, PublicURL, AdminURL, Bin string
}

func run(m *testing.M) int {
	flag.Parse()
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		var sh shared
		if err := json.Unmarshal([]byte(os.Getenv(sharedEnv)), &sh); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: fuzz worker without", sharedEnv, err)
			return 1
		}
		env.pg, env.bin = &harness.Postgres{URL: sh.DatabaseURL}, sh.Bin
		env.svc = &harness.Service{PublicURL: sh.PublicURL, AdminURL: sh.AdminURL}
		env.admin = harness.NewClient(env.svc.AdminURL+"/admin/v1", harness.AdminToken)
		return m.Run()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	stack, err := harness.Up(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer stack.PG.Stop()
	env.pg, env.bin, env.svc = stack.PG, stack.Bin, stack.Svc
	env.admin = harness.NewClient(env.svc.AdminURL+"/admin/v1", harness.AdminToken)
	sh, _ := json.Marshal(shared{DatabaseURL: env.pg.URL, PublicURL: env.svc.PublicURL, AdminURL: env.svc.AdminURL, Bin: env.bin})
	os.Setenv(sharedEnv, string(sh)) // inherited by fuzz workers
	rec := harness.Record()
	code := m.Run()
	if c := contract(context.Background(), rec); c != 0 {
		code = c
	}
	if err := closeChrome(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: browser:", err)
	}
	if err := env.svc.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: stop:", err)
		code = 1
	}
	if out := os.Getenv("E2E_SERVICE_LOG"); out != "" { // the suite's node's whole log, to read its WARN and ERROR lines
		if err := os.WriteFile(out, []byte(env.svc.Logs()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: service log:", err)
		}
	}
	if code != 0 {
		fmt.Fprintln(os.Stderr, "--- service logs (tail) ---")
		logs := env.svc.Logs()
		if len(logs) > 20000 {
			logs = logs[len(logs)-20000:]
		}
		fmt.Fprintln(os.Stderr, logs)
	}
	return code
}

// contract validates every recorded exchange against the served documents
// (contract_test.go) and prints what it covered; 1 on any mismatch.
func contract(ctx context.Context, rec *harness.Recorder) int {
	exchanges := rec.Exchanges()
	if out := os.Getenv("E2E_EXCHANGES"); out != "" { // for working on the check itself
		if b, err := json.Marshal(exchanges); err == nil {
			_ = os.WriteFile(out, b, 0o644)
		}
	}
	docs, err := harness.LoadContractDocs(ctx, env.svc)
	if err != nil {
		fmt.Println("--- FAIL: contract:", err)
		return 1
	}
	r := harness.CheckContract(ctx, docs, exchanges)
	fmt.Println(r.Summary())
	if out := os.Getenv("E2E_CONTRACT_REPORT"); out != "" {
		report := r.Summary() + "\n\nmismatches:\n" + strings.Join(r.Failures(), "\n") + "\n\nnot covered:\n" + strings.Join(r.Uncovered(docs), "\n") + "\n"
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			fmt.Println("contract: write report:", err)
		}
	}
	if f := r.Failures(); len(f) > 0 {
		fmt.Printf("--- FAIL: contract: %d ways the wire disagrees with the OpenAPI documents\n", len(f))
		for _, line := range f {
			fmt.Println("    " + line)
		}
		return 1
	}
	return 0
}

// startService runs an extra service on the suite's database, stopped at test end.
func startService(t testing.TB, extraEnv ...string) *harness.Service {
	t.Helper()
	return startServiceOn(t, env.pg.URL, extraEnv...)
}

// startServiceOn runs an extra service on the database at url.
func startServiceOn(t testing.TB, url string, extraEnv ...string) *harness.Service {
	t.Helper()
	svc, err := harness.Start(context.Background(), env.bin, url, extraEnv...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-svc.Done():
		default:
			_ = svc.Stop()
		}
	})
	return svc
}

// newTeam makes a fresh team with a head coach and key on the shared service.
func newTeam(t *testing.T, o harness.TeamOptions) (*harness.Fixture, *harness.Client) {
	t.Helper()
	f, err := harness.NewTeam(context.Background(), env.admin, o)
	if err != nil {
		t.Fatal(err)
	}
	return f, harness.NewClient(env.svc.PublicURL+"/api/v1", f.Key)
}

// psql runs SQL in the suite's container as the superuser.
func psql(t testing.TB, db, sql string) {
	t.Helper()
	code, out, err := env.pg.Container.Exec(context.Background(), []string{"psql", "-U", "teamtext", "-d", db, "-v", "ON_ERROR_STOP=1", "-c", sql})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(out)
	if code != 0 {
		t.Fatalf("psql: exit %d: %s", code, b)
	}
}

// freshDatabase creates and migrates a new database in the suite's
// container, for tests that must not share state (a moved clock, a missing
// migration), and returns its URL.
func freshDatabase(t testing.TB, name string) string {
	t.Helper()
	psql(t, "teamtext", "CREATE DATABASE "+name)
	url := strings.Replace(env.pg.URL, "/teamtext?", "/"+name+"?", 1)
	if err := harness.Migrate(context.Background(), env.bin, url); err != nil {
		t.Fatal(err)
	}
	return url
}
