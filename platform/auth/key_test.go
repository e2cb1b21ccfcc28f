package auth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewKeyRoundTrip(t *testing.T) {
	t.Parallel()
	key, lookup, hash, err := NewKey()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(key, KeyPrefix))
	require.Len(t, key, KeyLen)
	require.Len(t, lookup, LookupLen)
	got, err := ParseBearer("Bearer " + key)
	require.NoError(t, err)
	require.Equal(t, key, got)
	require.True(t, Verify(key, hash))
	last := byte('x')
	if key[len(key)-1] == last { // one key in 60 ends in x: change its last character all the same
		last = 'y'
	}
	require.False(t, Verify(key[:len(key)-1]+string(last), hash))
	other, _, _, err := NewKey()
	require.NoError(t, err)
	require.NotEqual(t, key, other)
}

func TestParseBearerRejects(t *testing.T) {
	t.Parallel()
	good := KeyPrefix + strings.Repeat("a", 40)
	for _, h := range []string{
		"", "Bearer", "Bearer ", "Basic " + good[6:], "Bearer " + good + "a", "Bearer " + good[:len(good)-1],
		"Bearer tt_test_" + strings.Repeat("a", 40), // another environment
		"Bearer " + KeyPrefix + strings.Repeat("a", 39) + "!",
		"Bearer " + KeyPrefix + strings.Repeat("é", 20),
		"Bearer  " + good[1:], strings.Repeat("x", 1<<16),
	} {
		_, err := ParseBearer(h)
		require.ErrorIs(t, err, ErrMalformed, "%q", h)
	}
	_, err := ParseBearer("bearer " + good)
	require.NoError(t, err, "the scheme is case-insensitive")
}

func FuzzParseBearer(f *testing.F) {
	f.Add("Bearer " + KeyPrefix + strings.Repeat("a", 40))
	f.Add("Bearer tt_live_")
	f.Add("")
	f.Add("Basic abc")
	f.Fuzz(func(t *testing.T, h string) {
		key, err := ParseBearer(h)
		if err != nil {
			require.Empty(t, key)
			return
		}
		require.Len(t, key, KeyLen)
		require.True(t, strings.HasPrefix(key, KeyPrefix))
		require.Len(t, Lookup(key), LookupLen)
	})
}
