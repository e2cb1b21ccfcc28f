package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseIdentity(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Identity{
		"(202) 555-0143":        {Value: "+12025550143"},
		"202.555.0143":          {Value: "+12025550143"},
		" +1 202 555 0143 ":     {Value: "+12025550143"},
		"Coach.Kim@Example.org": {Value: "coach.kim@example.org", Email: true},
	} {
		got, err := ParseIdentity(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "hello", "a@", "Kim <kim@example.org>", "555-0143"} {
		_, err := ParseIdentity(bad)
		require.Error(t, err, bad)
	}
}

// A code works once, within ten minutes; five wrong tries kill it even
// for the right code afterwards.
func TestSignInCode(t *testing.T) {
	t.Parallel()
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	code, c := NewSignInCode("sic_1", "+12025550143", now)
	require.Len(t, code, 6)
	require.NotContains(t, string(c.Hash), code, "only a hash is kept")
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	require.False(t, c.Try(wrong, now))
	require.True(t, c.Try(code, now.Add(time.Minute)))
	require.False(t, c.Try(code, now.Add(time.Minute)), "single use")

	code, c = NewSignInCode("sic_2", "+12025550143", now)
	require.False(t, c.Try(code, now.Add(CodeTTL)), "expired at ten minutes")

	code, c = NewSignInCode("sic_3", "+12025550143", now)
	for range CodeAttempts {
		require.False(t, c.Try("99999", now))
	}
	require.Equal(t, CodeAttempts, c.Attempts)
	require.False(t, c.Try(code, now), "five wrong codes kill the code")
}
