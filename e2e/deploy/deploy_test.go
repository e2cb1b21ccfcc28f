//go:build deploy

// Package deploy proves deploy/compose.yaml as an operator runs it: `make
// up`'s script brings up Postgres, the migration, two replicas and HAProxy,
// and the test talks to the proxy over TLS only (`make test-deploy`).
package deploy

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness/load"
)

// stack is one compose project started for the test.
type stack struct {
	root    string   // repository root
	env     []string // the compose project's variables
	base    string   // https://localhost:<port>
	proxyIP string
	client  *http.Client
}

func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// run runs a command in the repository root with the stack's variables.
func (s *stack) run(t *testing.T, stdin io.Reader, name string, args ...string) []byte {
	t.Helper()
	out, err := s.try(stdin, name, args...)
	require.NoError(t, err, "%s %s", name, strings.Join(args, " "))
	return out
}

func (s *stack) try(stdin io.Reader, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = s.root
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s%s", err, out, stderr.String())
	}
	return out, nil
}

// compose runs docker compose (or docker-compose) on the test's project.
func (s *stack) compose(t *testing.T, stdin io.Reader, args ...string) []byte {
	t.Helper()
	bin, pre := "docker-compose", []string{}
	if exec.Command("docker", "compose", "version").Run() == nil {
		bin, pre = "docker", []string{"compose"}
	}
	var project, envFile string
	for _, e := range s.env {
		if v, ok := strings.CutPrefix(e, "COMPOSE_PROJECT_NAME="); ok {
			project = v
		}
		if v, ok := strings.CutPrefix(e, "DEPLOY_ENV_FILE="); ok {
			envFile = v
		}
	}
	all := append(pre, "-p", project, "-f", "deploy/compose.yaml", "--env-file", envFile)
	return s.run(t, stdin, bin, append(all, args...)...)
}

// admin runs the admin CLI inside replica app2 (the admin listener is not
// published), as the runbook tells operators to.
func (s *stack) admin(t *testing.T, stdin io.Reader, args ...string) map[string]any {
	t.Helper()
	out := s.compose(t, stdin, append([]string{"exec", "-T", "app2", "/teamtext", "admin"}, args...)...)
	var v map[string]any
	require.NoError(t, json.Unmarshal(out, &v), string(out))
	return v
}

func (s *stack) psqlInt(t *testing.T, sql string) int {
	t.Helper()
	out := s.compose(t, nil, "exec", "-T", "postgres", "psql", "-U", "teamtext", "-d", "teamtext", "-tAc", sql)
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	require.NoError(t, err, string(out))
	return n
}

func (s *stack) do(t *testing.T, method, path, key string, body any, headers ...string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := s.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if ok, _ := load.WaitFor(context.Background(), 250*time.Millisecond, within, func() (bool, error) { return cond(), nil }); !ok {
		t.Fatalf("%s: not within %s", what, within)
	}
}

// up builds the images and starts the project with `scripts/deploy.sh up`
// (what `make up` runs) on free ports and its own subnet.
func up(t *testing.T) *stack {
	t.Helper()
	s := &stack{root: repoRoot(t)}
	s.run(t, nil, "make", "-s", "image", "pg-image", "haproxy-image")
	envFile := filepath.Join(t.TempDir(), "deploy.env")
	require.NoError(t, os.WriteFile(envFile, []byte("ADMIN_TOKEN="+randomHex(16)+"\nPOSTGRES_PASSWORD="+randomHex(12)+"\n"), 0o600))
	octet := 100 + os.Getpid()%150
	s.proxyIP = fmt.Sprintf("172.29.%d.10", octet)
	port := freePort(t)
	s.env = []string{
		"COMPOSE_PROJECT_NAME=ttdeploy" + strconv.Itoa(os.Getpid()), "DEPLOY_ENV_FILE=" + envFile,
		"HTTPS_PORT=" + port, "PROXY_STATS_PORT=" + freePort(t),
		"BACKEND_SUBNET=" + fmt.Sprintf("172.29.%d.0/24", octet), "PROXY_IP=" + s.proxyIP,
		// A replica killed mid-send leaves River jobs running: rescue them soon.
		"JOB_TIMEOUT=5s", "JOB_RESCUE_AFTER=5s", "TWILIO_RATE=100",
	}
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := s.try(nil, "scripts/deploy.sh", "logs")
			t.Logf("compose logs:\n%s", out)
		}
		if out, err := s.try(nil, "scripts/deploy.sh", "destroy"); err != nil {
			t.Logf("destroy: %v\n%s", err, out)
		}
	})
	s.run(t, nil, "scripts/deploy.sh", "up")

	// Trust exactly the certificate the proxy generated: TLS is verified.
	pemCert := s.compose(t, nil, "exec", "-T", "proxy", "cat", "/certs/teamtext.crt")
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pemCert))
	s.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost", MinVersion: tls.VersionTLS12},
	}}
	s.base = "https://localhost:" + port
	return s
}

// TestComposeDeployment: the whole operator path through HAProxy over TLS.
func TestComposeDeployment(t *testing.T) {
	s := up(t)
	status, body := s.do(t, "GET", "/readyz", "", nil)
	require.Equal(t, 200, status, string(body))

	// A team, its head coach and a key, with the admin CLI.
	code := "d" + randomHex(4)
	team := s.admin(t, nil, "teams", "create", "-f", "name=Deploy "+code, "-f", "code="+code,
		"-f", "time_zone=America/New_York", "-f", "plan=team_plus", "-F", "card_on_file=true", "-f", "number=+12025550123")
	teamID := team["data"].(map[string]any)["id"].(string)
	coach := s.admin(t, nil, "members", "create", "--team", teamID, "-f", "name=Head Coach", "-f", "phone=+12025550199",
		"-f", "role=head_coach", "-F", "dashboard_login=true")
	key := s.admin(t, nil, "keys", "create", "--team", teamID, "-f", "member_id="+coach["data"].(map[string]any)["id"].(string), "-f", "name=deploy")
	apiKey := key["data"].(map[string]any)["key"].(string)
	const athletes = 1500 // 8 pages of deliveries: under the heavy pool's 10 a minute
	var csv strings.Builder
	csv.WriteString("name,phone,role\n")
	for i := range athletes {
		fmt.Fprintf(&csv, "Athlete %d,+1415%03d%04d,athlete\n", i, 200+i/10000, i%10000)
	}
	// The CLI imports a regular file: copy one into the replica.
	csvFile := filepath.Join(t.TempDir(), "members.csv")
	require.NoError(t, os.WriteFile(csvFile, []byte(csv.String()), 0o644))
	app2 := strings.TrimSpace(string(s.compose(t, nil, "ps", "-q", "app2")))
	s.run(t, nil, "docker", "cp", csvFile, app2+":/members.csv")
	s.compose(t, nil, "exec", "-T", "app2", "/teamtext", "admin", "members", "import", "/members.csv", "--team", teamID)
	// Paced at 100 texts a second across both replicas: 20 s of sending,
	// so the kill below lands mid-send.
	s.admin(t, nil, "simulator", "profile", "-f", "name=realistic", "-F", "duplicate_rate=0.05", "-F", "reorder_rate=0.1",
		"-F", "report_latency_min_ms=50", "-F", "report_latency_max_ms=500")

	// A broadcast through the proxy.
	status, body = s.do(t, "POST", "/api/v1/messages", apiKey, map[string]any{"text": "Practice moved to 6pm", "audience": "all"})
	require.Equal(t, 201, status, string(body))
	var sent struct {
		Data struct {
			ID         string `json:"id"`
			Recipients int    `json:"recipients"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &sent))
	total := athletes + 1
	require.Equal(t, total, sent.Data.Recipients)
	outbox := func() int {
		return s.psqlInt(t, "SELECT count(*) FROM messaging_sim_outbox WHERE team_id = '"+teamID+"'")
	}
	waitFor(t, time.Minute, "300 texts handed over", func() bool { return outbox() >= 300 })

	// SIGKILL one replica mid-send.
	id := strings.TrimSpace(string(s.compose(t, nil, "ps", "-q", "app1")))
	s.run(t, nil, "docker", "kill", "--signal", "KILL", id)
	mid := outbox()
	require.Less(t, mid, total, "killed in the middle of the send")
	t.Logf("app1 killed with %d of %d texts handed over", mid, total)
	// The proxy keeps answering: a connection refused by the dead replica
	// is retried on the other, and the health check takes it out.
	for range 20 {
		status, body = s.do(t, "GET", "/api/v1/team", apiKey, nil)
		require.Equal(t, 200, status, string(body))
	}

	// Every delivery final, every recipient texted exactly once.
	deliveries := func(state string) int {
		return s.psqlInt(t, "SELECT count(*) FROM messaging_deliveries WHERE message_id = '"+sent.Data.ID+"' AND status = '"+state+"'")
	}
	waitFor(t, 3*time.Minute, "every delivery delivered", func() bool { return deliveries("delivered") == total })
	require.Equal(t, total, outbox(), "every recipient texted")
	require.Equal(t, 0, s.psqlInt(t, "SELECT count(*) FROM (SELECT to_phone FROM messaging_sim_outbox WHERE team_id = '"+teamID+
		"' GROUP BY to_phone HAVING count(*) > 1) d"), "nobody texted twice")

	// The deliveries read through the proxy, page by page: each final once.
	seen := map[string]bool{}
	for offset := 0; ; {
		status, body = s.do(t, "GET", fmt.Sprintf("/api/v1/messages/%s/deliveries?limit=200&offset=%d", sent.Data.ID, offset), apiKey, nil)
		require.Equal(t, 200, status, string(body))
		var page struct {
			Data []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"data"`
			Pagination struct {
				NextOffset *int `json:"next_offset"`
			} `json:"pagination"`
		}
		require.NoError(t, json.Unmarshal(body, &page))
		for _, d := range page.Data {
			require.False(t, seen[d.ID], "delivery %s listed twice", d.ID)
			seen[d.ID] = true
			require.Equal(t, "delivered", d.Status)
		}
		if page.Pagination.NextOffset == nil {
			break
		}
		offset = *page.Pagination.NextOffset
	}
	require.Len(t, seen, total)

	// The per-IP limit counts the client's address, not the proxy's: 60
	// unauthenticated requests, then 429, whatever X-Forwarded-For the
	// client forges; the bucket is the client's address.
	before := s.psqlInt(t, "SELECT count(*) FROM platform_rate_limits WHERE bucket = 'ip:"+s.proxyIP+"'")
	require.Equal(t, 0, before, "nothing was ever counted against the proxy")
	statuses := map[int]int{}
	for i := range 61 {
		status, _ = s.do(t, "GET", "/api/v1/team", "", nil, "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i))
		statuses[status]++
	}
	require.Equal(t, map[int]int{401: 60, 429: 1}, statuses)
	require.Equal(t, 0, s.psqlInt(t, "SELECT count(*) FROM platform_rate_limits WHERE bucket = 'ip:"+s.proxyIP+"' OR bucket LIKE 'ip:198.51.100.%'"),
		"neither the proxy nor a forged address was counted")
	require.Equal(t, 1, s.psqlInt(t, "SELECT count(*) FROM platform_rate_limits WHERE bucket LIKE 'ip:%'"), "one client, one bucket")

	// The restore drill on the quiet database: a backup restored into a
	// copy holds the same rows and no pending migration.
	s.compose(t, nil, "stop", "app1", "app2")
	drill := exec.Command("scripts/restore-drill.sh")
	drill.Dir = s.root
	drill.Env = append(append(os.Environ(), s.env...), "DRILL_EXPECT_QUIET=1")
	out, err := drill.CombinedOutput()
	require.NoError(t, err, "restore drill: %s", out)
	t.Logf("restore drill:\n%s", out)
}
