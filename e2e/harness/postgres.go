// Package harness starts what the black-box suites and the benchmark need:
// a Postgres container (testcontainers), the teamtext binary on random
// ports, and small clients for the public and admin APIs.
package harness

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/teamtext/teamtext/platform/db/dbtest"
)

// Postgres is a running database container.
type Postgres = dbtest.Server

// StartPostgres starts a fresh database (fsync off: tests only).
func StartPostgres(ctx context.Context) (*Postgres, error) { return dbtest.Start(ctx) }

// RepoRoot is the module root (where go.mod is).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// BuildBinary builds bin/teamtext-e2e (with -race when race is true) and returns its path.
func BuildBinary(ctx context.Context, race bool) (string, error) {
	out := filepath.Join(RepoRoot(), "bin", "teamtext-e2e")
	args := []string{"build", "-o", out}
	if race {
		args = append(args, "-race")
	}
	args = append(args, "./app/teamtext")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, b)
	}
	return out, nil
}
