package httpapi

import (
	"context"
	"encoding/json"
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
