package harness

import (
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Hook is one request as a Receiver saw it.
type Hook struct {
	Path   string
	Header http.Header
	Body   []byte
	At     time.Time // arrival, by the receiver's own clock
	Status int       // what it was answered (or would have been, had its sender waited)
}

// Receiver is an integrator's HTTPS endpoint on loopback with a
// self-signed certificate, which a service started with ReceiverEnv(PEM())
// trusts. It records every request and answers the status set by
// SetStatus (200 until then), except "/redirect", which it always answers
// 302 to the cloud metadata address, for the service to refuse to follow.
type Receiver struct {
	srv    *httptest.Server
	pem    string
	status atomic.Int64

	mu        sync.Mutex
	got       []Hook
	held      []Hook        // requests on held paths that were answered
	hold      chan struct{} // nil before Hold; closed by its release
	holdPaths []string      // the paths hold applies to; none: every path
}

// NewReceiver starts a Receiver, its certificate written to
// dir/receiver-ca.pem.
func NewReceiver(dir string) (*Receiver, error) {
	r := &Receiver{}
	r.status.Store(http.StatusOK)
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	r.pem = filepath.Join(dir, "receiver-ca.pem")
	if err := os.WriteFile(r.pem, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.srv.Certificate().Raw}), 0o600); err != nil {
		r.srv.Close()
		return nil, err
	}
	return r, nil
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(req.Body)
	h := Hook{Path: req.URL.Path, Header: req.Header.Clone(), Body: body, At: at, Status: int(r.status.Load())}
	if h.Path == "/redirect" {
		h.Status = http.StatusFound
	}
	r.mu.Lock()
	r.got = append(r.got, h)
	hold := r.hold
	if len(r.holdPaths) > 0 && !slices.Contains(r.holdPaths, h.Path) {
		hold = nil
	}
	r.mu.Unlock()
	if h.Path == "/redirect" {
		http.Redirect(w, req, "https://169.254.169.254/latest/meta-data/", h.Status)
		return
	}
	if hold != nil {
		select {
		case <-hold:
		case <-req.Context().Done():
			return // the sender went away (its node was killed): never answered
		}
		r.mu.Lock()
		r.held = append(r.held, h)
		r.mu.Unlock()
	}
	w.WriteHeader(h.Status)
}

// URL is the receiver's URL for path, by IP literal.
func (r *Receiver) URL(path string) string { return r.srv.URL + path }

// PEM is the path of the receiver's certificate, for ReceiverEnv.
func (r *Receiver) PEM() string { return r.pem }

// SetStatus sets the status later requests are answered.
func (r *Receiver) SetStatus(code int) { r.status.Store(int64(code)) }

// Hold keeps the answers to requests arriving on paths (every path when
// none is given) until release is called, so that deliveries stay in
// flight until the test lets them finish; after release they are answered
// at once, and Held still lists them.
func (r *Receiver) Hold(paths ...string) (release func()) {
	hold := make(chan struct{})
	r.mu.Lock()
	r.hold, r.holdPaths = hold, paths
	r.mu.Unlock()
	return sync.OnceFunc(func() { close(hold) })
}

// Requests returns what arrived on path ("" for every path), in order of
// arrival.
func (r *Receiver) Requests(path string) []Hook {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Hook
	for _, h := range r.got {
		if path == "" || h.Path == path {
			out = append(out, h)
		}
	}
	return out
}

// Held returns the requests on held paths (since Hold) that were answered.
func (r *Receiver) Held() []Hook {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.held)
}

// Close stops the receiver.
func (r *Receiver) Close() { r.srv.Close() }

// ReceiverEnv lets a service deliver webhooks to a Receiver: loopback
// allowed, its certificate (pemPath) trusted.
func ReceiverEnv(pemPath string) []string {
	return []string{"WEBHOOK_ALLOW_CIDRS=127.0.0.1/32", "WEBHOOK_CA_FILE=" + pemPath}
}
