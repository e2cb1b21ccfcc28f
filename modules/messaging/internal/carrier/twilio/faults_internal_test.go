package twilio

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNumberFaultsAreRefusedForGood: every code that marks a number is
// also, when Twilio answers it at create time, a permanent refusal (the
// text fails at once and counts toward the streak, never retried).
func TestNumberFaultsAreRefusedForGood(t *testing.T) {
	t.Parallel()
	for code, f := range numberFaults {
		require.True(t, f.Permanent(), code)
		n, err := strconv.Atoi(code)
		require.NoError(t, err)
		require.True(t, permanent(n), "%s is a permanent refusal at create time too", code)
	}
}
