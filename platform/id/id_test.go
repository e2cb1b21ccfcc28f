package id

import (
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

var form = regexp.MustCompile(`^dlv_[0-9a-f]{32}$`)

// TestSeries: a series' ids have New's form, are UUIDv7s, sort by position,
// and two series differ.
func TestSeries(t *testing.T) {
	t.Parallel()
	s := NewSeries("dlv")
	prev := ""
	for _, n := range []uint32{1, 2, 15, 16, 255, 65536, 1<<32 - 1} {
		got := s.At(n)
		require.Regexp(t, form, got)
		u, err := uuid.Parse(got[4:])
		require.NoError(t, err)
		require.EqualValues(t, 7, u.Version())
		require.Equal(t, uuid.RFC4122, u.Variant())
		require.Greater(t, got, prev)
		prev = got
	}
	require.Equal(t, s.Head()+"00000001", s.At(1))
	require.NotEqual(t, s.Head(), NewSeries("dlv").Head())
}
