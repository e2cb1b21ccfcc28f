package worker_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/delivery"
	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/internal/guard"
	"github.com/teamtext/teamtext/modules/webhooks/internal/service"
	"github.com/teamtext/teamtext/modules/webhooks/internal/signature"
	"github.com/teamtext/teamtext/modules/webhooks/internal/webhooktest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/events"
)

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

// receiver is a local HTTPS integrator that verifies every signature and
// notes when each event (by data.seq) arrived.
type receiver struct {
	srv     *httptest.Server
	secret  atomic.Value // string
	mu      sync.Mutex
	arrived map[int]time.Time
	bad     atomic.Int64
	total   atomic.Int64
	conns   atomic.Int64 // TLS connections accepted
}

func newReceiver(tb testing.TB, h2 bool) *receiver {
	tb.Helper()
	r := &receiver{arrived: map[int]time.Time{}}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		now := time.Now()
		secret, _ := r.secret.Load().(string)
		if signature.Verify(secret, req.Header.Get(delivery.HeaderSignature), body, now, signature.Tolerance) != nil {
			r.bad.Add(1)
		}
		var env struct {
			Data struct {
				Seq int `json:"seq"`
			} `json:"data"`
		}
		_ = json.Unmarshal(body, &env)
		r.mu.Lock()
		if _, dup := r.arrived[env.Data.Seq]; !dup {
			r.arrived[env.Data.Seq] = now
		}
		r.mu.Unlock()
		r.total.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	r.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			r.conns.Add(1)
		}
	}
	r.srv.EnableHTTP2 = h2
	r.srv.StartTLS()
	tb.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.arrived)
}

// env is the whole delivery path: the event log, River with the delivery
// worker, the guarded client and a local receiver reached through the
// allowlist.
func newEnv(tb testing.TB, workers int, h2 bool) (*webhooktest.Env, *receiver, string) {
	tb.Helper()
	rcv := newReceiver(tb, h2)
	roots := x509.NewCertPool()
	roots.AddCert(rcv.srv.Certificate())
	g := guard.New(guard.Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, RootCAs: roots})
	sender := delivery.NewSender(g.Client(), clock.Real{})
	e := webhooktest.New(tb, srv, webhooktest.Options{Sender: sender, Guard: g, RunWorkers: true, RealClock: true, WebhookWorkers: workers})
	team, coach := e.Team("team_bench", billingapi.PlanBusiness)
	c, err := e.Svc.Create(context.Background(), service.NewWebhook{TeamID: team, URL: rcv.srv.URL + "/hook",
		Events: []string{events.MemberJoined}, Source: domain.SourceAPI, CreatedBy: coach})
	if err != nil {
		tb.Fatal(err)
	}
	rcv.secret.Store(c.Secret)
	return e, rcv, team
}

func publish(ctx context.Context, e *webhooktest.Env, team string, seq int) error {
	return e.DB.Tx(ctx, func(ctx context.Context) error {
		return e.Log.Publish(ctx, events.Event{TeamID: team, Type: events.MemberJoined, Data: map[string]int{"seq": seq}})
	})
}

// TestWorkerDeliversThroughRiver: events published in transactions reach
// the receiver through River, signed, each once, over connections the
// guarded client keeps and reuses (a TLS handshake per delivery would cost
// more than the rest of it).
func TestWorkerDeliversThroughRiver(t *testing.T) {
	t.Parallel()
	for _, h2 := range []bool{true, false} {
		t.Run(fmt.Sprintf("http2=%v", h2), func(t *testing.T) {
			t.Parallel()
			const n, workers = 300, 50
			e, rcv, team := newEnv(t, workers, h2)
			var wg sync.WaitGroup
			for g := range 10 {
				wg.Go(func() {
					for i := g; i < n; i += 10 {
						require.NoError(t, publish(context.Background(), e, team, i))
					}
				})
			}
			wg.Wait()
			require.Eventually(t, func() bool { return rcv.count() == n }, 60*time.Second, 10*time.Millisecond)
			require.Zero(t, rcv.bad.Load(), "every signature verifies")
			require.EqualValues(t, n, rcv.total.Load())
			t.Logf("%d deliveries over %d connections", n, rcv.conns.Load())
			// At most one request per worker is in flight, but net/http may
			// dial a connection for a waiting request and then hand that
			// request an idle one that came back first; the dialled
			// connection joins the pool, so the count can pass the worker
			// count by a few (CI saw 54 for 50). Twice the workers still
			// proves reuse: without it there would be one per delivery.
			require.LessOrEqual(t, rcv.conns.Load(), int64(2*workers), "connections are kept and reused, not one per delivery")
		})
	}
}

// BenchmarkDelivery measures signed deliveries per second through the whole
// path (publish in a transaction → River → worker → guarded HTTPS POST →
// attempt recorded) to a local receiver, and the latency from the event's
// commit to its receipt. Publishers run concurrently, one event per
// transaction, as use cases publish.
func BenchmarkDelivery(b *testing.B) {
	for _, workers := range []int{200, 50} { // WEBHOOK_WORKERS: the default, and a quarter of it
		b.Run("webhook_workers="+strconv.Itoa(workers), func(b *testing.B) {
			e, rcv, team := newEnv(b, workers, true)
			ctx := context.Background()
			committed := make([]time.Time, b.N)
			var next atomic.Int64
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for range 16 {
				wg.Go(func() {
					for {
						i := int(next.Add(1)) - 1
						if i >= b.N {
							return
						}
						if err := publish(ctx, e, team, i); err != nil {
							b.Error(err)
							return
						}
						committed[i] = time.Now()
					}
				})
			}
			wg.Wait()
			for rcv.count() < b.N {
				if time.Since(start) > 5*time.Minute {
					b.Fatalf("delivered %d of %d", rcv.count(), b.N)
				}
				time.Sleep(time.Millisecond)
			}
			elapsed := time.Since(start)
			b.StopTimer()
			if rcv.bad.Load() > 0 {
				b.Fatalf("%d signatures did not verify", rcv.bad.Load())
			}
			lat := make([]time.Duration, 0, b.N)
			rcv.mu.Lock()
			for i, at := range rcv.arrived {
				lat = append(lat, max(0, at.Sub(committed[i])))
			}
			rcv.mu.Unlock()
			slices.Sort(lat)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deliveries/s")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
