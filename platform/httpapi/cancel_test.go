package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"
)

// deadlineConn remembers the read deadline last set on a connection.
type deadlineConn struct {
	net.Conn
	mu       sync.Mutex
	deadline time.Time
}

func (c *deadlineConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return c.Conn.SetReadDeadline(t)
}

func (c *deadlineConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

func (c *deadlineConn) readDeadline() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadline
}

type deadlineListener struct{ net.Listener }

func (l deadlineListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &deadlineConn{Conn: c}, nil
}

type connKey struct{}

// TestNoReadDeadlineWhileAHandlerWorks: once the edge has read a body,
// net/http waits in the background for the connection's next bytes, and a
// read deadline on the connection ends that wait with a timeout, which
// cancels the request's context. So while a handler works, the connection
// has no read deadline: a slow operation (a send waiting on its team's
// billing lock) finishes instead of failing with "context canceled" 5 s in.
func TestNoReadDeadlineWhileAHandlerWorks(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	api := NewAPI(mux, APIOptions{Title: "t", Version: "1", Prefix: "/v1", ServerURL: "http://x/v1"})
	type seen struct {
		Deadline string `json:"deadline"`
		Err      string `json:"err"`
	}
	Register(api, huma.Operation{OperationID: "post-thing", Method: http.MethodPost, Path: "/things"},
		func(ctx context.Context, in *struct{ Body struct{ Name string } }) (*DataOutput[seen], error) {
			out := seen{Err: "none"}
			if d := ctx.Value(connKey{}).(*deadlineConn).readDeadline(); !d.IsZero() {
				out.Deadline = d.Format(time.RFC3339Nano)
			}
			if ctx.Err() != nil {
				out.Err = ctx.Err().Error()
			}
			return Data(out), nil
		})
	srv := httptest.NewUnstartedServer(Edge(mux, EdgeOptions{Name: "test", MaxBodyBytes: 1 << 20}))
	srv.Listener = deadlineListener{srv.Listener}
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	srv.Start()
	t.Cleanup(srv.Close)

	for i := 0; i < 2; i++ { // the second request reuses the connection
		resp, err := srv.Client().Post(srv.URL+"/v1/things", "application/json", strings.NewReader(`{"Name":"x"}`))
		require.NoError(t, err)
		var got struct{ Data seen }
		err = json.NewDecoder(resp.Body).Decode(&got)
		_ = resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, seen{Err: "none"}, got.Data, "request %d", i)
	}
}

// recordHandler sends each log record it handles to records.
type recordHandler struct{ records chan slog.Record }

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.records <- r
	return nil
}
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordHandler) WithGroup(string) slog.Handler      { return h }

// TestAClientThatHangsUpIsNotAnError: a request whose client went away
// fails in its handler, and its log line is INFO with client_gone, not an
// ERROR for a person to look at; a 500 the client does see stays an ERROR.
func TestAClientThatHangsUpIsNotAnError(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	api := NewAPI(mux, APIOptions{Title: "t", Version: "1", Prefix: "/v1", ServerURL: "http://x/v1"})
	started := make(chan struct{}, 1)
	Register(api, huma.Operation{OperationID: "wait", Method: http.MethodGet, Path: "/wait"},
		func(ctx context.Context, in *struct {
			Hang bool `query:"hang"`
		}) (*DataOutput[string], error) {
			if in.Hang {
				started <- struct{}{}
				<-ctx.Done()
			}
			return nil, errors.New("store unreachable")
		})
	records := make(chan slog.Record, 4)
	srv := httptest.NewServer(Edge(mux, EdgeOptions{Name: "test", MaxBodyBytes: 1 << 20, Log: slog.New(recordHandler{records})}))
	t.Cleanup(srv.Close)
	attrs := func(r slog.Record) map[string]any {
		m := map[string]any{}
		r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.Any(); return true })
		return m
	}

	resp, err := srv.Client().Get(srv.URL + "/v1/wait")
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	seen := <-records
	require.Equal(t, slog.LevelError, seen.Level)
	require.NotContains(t, attrs(seen), "client_gone")

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v1/wait?hang=true", nil)
	require.NoError(t, err)
	go func() { <-started; cancel() }()
	_, err = srv.Client().Do(req)
	require.ErrorIs(t, err, context.Canceled)
	gone := <-records
	require.Equal(t, slog.LevelInfo, gone.Level)
	require.Equal(t, int64(500), attrs(gone)["status"])
	require.Equal(t, true, attrs(gone)["client_gone"])
}
