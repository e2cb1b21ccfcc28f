package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// AdminToken is the admin token every harness-started service uses.
const AdminToken = "e2e-admin-token-0123456789"

// Service is a running `teamtext serve` process.
type Service struct {
	PublicURL string
	AdminURL  string
	cmd       *exec.Cmd
	mu        sync.Mutex
	logs      bytes.Buffer
	done      chan struct{}
	exitErr   error
}

// Migrate runs `teamtext migrate` against dbURL.
func Migrate(ctx context.Context, bin, dbURL string) error {
	cmd := exec.CommandContext(ctx, bin, "migrate")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "LOG_LEVEL=warn")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("migrate: %w\n%s", err, b)
	}
	return nil
}

// Start runs `teamtext serve` on random loopback ports. env adds or
// overrides variables (e.g. CLOCK=test). It returns once both listeners are
// up. The ports are learnt from the service's "http listening" log lines;
// when env raises LOG_LEVEL above info (a benchmark), the harness picks free
// ports itself instead and waits for /readyz.
func Start(ctx context.Context, bin, dbURL string, env ...string) (*Service, error) {
	if !quiet(env) {
		return start(ctx, bin, dbURL, "127.0.0.1:0", "127.0.0.1:0", env)
	}
	var err error
	for range 3 { // a port free a moment ago may be taken by the time we bind
		var public, admin string
		if public, err = freePort(); err != nil {
			return nil, err
		}
		if admin, err = freePort(); err != nil {
			return nil, err
		}
		var s *Service
		if s, err = start(ctx, bin, dbURL, public, admin, env); err == nil {
			return s, nil
		}
		if !strings.Contains(err.Error(), "address already in use") {
			return nil, err
		}
	}
	return nil, err
}

// quiet reports whether env sets LOG_LEVEL to warn or error.
func quiet(env []string) bool {
	level := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "LOG_LEVEL="); ok {
			level = v
		}
	}
	return level == "warn" || level == "error"
}

func start(ctx context.Context, bin, dbURL, publicAddr, adminAddr string, env []string) (*Service, error) {
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+dbURL, "ADDR="+publicAddr, "ADMIN_ADDR="+adminAddr, "ADMIN_TOKEN="+AdminToken,
		"LOG_LEVEL=info", "SHUTDOWN_TIMEOUT=10s",
		// Every dashboard test signs in from 127.0.0.1: the per-address
		// throttle (30 in 10 minutes by default) would refuse the suite.
		"SIGNIN_CODES_PER_ADDRESS=100000")
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &Service{cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &lockedWriter{s: s}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start teamtext: %w", err)
	}
	addrs := make(chan [2]string, 1)
	go s.readLogs(stdout, addrs)
	go func() {
		s.exitErr = cmd.Wait()
		close(s.done)
	}()
	if !strings.HasSuffix(publicAddr, ":0") {
		s.PublicURL, s.AdminURL = "http://"+publicAddr, "http://"+adminAddr
		go s.pollReady(ctx, addrs)
	}
	select {
	case a := <-addrs:
		s.PublicURL, s.AdminURL = "http://"+a[0], "http://"+a[1]
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("teamtext exited before listening: %v\n%s", s.exitErr, s.Logs())
	case <-time.After(30 * time.Second):
		_ = s.Kill()
		return nil, fmt.Errorf("teamtext did not start within 30s\n%s", s.Logs())
	case <-ctx.Done():
		_ = s.Kill()
		return nil, ctx.Err()
	}
}

// pollReady reports the fixed addresses once the public API is ready (the
// database reachable, no pending migrations) and the admin API answers.
func (s *Service) pollReady(ctx context.Context, addrs chan<- [2]string) {
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
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if up(s.PublicURL+"/readyz", true) && up(s.AdminURL+"/admin/v1/teams", false) {
			select {
			case addrs <- [2]string{strings.TrimPrefix(s.PublicURL, "http://"), strings.TrimPrefix(s.AdminURL, "http://")}:
			default:
			}
			return
		}
		select {
		case <-s.done:
			return
		case <-ctx.Done():
			return
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

func (s *Service) readLogs(r io.Reader, addrs chan<- [2]string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var public, admin string
	sent := false
	for sc.Scan() {
		line := sc.Text()
		s.mu.Lock()
		s.logs.WriteString(line + "\n")
		s.mu.Unlock()
		if sent || !strings.Contains(line, `"http listening"`) {
			continue
		}
		var l struct {
			API  string `json:"api"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal([]byte(line), &l) == nil {
			switch l.API {
			case "public":
				public = l.Addr
			case "admin":
				admin = l.Addr
			}
		}
		if public != "" && admin != "" {
			addrs <- [2]string{public, admin}
			sent = true
		}
	}
}

type lockedWriter struct{ s *Service }

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.logs.Write(b)
}

// Logs returns everything the process printed so far.
func (s *Service) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// Stop sends SIGTERM and waits for a graceful exit.
func (s *Service) Stop() error {
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

// Kill sends SIGKILL (a crash) and waits for the process to go.
func (s *Service) Kill() error {
	_ = s.cmd.Process.Kill()
	<-s.done
	return nil
}

// Signal sends sig without waiting.
func (s *Service) Signal(sig os.Signal) error { return s.cmd.Process.Signal(sig) }

// Done is closed when the process has exited.
func (s *Service) Done() <-chan struct{} { return s.done }

// Metric reads the unlabelled metric name from the /metrics of the
// service whose admin listener is adminURL.
func Metric(ctx context.Context, adminURL, name string) (float64, error) {
	r, err := NewClient(adminURL, AdminToken).Do(ctx, http.MethodGet, "/metrics", nil)
	if err == nil && r.Status != http.StatusOK {
		err = fmt.Errorf("GET /metrics: status %d", r.Status)
	}
	if err != nil {
		return 0, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(r.Body))
	if err != nil {
		return 0, fmt.Errorf("parse /metrics: %w", err)
	}
	f, ok := families[name]
	if !ok {
		return 0, fmt.Errorf("no %s in /metrics", name)
	}
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) > 0 {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), nil
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), nil
		case m.Untyped != nil:
			return m.GetUntyped().GetValue(), nil
		}
	}
	return 0, fmt.Errorf("%s in /metrics has no unlabelled counter or gauge", name)
}

// PID is the process id of the running service (for CPU accounting).
func (s *Service) PID() int { return s.cmd.Process.Pid }
