// Package fakecarrier is what the carrier fakes (twiliotest, telnyxtest,
// bandwidthtest) share: the script a test gives a fake (an outcome per
// number, refusals, faults for the next requests, an outage), the texts it
// accepted, and the callbacks it owes until the test flushes them; and the
// test server its API answers on. Each fake keeps its carrier's own wire
// format; only the bookkeeping is here. BusiestSecond is the check tests
// make of a carrier's timestamps, the fakes' and the simulator's alike.
package fakecarrier

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
)

// Script is a fake's state: F is its error answer, M an accepted text, O
// an outcome, C a callback it owes. Safe for concurrent use.
type Script[F, M, O, C any] struct {
	mu       sync.Mutex
	outcomes map[string]O
	refusals map[string]F
	faults   []F
	down     *F
	messages []M
	creates  int
	pending  []C
}

// New returns an empty script.
func New[F, M, O, C any]() *Script[F, M, O, C] {
	return &Script[F, M, O, C]{outcomes: map[string]O{}, refusals: map[string]F{}}
}

// SetOutcome decides what happens to texts to number from now on.
func (s *Script[F, M, O, C]) SetOutcome(number string, o O) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outcomes[number] = o
}

// Outcome is number's outcome, def when none was set.
func (s *Script[F, M, O, C]) Outcome(number string, def O) O {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.outcomes[number]; ok {
		return o
	}
	return def
}

// Refuse makes every create to number answer f.
func (s *Script[F, M, O, C]) Refuse(number string, f F) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusals[number] = f
}

// FailNext queues error answers for the next create requests, in order.
func (s *Script[F, M, O, C]) FailNext(fs ...F) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fs...)
}

// Down makes every create answer f until Up (an outage).
func (s *Script[F, M, O, C]) Down(f F) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = &f
}

// Up ends an outage.
func (s *Script[F, M, O, C]) Up() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = nil
}

// Count counts a create request answered before the script is asked (a
// refused authentication).
func (s *Script[F, M, O, C]) Count() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creates++
}

// Answer counts a create request to to and returns the error answer it
// gets, if any: the outage's, else the next scripted fault, else to's
// refusal.
func (s *Script[F, M, O, C]) Answer(to string) (F, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creates++
	if s.down != nil {
		return *s.down, true
	}
	if len(s.faults) > 0 {
		f := s.faults[0]
		s.faults = s.faults[1:]
		return f, true
	}
	f, ok := s.refusals[to]
	return f, ok
}

// Accept records an accepted text and the callbacks it will owe.
func (s *Script[F, M, O, C]) Accept(m M, callbacks ...C) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = append(s.messages, m)
	s.pending = append(s.pending, callbacks...)
}

// Owe puts callbacks back among those owed, ahead of the newer ones: a
// carrier that retries its webhooks (Telnyx, Bandwidth) sends a callback
// the service did not take again at the next flush.
func (s *Script[F, M, O, C]) Owe(callbacks ...C) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(append([]C(nil), callbacks...), s.pending...)
}

// Messages returns the accepted texts, oldest first.
func (s *Script[F, M, O, C]) Messages() []M {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]M(nil), s.messages...)
}

// Creates counts the create requests answered, refusals and faults included.
func (s *Script[F, M, O, C]) Creates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.creates
}

// Drain returns the callbacks owed so far, oldest first, and forgets them.
func (s *Script[F, M, O, C]) Drain() []C {
	s.mu.Lock()
	defer s.mu.Unlock()
	cbs := s.pending
	s.pending = nil
	return cbs
}

// BusiestSecond is the most of ts, in any order, that fall in one
// half-open window of a second: what a number whose throughput is n texts
// a second must never hand a carrier more than n of. ts is not reordered.
func BusiestSecond(ts []time.Time) int {
	ts = slices.SortedFunc(slices.Values(ts), time.Time.Compare)
	best, lo := 0, 0
	for hi := range ts {
		for !ts[lo].Add(time.Second).After(ts[hi]) {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}

// HTTPError is a callback the service answered with a non-2xx status.
type HTTPError struct{ Status int }

func (e *HTTPError) Error() string { return "callback: HTTP " + strconv.Itoa(e.Status) }

// Post sends one callback: body to url with contentType and the headers
// set sets, failing with *HTTPError unless it is answered 2xx.
func Post(ctx context.Context, client *http.Client, url, contentType string, body []byte, set func(*http.Request)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	if set != nil {
		set(req)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("callback: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return &HTTPError{Status: resp.StatusCode}
	}
	return nil
}

// Serve starts a fake's API, a test server closed when t ends that
// answers pattern (a ServeMux pattern: the carrier's create endpoint)
// with create, and returns its URL, the adapter's API URL.
func Serve(t testing.TB, pattern string, create http.HandlerFunc) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc(pattern, create)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Senders is how many callbacks a fake posts at once. Carriers post their
// webhooks concurrently, so a broadcast's reports do not queue behind one
// connection; posted one at a time, 4,000 callbacks on a loaded machine
// take minutes, and a test waits on the fake rather than on the service.
const Senders = 8

// NewClient returns the HTTP client a fake posts its callbacks with: it
// keeps a connection per sender.
func NewClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = Senders
	return &http.Client{Timeout: 10 * time.Second, Transport: tr}
}

// Flush drains the callbacks owed and posts them with post, Senders at a
// time. The callbacks of one key (one text's reports) go in order, one
// after the other. When retry is set (a carrier that retries its
// webhooks), a key's first failure stops it, and that callback and the
// rest of its key are owed again, ahead of newer ones; otherwise every
// callback is posted once. The error joins every failure.
func (s *Script[F, M, O, C]) Flush(ctx context.Context, key func(C) string, post func(context.Context, C) error, retry bool) error {
	var groups [][]C
	at := map[string]int{}
	for _, c := range s.Drain() {
		k := key(c)
		i, ok := at[k]
		if !ok {
			i = len(groups)
			at[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	unsent := make([][]C, len(groups))
	errs := make([][]error, len(groups))
	var g errgroup.Group
	g.SetLimit(Senders)
	for i, group := range groups {
		g.Go(func() error {
			for j, c := range group {
				err := post(ctx, c)
				if err == nil {
					continue
				}
				errs[i] = append(errs[i], err)
				if retry {
					unsent[i] = group[j:]
					break
				}
			}
			return nil // every failure is kept in errs, so no key stops the others
		})
	}
	_ = g.Wait()
	var owed []C
	var all []error
	for i := range groups {
		owed = append(owed, unsent[i]...)
		all = append(all, errs[i]...)
	}
	if len(owed) > 0 {
		s.Owe(owed...)
	}
	return errors.Join(all...)
}
