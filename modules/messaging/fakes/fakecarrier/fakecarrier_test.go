package fakecarrier

import (
	"testing"

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
