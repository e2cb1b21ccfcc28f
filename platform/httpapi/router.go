package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/metrics"
)

// RequestIDHeader carries the request id in both directions.
const RequestIDHeader = "X-Request-Id"

// reqState is what the edge learns about a request as it passes through the
// layers, for the one log line written when it ends.
type reqState struct {
	id     string
	err    error
	attrs  []slog.Attr
	route  string
	status int
	// statements counts what the request sent to Postgres (db_statements in its log line).
	statements *db.StatementCounter
}

type stateKey struct{}

func stateFrom(ctx context.Context) *reqState {
	st, _ := ctx.Value(stateKey{}).(*reqState)
	return st
}

// AddLogAttrs adds attributes (team id, key id, ...) to the request's log line.
func AddLogAttrs(ctx context.Context, attrs ...slog.Attr) {
	if st := stateFrom(ctx); st != nil {
		st.attrs = append(st.attrs, attrs...)
	}
}

// EdgeOptions configures the outer handler of one API.
type EdgeOptions struct {
	Name         string // "public" or "admin": a label in logs and metrics
	MaxBodyBytes int64
	// BodyLimit and MediaTypes may override the defaults (JSON, MaxBodyBytes)
	// for a route pattern, e.g. a CSV import.
	BodyLimit  map[string]int64
	MediaTypes map[string][]string
	Log        *slog.Logger
	Metrics    *metrics.Metrics
}

// Edge wraps mux with everything the spec asks of every answer: request ids,
// panic recovery, one log line and metrics per request, the envelope for the
// mux's own 404 and 405 (keeping Allow), and the 413/415 body guards.
func Edge(mux *http.ServeMux, o EdgeOptions) http.Handler {
	installErrorModel()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := &reqState{id: requestID(r)}
		w.Header().Set(RequestIDHeader, st.id)
		ctx, stmts := db.WithStatementCounter(context.WithValue(r.Context(), stateKey{}, st))
		st.statements = stmts
		r = r.WithContext(ctx)
		rw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				st.err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
				if !rw.wrote {
					WriteError(rw, r, internal(st.err))
				}
			}
			finish(o, r, rw, st, start)
		}()

		h, pattern := mux.Handler(r)
		st.route = pattern
		if pattern == "" {
			// The mux's own 404 or 405: learn which (and Allow) without its plain text.
			cw := &captureWriter{header: http.Header{}}
			h.ServeHTTP(cw, r)
			if cw.status == http.StatusMethodNotAllowed {
				if allow := cw.header.Get("Allow"); allow != "" {
					rw.Header().Set("Allow", allow)
				}
				WriteError(rw, r, NewError(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method "+r.Method+" is not supported on this path"))
				return
			}
			WriteError(rw, r, NewError(http.StatusNotFound, fault.CodeNotFound, "no such path"))
			return
		}
		if e := guardBody(r, o, pattern); e != nil {
			WriteError(rw, r, e)
			return
		}
		mux.ServeHTTP(rw, r)
	})
}

func finish(o EdgeOptions, r *http.Request, rw *statusWriter, st *reqState, start time.Time) {
	d := time.Since(start)
	route := st.route
	if route == "" {
		route = "unmatched"
	}
	status := rw.status
	if status == 0 {
		status = http.StatusOK
	}
	if o.Metrics != nil {
		o.Metrics.HTTPRequests.WithLabelValues(o.Name, route, r.Method, strconv.Itoa(status)).Inc()
		o.Metrics.HTTPDuration.WithLabelValues(o.Name, route, r.Method).Observe(d.Seconds())
	}
	if o.Log == nil {
		return
	}
	attrs := append([]slog.Attr{
		slog.String("api", o.Name),
		slog.String("request_id", st.id),
		slog.String("method", r.Method),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.Int64("bytes", rw.bytes),
		slog.Int64("db_statements", st.statements.Count()),
		slog.String("client_ip", remoteHost(r.RemoteAddr)),
	}, st.attrs...)
	level := slog.LevelInfo
	if st.err != nil {
		attrs = append(attrs, slog.String("err", st.err.Error()))
	}
	switch {
	case status >= 500 && ClientGone(r):
		// The client hung up and never sees this answer: nothing for a person to do.
		attrs = append(attrs, slog.Bool("client_gone", true))
	case status >= 500:
		level = slog.LevelError
	}
	o.Log.LogAttrs(r.Context(), level, "request", attrs...)
}

// ClientGone says whether the request's client has gone away (net/http
// cancels a request's context when its connection closes), so an error the
// handler met because of it is no fault of the service's.
func ClientGone(r *http.Request) bool { return r.Context().Err() != nil }

// guardBody enforces the JSON media type and the size limit before the body
// reaches huma (whose own limit check is off by one at exactly the limit).
func guardBody(r *http.Request, o EdgeOptions, pattern string) *Error {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil
	}
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	limit := o.MaxBodyBytes
	if l, ok := o.BodyLimit[pattern]; ok {
		limit = l
	}
	if r.ContentLength > limit {
		return NewError(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, fmt.Sprintf("request body exceeds %d bytes", limit))
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	_ = r.Body.Close()
	if err != nil {
		return NewError(http.StatusBadRequest, CodeBadRequest, "could not read request body")
	}
	if int64(len(body)) > limit {
		return NewError(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, fmt.Sprintf("request body exceeds %d bytes", limit))
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	if len(body) == 0 {
		return nil
	}
	allowed := []string{"application/json"}
	if m, ok := o.MediaTypes[pattern]; ok {
		allowed = m
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err == nil {
		for _, a := range allowed {
			if mt == a {
				return nil
			}
		}
	}
	return NewError(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "Content-Type must be "+joinOr(allowed))
}

func joinOr(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += " or "
		}
		out += v
	}
	return out
}

// WriteError writes the envelope outside huma (router, auth, recovery).
func WriteError(w http.ResponseWriter, r *http.Request, e *Error) {
	if st := stateFrom(r.Context()); st != nil && e.cause != nil && st.err == nil {
		st.err = e.cause
	}
	for k, vs := range e.headers {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(e)
}

func requestID(r *http.Request) string {
	if id := r.Header.Get(RequestIDHeader); id != "" && len(id) <= 64 && isToken(id) {
		return id
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func isToken(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status = code
		w.wrote = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type captureWriter struct {
	header http.Header
	status int
}

func (c *captureWriter) Header() http.Header         { return c.header }
func (c *captureWriter) Write(b []byte) (int, error) { return len(b), nil }
func (c *captureWriter) WriteHeader(code int)        { c.status = code }
