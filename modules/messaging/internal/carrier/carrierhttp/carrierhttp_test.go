package carrierhttp

import (
	"testing"
	"time"

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

func TestAPI(t *testing.T) {
	t.Parallel()
	base, client, err := API("acme", "https://api.acme.test//", "https://default.test", 0, nil)
	require.NoError(t, err)
	require.Equal(t, "https://api.acme.test", base)
	require.Equal(t, DefaultTimeout, client.Timeout)
	base, client, err = API("acme", "", "https://default.test", 3*time.Second, nil)
	require.NoError(t, err)
	require.Equal(t, "https://default.test", base)
	require.Equal(t, 3*time.Second, client.Timeout)
	for _, raw := range []string{"ftp://x", "not a url", "https://"} {
		_, _, err = API("acme", raw, "https://default.test", 0, nil)
		require.EqualError(t, err, "acme: api_url must be an absolute http(s) URL", raw)
		require.False(t, AbsoluteURL(raw), raw)
	}
}
