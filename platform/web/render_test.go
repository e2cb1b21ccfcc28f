package web

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/fault"
)

// TestRefusalLogsWhatIsNoRefusal: a form that shows its error on the page
// shows a refusal's own status and message and logs nothing; anything else
// shows 500 and a generic message, and its cause is logged as Fail logs it,
// as an ERROR unless the browser had gone away.
func TestRefusalLogsWhatIsNoRefusal(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s, err := New(nil, nil, nil, Options{Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	require.NoError(t, err)
	r := httptest.NewRequest(http.MethodPost, "/app/compose", nil)

	status, msg := s.Refusal(r, fault.Newf(fault.Invalid, fault.CodeInvalidRequest, "Pick an audience."))
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "Pick an audience.", msg)
	require.Empty(t, logs.String())

	status, msg = s.Refusal(r, errors.New("insert message: connection refused"))
	require.Equal(t, http.StatusInternalServerError, status)
	require.NotContains(t, msg, "connection refused")
	require.Contains(t, logs.String(), `"level":"ERROR","msg":"dashboard request failed","path":"/app/compose","err":"insert message: connection refused"`)

	logs.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	status, _ = s.Refusal(r.WithContext(ctx), errors.New("select logins: context canceled"))
	require.Equal(t, http.StatusInternalServerError, status)
	require.Contains(t, logs.String(), `"level":"INFO","msg":"dashboard request ended: the browser went away"`)
}
