package clock

import (
	"sync"
	"time"
)

// Fake is the one test clock: it stands still until the test sets or
// advances it, and River follows it too (NowOrNil is never nil). Safe for
// concurrent use.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

// NewFake returns a clock standing at t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

// Now returns the clock's time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NowOrNil returns the clock's time in UTC, so River schedules by it.
func (f *Fake) NowOrNil() *time.Time {
	t := f.Now().UTC()
	return &t
}

// Set moves the clock to t (backwards too).
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = t
}

// Advance moves the clock forward by d.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}
