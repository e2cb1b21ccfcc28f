package fakecarrier

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A callback owed again (a carrier retrying a webhook the service did not
// take) is sent before the newer ones, and once drained it is owed no more.
func TestOweSendsAFailedCallbackAgainFirst(t *testing.T) {
	s := New[string, string, string, string]()
	s.Accept("m1", "sent:m1", "delivered:m1")
	got := s.Drain()
	require.Equal(t, []string{"sent:m1", "delivered:m1"}, got)
	s.Accept("m2", "sent:m2")
	s.Owe("delivered:m1") // the service answered 500
	require.Equal(t, []string{"delivered:m1", "sent:m2"}, s.Drain())
	require.Empty(t, s.Drain())
}

// Flush posts different texts' callbacks at once and one text's in order;
// with retry, a text's first failure stops it and owes the rest of it
// again, and without retry every callback is posted once and none is owed.
func TestFlushPostsTextsAtOnceEachInOrder(t *testing.T) {
	key := func(c string) string { return c[:1] } // "a1" is text a's first callback
	s := New[string, string, string, string]()
	s.Accept("a", "a1", "a2")
	s.Accept("b", "b1", "b2")
	bStarted := make(chan struct{})
	var mu sync.Mutex
	var posted []string
	err := s.Flush(context.Background(), key, func(_ context.Context, c string) error {
		switch c {
		case "a1":
			select { // a's first callback waits for b's: posted one at a time, this would never end
			case <-bStarted:
			case <-time.After(10 * time.Second):
				return errors.New("b was not posted while a was")
			}
		case "b1":
			close(bStarted)
		}
		mu.Lock()
		defer mu.Unlock()
		posted = append(posted, c)
		return nil
	}, true)
	require.NoError(t, err)
	require.Len(t, posted, 4)
	require.Less(t, slices.Index(posted, "a1"), slices.Index(posted, "a2"))
	require.Less(t, slices.Index(posted, "b1"), slices.Index(posted, "b2"))
	require.Empty(t, s.Drain())

	fail := func(_ context.Context, c string) error {
		if c == "a1" {
			return errors.New("HTTP 500")
		}
		return nil
	}
	s.Accept("a", "a1", "a2")
	s.Accept("b", "b1")
	require.Error(t, s.Flush(context.Background(), key, fail, true))
	require.Equal(t, []string{"a1", "a2"}, s.Drain(), "a's failed callback and the one after it are owed")

	s.Accept("a", "a1", "a2")
	var sent []string
	require.Error(t, s.Flush(context.Background(), key, func(ctx context.Context, c string) error {
		sent = append(sent, c)
		return fail(ctx, c)
	}, false))
	require.Equal(t, []string{"a1", "a2"}, sent, "without retry the rest of a text still goes")
	require.Empty(t, s.Drain())
}

// The busiest second counts a window from each text, closed at its start
// and open a second later, whatever order the times come in; the caller's
// slice keeps its order.
func TestBusiestSecond(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	require.Zero(t, BusiestSecond(nil))
	ts := []time.Time{at.Add(time.Second), at, at.Add(999 * time.Millisecond), at.Add(1500 * time.Millisecond), at.Add(1998 * time.Millisecond)}
	orig := slices.Clone(ts)
	require.Equal(t, 4, BusiestSecond(ts), "0.999 s to 1.998 s; the text at 0 s is a whole second before the one at 1 s")
	require.Equal(t, orig, ts)
	require.Equal(t, 3, BusiestSecond([]time.Time{at, at, at}))
}
