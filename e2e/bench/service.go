package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/teamtext/teamtext/e2e/harness"
)

// service is a `teamtext serve` started for the bench.
//
// harness.Start learns the service's random ports from its "http listening"
// log lines, which are info level, so it cannot start a service at
// LOG_LEVEL=warn. The bench wants warn (the per-request info log line would
// otherwise be part of what it measures, and so would piping it into this
// process), so it picks two free loopback ports itself, passes them as
// ADDR/ADMIN_ADDR and polls until both listeners answer.
type service struct {
	PublicURL string
	AdminURL  string
	cmd       *exec.Cmd
	logs      *tailBuffer
	done      chan struct{}
	exitErr   error
}

// startService starts `teamtext serve` with harness.Start's settings plus
// env (later entries win), retrying when a picked port was taken meanwhile.
func startService(ctx context.Context, bin, dbURL string, env ...string) (*service, error) {
	var err error
	for range 3 {
		var s *service
		s, err = startServiceOnce(ctx, bin, dbURL, env)
		if err == nil {
			return s, nil
		}
		if !strings.Contains(err.Error(), "address already in use") {
			return nil, err
		}
	}
	return nil, err
}

func startServiceOnce(ctx context.Context, bin, dbURL string, env []string) (*service, error) {
	public, err := freePort()
	if err != nil {
		return nil, err
	}
	admin, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+dbURL, "ADDR="+public, "ADMIN_ADDR="+admin, "ADMIN_TOKEN="+harness.AdminToken,
		"LOG_LEVEL=info", "SHUTDOWN_TIMEOUT=10s")
	cmd.Env = append(cmd.Env, env...)
	s := &service{PublicURL: "http://" + public, AdminURL: "http://" + admin, cmd: cmd,
		logs: &tailBuffer{max: 64 << 10}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.logs, s.logs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start teamtext: %w", err)
	}
	go func() {
		s.exitErr = cmd.Wait()
		close(s.done)
	}()

	client := &http.Client{Timeout: 2 * time.Second}
	up := func(url string, wantOK bool) bool {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false
		}
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return !wantOK || resp.StatusCode == http.StatusOK
	}
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		// Public: ready (database reachable, no pending migrations). Admin:
		// any HTTP answer means it is listening.
		if up(s.PublicURL+"/readyz", true) && up(s.AdminURL+"/admin/v1/teams", false) {
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("teamtext exited before it was ready: %v\n%s", s.exitErr, s.Logs())
		case <-deadline:
			_ = s.Kill()
			return nil, fmt.Errorf("teamtext was not ready within 30s\n%s", s.Logs())
		case <-ctx.Done():
			_ = s.Kill()
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// freePort returns a loopback address with a port that was free a moment ago.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Logs is the tail of what the process printed.
func (s *service) Logs() string { return s.logs.String() }

// Done is closed when the process has exited.
func (s *service) Done() <-chan struct{} { return s.done }

// Stop sends SIGTERM and waits for a graceful exit (SIGKILL after 30s).
func (s *service) Stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		var ee *exec.ExitError
		if errors.As(s.exitErr, &ee) {
			return fmt.Errorf("teamtext exited with %v", s.exitErr)
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = s.Kill()
		return errors.New("teamtext did not stop within 30s of SIGTERM")
	}
}

// Kill sends SIGKILL and waits for the process to go.
func (s *service) Kill() error {
	_ = s.cmd.Process.Kill()
	<-s.done
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
