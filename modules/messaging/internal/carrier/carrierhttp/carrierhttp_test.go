package carrierhttp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMaskNumbers(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"The 'To' number +12025550123 is not a valid phone number.": "The 'To' number ***0123 is not a valid phone number.",
		"To (202) 555-0123, from +1 202 555 0100.":                  "To ***0123, from ***0100.",
		"Error 21211: invalid, 160 chars, code 30003":               "Error 21211: invalid, 160 chars, code 30003",
		"number 2025550123": "number ***0123",
		"":                  "",
		"+":                 "+",
		"ends with +1 202":  "ends with +1 202",
	} {
		require.Equal(t, want, MaskNumbers(in), in)
	}
}
