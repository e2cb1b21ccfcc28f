package domain

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/fault"
)

// TestRetrySchedule: attempts at about 0, 1 min, 6 min, 36 min, 2 h 36 min
// and 14 h 36 min; each gap counts from the previous failure; then the
// delivery is abandoned.
func TestRetrySchedule(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	want := []time.Duration{0, time.Minute, 6 * time.Minute, 36 * time.Minute, 2*time.Hour + 36*time.Minute, 14*time.Hour + 36*time.Minute}
	at := start
	for n := 1; n <= MaxAttempts; n++ {
		require.Equal(t, want[n-1], at.Sub(start), "attempt %d", n)
		next, ok := NextAttempt(n, at)
		if n == MaxAttempts {
			require.False(t, ok, "abandoned after attempt %d", n)
			break
		}
		require.True(t, ok)
		at = next
	}
	// A late failure pushes the retry later by the same amount: never early.
	late := start.Add(17 * time.Second)
	next, ok := NextAttempt(1, late)
	require.True(t, ok)
	require.Equal(t, late.Add(time.Minute), next)
	_, ok = RetryGap(0)
	require.False(t, ok)
}

func TestValidEvents(t *testing.T) {
	t.Parallel()
	got, err := ValidEvents([]string{"member.joined", "message.status", "member.joined"})
	require.NoError(t, err)
	require.Equal(t, []string{"member.joined", "message.status"}, got)
	for _, bad := range [][]string{nil, {}, {"webhook.test"}, {"member.joined", "webhook.test"}, {"member.left"}, {""}, {"MEMBER.JOINED"}} {
		_, err := ValidEvents(bad)
		f, ok := fault.As(err)
		require.True(t, ok, "%v", bad)
		require.Equal(t, CodeInvalidEvents, f.Code)
		require.Equal(t, fault.Invalid, f.Kind)
	}
}

func TestNewSecret(t *testing.T) {
	t.Parallel()
	a, err := NewSecret()
	require.NoError(t, err)
	b, err := NewSecret()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(a, SecretPrefix))
	require.Len(t, a, len(SecretPrefix)+43)
	require.NotEqual(t, a, b)
}
