// Package harness starts what the black-box suites and the benchmark need:
// a Postgres container (testcontainers), the teamtext binary on random
// ports, and small clients for the public and admin APIs.
package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
)

// DefaultImage is built by `make pg-image` (pulled and tagged where a
// registry is reachable, built from Debian packages where not).
const DefaultImage = "teamtext-postgres:15"

// Postgres is a running database container.
type Postgres struct {
	Container *tcpostgres.PostgresContainer
	URL       string
}

// ensureEnv gives testcontainers the settings this kind of machine needs
// unless the caller set them (the Makefile does).
func ensureEnv() {
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	if os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") == "" {
		_ = os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
	}
}

// StartPostgres starts a fresh database (fsync off: tests only).
func StartPostgres(ctx context.Context) (*Postgres, error) {
	ensureEnv()
	img := os.Getenv("PG_IMAGE")
	if img == "" {
		img = DefaultImage
	}
	c, err := tcpostgres.Run(ctx, img,
		tcpostgres.WithDatabase("teamtext"),
		tcpostgres.WithUsername("teamtext"),
		tcpostgres.WithPassword("teamtext"),
		tcpostgres.BasicWaitStrategies(),
		testcontainers.WithCmdArgs("-c", "max_connections=300"),
	)
	if err != nil {
		return nil, fmt.Errorf("start postgres (%s; run `make pg-image`): %w", img, err)
	}
	url, err := c.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		_ = testcontainers.TerminateContainer(c)
		return nil, err
	}
	return &Postgres{Container: c, URL: url}, nil
}

// Stop removes the container.
func (p *Postgres) Stop() {
	_ = testcontainers.TerminateContainer(p.Container)
}

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
