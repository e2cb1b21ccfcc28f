//go:build deploy

package deploy

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// TestProxyThroughput measures (never asserts) `GET /api/v1/team` through
// HAProxy over TLS to two replicas against one replica reached directly,
// in alternating rounds, and the replicas' RSS idle and after the load.
// `make bench-deploy` runs it; figures go to docs/BENCHMARKS.md by hand.
func TestProxyThroughput(t *testing.T) {
	ctx := context.Background()
	rounds, _ := strconv.Atoi(cmpOr(os.Getenv("BENCH_ROUNDS"), "2"))
	secs, _ := strconv.Atoi(cmpOr(os.Getenv("BENCH_SECONDS"), "8"))
	workers, _ := strconv.Atoi(cmpOr(os.Getenv("BENCH_WORKERS"), "16"))
	pg, err := harness.StartPostgres(ctx)
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	bin, err := harness.BuildBinary(ctx, false)
	require.NoError(t, err)
	require.NoError(t, harness.Migrate(ctx, bin, pg.URL))
	var nodes []*harness.Service
	for range 2 {
		svc, err := harness.Start(ctx, bin, pg.URL, "LOG_LEVEL=warn", "TRUSTED_PROXIES=127.0.0.1/32")
		require.NoError(t, err)
		t.Cleanup(func() { _ = svc.Stop() })
		nodes = append(nodes, svc)
	}
	admin := &harness.Client{Base: nodes[0].AdminURL + "/admin/v1", Token: harness.AdminToken, HTTP: &http.Client{Timeout: 30 * time.Second}}
	f, err := harness.NewTeam(ctx, admin, harness.TeamOptions{})
	require.NoError(t, err)

	// HAProxy on the host network in front of both, with deploy/haproxy.cfg's
	// settings and the two local ports as servers.
	root := repoRoot(t)
	cfg, err := os.ReadFile(filepath.Join(root, "deploy", "haproxy.cfg"))
	require.NoError(t, err)
	port := freePort(t)
	local := strings.NewReplacer(
		"bind :8443 ssl", "bind 127.0.0.1:"+port+" ssl",
		"bind :8404", "bind 127.0.0.1:"+freePort(t),
		"server app1 app1:8080", "server app1 "+strings.TrimPrefix(nodes[0].PublicURL, "http://"),
		"server app2 app2:8080", "server app2 "+strings.TrimPrefix(nodes[1].PublicURL, "http://"),
		" resolvers docker init-addr last,libc,none", "",
		"    nameserver dns 127.0.0.11:53\n", "    nameserver dns 127.0.0.53:53\n",
	).Replace(string(cfg))
	// A plain-HTTP frontend beside the TLS one, to tell TLS's cost from the hop's.
	plainPort := freePort(t)
	local += "\nfrontend plain\n    bind 127.0.0.1:" + plainPort + "\n    option forwardfor\n    default_backend teamtext\n"
	cfgFile := filepath.Join(t.TempDir(), "haproxy.cfg")
	require.NoError(t, os.WriteFile(cfgFile, []byte(local), 0o644))
	require.NoError(t, os.Chmod(filepath.Dir(cfgFile), 0o755))
	s := &stack{root: root}
	name := "ttproxybench" + strconv.Itoa(os.Getpid())
	s.run(t, nil, "docker", "run", "-d", "--name", name, "--network", "host", "-v", cfgFile+":/etc/haproxy/haproxy.cfg:ro",
		cmpOr(os.Getenv("HAPROXY_IMAGE"), "teamtext-haproxy:2.6"))
	t.Cleanup(func() { _, _ = s.try(nil, "docker", "rm", "-f", name) })

	proxyURL := "https://127.0.0.1:" + port
	insecure := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: workers} //nolint:gosec // a local self-signed proxy
	waitFor(t, 30*time.Second, "proxy ready", func() bool {
		resp, err := (&http.Client{Transport: insecure, Timeout: 2 * time.Second}).Get(proxyURL + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})

	// Keys: 120 requests a minute each; a fresh set for every round, enough
	// for 2,000 req/s (100 requests a key).
	perRound := 2000 * secs
	newKeys := func(n int) []string {
		keys := make([]string, n)
		for i := range keys {
			var k struct {
				Key string `json:"key"`
			}
			require.NoError(t, admin.Expect(ctx, 201, "POST", "/teams/"+f.TeamID+"/api-keys", map[string]any{"member_id": f.CoachID, "name": "bench" + strconv.Itoa(i)}, &k))
			keys[i] = k.Key
		}
		return keys
	}

	rss := func(label string) string {
		var parts []string
		for i, n := range nodes {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", n.PID()))
			require.NoError(t, err)
			var cur, peak string
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
					cur = strings.TrimSpace(v)
				}
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					peak = strings.TrimSpace(v)
				}
			}
			parts = append(parts, fmt.Sprintf("node%d RSS %s (peak %s)", i+1, cur, peak))
		}
		return label + ": " + strings.Join(parts, ", ")
	}
	t.Log(rss("idle"))

	run := func(base string, tr *http.Transport, keys []string) (float64, int) {
		client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		var next, ok, bad atomic.Int64
		deadline := time.Now().Add(time.Duration(secs) * time.Second)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					key := keys[int(next.Add(1))%len(keys)]
					req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/team", nil)
					req.Header.Set("Authorization", "Bearer "+key)
					resp, err := client.Do(req)
					if err != nil {
						bad.Add(1)
						continue
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == 200 {
						ok.Add(1)
					} else {
						bad.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		return float64(ok.Load()) / float64(secs), int(bad.Load())
	}
	direct := &http.Transport{MaxIdleConnsPerHost: workers}
	plain := &http.Transport{MaxIdleConnsPerHost: workers}
	var sumSingle, sumProxy, sumPlain float64
	for r := 1; r <= rounds; r++ {
		single, badS := run(nodes[0].PublicURL, direct, newKeys(perRound/100+1))
		proxied, badP := run(proxyURL, insecure, newKeys(perRound/100+1))
		hop, badH := run("http://127.0.0.1:"+plainPort, plain, newKeys(perRound/100+1))
		sumSingle += single
		sumProxy += proxied
		sumPlain += hop
		t.Logf("round %d: single node direct %.0f req/s (%d not 200); proxy + 2 replicas over TLS %.0f req/s (%d not 200), ratio %.2f; "+
			"proxy + 2 replicas plain HTTP %.0f req/s (%d not 200), ratio %.2f", r, single, badS, proxied, badP, proxied/single, hop, badH, hop/single)
	}
	t.Logf("mean: single %.0f req/s, proxy TLS %.0f req/s (ratio %.2f), proxy plain %.0f req/s (ratio %.2f); %d workers, %d s rounds",
		sumSingle/float64(rounds), sumProxy/float64(rounds), sumProxy/sumSingle, sumPlain/float64(rounds), sumPlain/sumSingle, workers, secs)
	t.Log(rss("after load"))
	out, err := s.try(nil, "docker", "image", "inspect", "-f", "{{.Size}}", cmpOr(os.Getenv("IMAGE"), "teamtext:latest"))
	if err == nil {
		t.Logf("image teamtext:latest: %s bytes", strings.TrimSpace(string(out)))
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
