// Package dbtest starts a real Postgres for integration tests
// (testcontainers, one container per test binary) and opens migrated
// databases on it. No mocks: tests run against the engine production uses.
package dbtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	neturl "net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"

	"github.com/teamtext/teamtext/platform/db"
)

// DefaultImage is built by `make pg-image`.
const DefaultImage = "teamtext-postgres:15"

// Server is a running Postgres container.
type Server struct {
	Container *tcpostgres.PostgresContainer
	URL       string // the "teamtext" database
	seq       atomic.Int64
}

// ensureEnv gives testcontainers the settings this machine needs unless set.
func ensureEnv() {
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	if os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") == "" {
		_ = os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
	}
}

// Start runs a fresh Postgres (image from PG_IMAGE, else DefaultImage).
func Start(ctx context.Context) (*Server, error) {
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
	if d := direct(ctx, c, url); d != "" {
		url = d
	}
	return &Server{Container: c, URL: url}, nil
}

// direct returns url aimed at the container's own address on Docker's
// bridge network, when this process can reach it (Linux hosts can; Docker
// Desktop's cannot), else "". The published port goes through Docker's
// userland proxy, a process that copies every byte each way: under the
// benchmarks' load it took a sixth of this 2-core machine, which the
// service and Postgres then lacked. Production has no such proxy.
// PG_PUBLISHED_PORT=1 keeps the published port.
func direct(ctx context.Context, c *tcpostgres.PostgresContainer, raw string) string {
	if os.Getenv("PG_PUBLISHED_PORT") == "1" {
		return ""
	}
	ip, err := c.ContainerIP(ctx)
	if err != nil || ip == "" {
		return ""
	}
	addr := net.JoinHostPort(ip, "5432")
	conn, err := (&net.Dialer{Timeout: 500 * time.Millisecond}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return ""
	}
	_ = conn.Close()
	u, err := neturl.Parse(raw)
	if err != nil {
		return ""
	}
	u.Host = addr
	return u.String()
}

// Stop removes the container.
func (s *Server) Stop() { _ = testcontainers.TerminateContainer(s.Container) }

// CreateDatabase makes a new empty database and returns its URL.
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	code, out, err := s.Container.Exec(ctx, []string{"psql", "-U", "teamtext", "-d", "teamtext", "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE " + name})
	if err != nil {
		return "", err
	}
	if code != 0 {
		b, _ := io.ReadAll(out)
		return "", fmt.Errorf("create database %s: %s", name, b)
	}
	return strings.Replace(s.URL, "/teamtext?", "/"+name+"?", 1), nil
}

// Migrated opens a new database with sets applied (River's schema always),
// closed when t ends.
func (s *Server) Migrated(t testing.TB, sets ...db.MigrationSet) *db.DB {
	t.Helper()
	ctx := context.Background()
	url, err := s.CreateDatabase(ctx, fmt.Sprintf("t%d_%d", os.Getpid(), s.seq.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.Open(ctx, url, 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	if err := db.Migrate(ctx, d, sets, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return d
}

// Main is a TestMain body: it starts the server, runs the tests and stops it.
func Main(m *testing.M, srv **Server) int {
	s, err := Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Stop()
	*srv = s
	return m.Run()
}
