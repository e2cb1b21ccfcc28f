package twilio_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/twiliotest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carriertest"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/twilio"
	"github.com/teamtext/teamtext/platform/clock"
)

func TestMain(m *testing.M) { os.Exit(carriertest.Main(m)) }

// Test credentials in Twilio's shapes (an account SID is AC + 32 hex).
const (
	accountSID = "AC0123456789abcdef0123456789abcdef"
	authToken  = "fedcba9876543210fedcba9876543210"
)

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
	fake *twiliotest.Server
	logs *syncBuffer
	cfg  twilio.Config
}

// setup returns an adapter talking to a fake Twilio.
// Status callbacks go to publicBaseURL, which nothing serves here.
func setup(t *testing.T, tune ...func(*twilio.Config)) (*twilio.Carrier, *testBundle) {
	t.Helper()
	fake := twiliotest.NewServer(t, accountSID, authToken)
	logs := &syncBuffer{}
	cfg := twilio.Config{AccountSID: accountSID, AuthToken: authToken, APIURL: fake.URL,
		PublicBaseURL: "https://teamtext.example.com"}
	for _, f := range tune {
		f(&cfg)
	}
	c, err := twilio.New(cfg, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	require.NoError(t, err)
	return c, &testBundle{fake: fake, logs: logs, cfg: cfg}
}

type callbackBundle struct {
	sink    *carriertest.Sink // where the handler's status reports go
	url     string            // base URL of the server running the handler (its PUBLIC_BASE_URL)
	clock   *clock.Fake
	handler *twilio.CallbackHandler
}

// setupCallback runs the status callback handler, mounted at StatusPath,
// reporting to a sink on its own database (carriertest.NewDBSink).
func setupCallback(t *testing.T) *callbackBundle {
	t.Helper()
	sink := carriertest.NewDBSink(t)
	log := slog.New(slog.DiscardHandler)
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) // stands still: callback times are whatever it says
	h := twilio.NewCallbackHandler(sink, authToken, base, clk, log)
	mux := http.NewServeMux()
	mux.Handle(twilio.StatusPath, h)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return &callbackBundle{sink: sink, url: base, clock: clk, handler: h}
}
