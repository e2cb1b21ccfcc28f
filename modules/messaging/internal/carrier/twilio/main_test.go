package twilio_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carriertest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio/twiliotest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

// Test credentials in Twilio's shapes (an account SID is AC + 32 hex).
const (
	accountSID = "AC0123456789abcdef0123456789abcdef"
	authToken  = "fedcba9876543210fedcba9876543210"
)

// fakeClock is moved only by Sleep, so pacing and backoff take simulated
// time and the tests never wait.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
	// onSleep, if set, runs before a sleep (tests cancel contexts in it).
	onSleep func()
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) NowOrNil() *time.Time { t := c.Now(); return &t }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if c.onSleep != nil {
		c.onSleep()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.t = c.t.Add(d)
	return nil
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// syncBuffer collects log output safely across goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type testBundle struct {
	fake  *twiliotest.Server
	clock *fakeClock
	logs  *syncBuffer
	cfg   twilio.Config
}

// setup returns an adapter talking to a fake Twilio, on a fake clock.
// Status callbacks go to publicBaseURL, which nothing serves here.
func setup(t *testing.T, tune ...func(*twilio.Config)) (*twilio.Carrier, *testBundle) {
	t.Helper()
	clk := newFakeClock()
	fake := twiliotest.NewServer(t, accountSID, authToken)
	fake.Now = clk.Now
	logs := &syncBuffer{}
	cfg := twilio.Config{AccountSID: accountSID, AuthToken: authToken, APIURL: fake.URL,
		PublicBaseURL: "https://teamtext.example.com", Rate: 1, Clock: clk, Sleep: clk.Sleep}
	for _, f := range tune {
		f(&cfg)
	}
	c, err := twilio.New(cfg, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	require.NoError(t, err)
	return c, &testBundle{fake: fake, clock: clk, logs: logs, cfg: cfg}
}

type callbackBundle struct {
	db      *db.DB
	url     string // base URL of the server running the handler (its PUBLIC_BASE_URL)
	clock   *fakeClock
	handler *twilio.CallbackHandler
}

// setupCallback runs the status callback handler, mounted at StatusPath,
// on a migrated database with an insert-only River.
func setupCallback(t *testing.T) *callbackBundle {
	t.Helper()
	d := server.Migrated(t, db.PlatformMigrations())
	log := slog.New(slog.DiscardHandler)
	j, err := jobs.New(d, clock.Real{}, []jobs.Registration{carriertest.StatusWorkers}, metrics.New(), log, jobs.Options{})
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	clk := newFakeClock()
	h := twilio.NewCallbackHandler(d, j, authToken, base, clk, log)
	mux := http.NewServeMux()
	mux.Handle(twilio.StatusPath, h)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return &callbackBundle{db: d, url: base, clock: clk, handler: h}
}
