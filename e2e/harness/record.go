package harness

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Exchange is one request to /api/v1 or /admin/v1 and the answer to it, as
// a harness client sent and received them.
type Exchange struct {
	Method     string
	URL        string
	ReqHeader  http.Header
	ReqBody    []byte
	Status     int
	RespHeader http.Header
	RespBody   []byte
}

// Recorder keeps every exchange the harness's clients have with the APIs,
// for the contract test that validates them against the served documents.
type Recorder struct {
	mu        sync.Mutex
	exchanges []Exchange
}

// Exchanges returns a copy of what was recorded so far.
func (r *Recorder) Exchanges() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.exchanges...)
}

func (r *Recorder) add(e Exchange) {
	r.mu.Lock()
	r.exchanges = append(r.exchanges, e)
	r.mu.Unlock()
}

// recording is the recorder every harness client writes to, once Record
// has been called: clients are made in every test (and by other suites'
// helpers), so the switch is process-wide rather than threaded through each
// constructor. Benchmarks never call Record, so they keep nothing.
var recording atomic.Pointer[Recorder]

// Record starts recording the exchanges of every harness client (those
// made before the call included) and returns the recorder.
func Record() *Recorder {
	r := &Recorder{}
	recording.Store(r)
	return r
}

// HTTPClient is the http.Client harness clients use: requests to /api/v1
// and /admin/v1 are recorded while recording is on. Code that brings its
// own client (the generated Go client) takes this one to be recorded too.
func HTTPClient() *http.Client {
	return &http.Client{Timeout: 60 * time.Second, Transport: recordingTransport{next: http.DefaultTransport}}
}

type recordingTransport struct{ next http.RoundTripper }

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := recording.Load()
	if rec == nil || !recorded(req.URL.Path) {
		return t.next.RoundTrip(req)
	}
	var reqBody []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	rec.add(Exchange{
		Method: req.Method, URL: req.URL.String(), ReqHeader: req.Header.Clone(), ReqBody: reqBody,
		Status: resp.StatusCode, RespHeader: resp.Header.Clone(), RespBody: respBody,
	})
	return resp, nil
}

// recorded reports whether a path belongs to an API the documents describe.
func recorded(path string) bool {
	return strings.Contains(path, "/api/v1/") || strings.Contains(path, "/admin/v1/")
}
