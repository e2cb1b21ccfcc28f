package phone_test

import (
	"bytes"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/phone"
)

// parseCases is shared with FuzzParse as its seed corpus. want == "" means the
// input must be rejected with an error wrapping ErrInvalid.
var parseCases = []struct {
	name string
	in   string
	want phone.Number
}{
	// Accepted formats.
	{"ten digits", "2025550123", "+12025550123"},
	{"dashes", "202-555-0123", "+12025550123"},
	{"parens and space", "(202) 555-0123", "+12025550123"},
	{"parens no space", "(202)555-0123", "+12025550123"},
	{"dots", "202.555.0123", "+12025550123"},
	{"plus one spaced", "+1 202 555 0123", "+12025550123"},
	{"plus one parens", "+1 (202) 555-0123", "+12025550123"},
	{"one dashes", "1-202-555-0123", "+12025550123"},
	{"one dots", "1.202.555.0123", "+12025550123"},
	{"eleven digits", "12025550123", "+12025550123"},
	{"e164", "+12025550123", "+12025550123"},
	{"surrounding whitespace", " \t 202-555-0123 \n", "+12025550123"},
	{"surrounding unicode space", "\u00a0+12025550123\u00a0", "+12025550123"},
	{"other area code", "(415) 555-2671", "+14155552671"},
	{"toll free", "800-555-0199", "+18005550199"},
	{"exchange 212 is not N11", "202-212-0123", "+12022120123"},
	{"exactly 32 bytes", "        (202) 555-0123          ", "+12025550123"},

	// Rejected: empty and oversized.
	{"empty", "", ""},
	{"whitespace only", "   ", ""},
	{"33 bytes", "         (202) 555-0123          ", ""},
	{"very long", strings.Repeat("2025550123", 10), ""},

	// Rejected: letters, vanity numbers and extensions.
	{"vanity", "1-800-FLOWERS", ""},
	{"vanity lower", "1-800-flowers", ""},
	{"ext word", "202-555-0123 ext 5", ""},
	{"ext x", "202-555-0123x5", ""},
	{"ext X spaced", "202-555-0123 X 5", ""},
	{"ext hash", "2025550123#5", ""},
	{"ext comma", "2025550123,5", ""},
	{"ext semicolon", "2025550123;5", ""},
	{"ext fullwidth x", "202-555-0123 ｘ5", ""},
	{"tel uri", "tel:+1-202-555-0123", ""},

	// Rejected: characters the library would silently ignore or translate.
	{"leading hash", "#2025550123", ""},
	{"stars", "202*555*0123", ""},
	{"fullwidth digits", "２０２５５５０１２３", ""},
	{"interior nbsp", "202\u00a0555\u00a00123", ""},
	{"interior tab", "202\t555\t0123", ""},

	// Rejected: wrong length or not US.
	{"nine digits", "202555012", ""},
	{"eleven digits no country code", "20255501234", ""},
	{"twelve digits with country code", "+1 202 555 0123 1", ""},
	{"UK", "+44 20 7946 0958", ""},
	{"UK international prefix", "011 44 20 7946 0958", ""},
	{"Canada", "+1 416 555 0123", ""},
	{"Jamaica", "+1 876 555 0123", ""},
	{"Puerto Rico", "787-555-0123", ""},
	{"plus without country code", "+2025550123", ""},
	{"double plus country code", "+1+2025550123", ""},
	{"trailing plus", "2025550123+", ""},
	{"area code starts with 0", "002-555-0123", ""},
	{"area code starts with 1", "102-555-0123", ""},
	{"exchange starts with 0", "202-055-0123", ""},
	{"exchange starts with 1", "202-155-0123", ""},

	// Rejected: NANP N11 codes. The library rejects N11 area codes itself but
	// accepts N11 exchange codes; Parse rejects both.
	{"N11 area 911", "911-555-0123", ""},
	{"N11 area 211", "211-555-0123", ""},
	{"N11 exchange 211", "202-211-0123", ""},
	{"N11 exchange 311", "(415) 311-0123", ""},
	{"N11 exchange 411", "+1 212 411 0123", ""},
	{"N11 exchange 611", "1-650-611-0123", ""},
	{"N11 exchange 911", "202-911-0123", ""},
	{"N11 exchange toll free", "800-511-0123", ""},
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := phone.Parse(tc.in)
			if tc.want == "" {
				require.Error(t, err)
				require.ErrorIs(t, err, phone.ErrInvalid)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, string(tc.want), got.String())
		})
	}
}

func TestParseErrorDoesNotLeakInput(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"202-911-0123", "+44 20 7946 0958", "202-555-0123 ext 5", "2025550123#5"} {
		_, err := phone.Parse(in)
		require.Error(t, err)
		require.True(t, errors.Is(err, phone.ErrInvalid))
		require.NotContains(t, err.Error(), "0123", "error for %q leaks digits", in)
		require.NotContains(t, err.Error(), "0958", "error for %q leaks digits", in)
	}
}

func TestMustParse(t *testing.T) {
	t.Parallel()
	require.Equal(t, phone.Number("+12025550123"), phone.MustParse("(202) 555-0123"))
	require.Panics(t, func() { phone.MustParse("1-800-FLOWERS") })
	require.Panics(t, func() { phone.MustParse("") })
}

func TestMasked(t *testing.T) {
	t.Parallel()
	require.Equal(t, "***0123", phone.MustParse("202-555-0123").Masked())
	require.Equal(t, "***2671", phone.MustParse("+1 415 555 2671").Masked())
	require.Equal(t, "***", phone.Number("").Masked())
}

func TestMask(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, want string
	}{
		{"+12025550123", "***0123"},
		{"202-555-0123", "***0123"},
		{"1234", "***1234"},
		{"123", "***"},
		{"1", "***"},
		{"", "***"},
		{"ab٣٤٥٦", "***٣٤٥٦"}, // multi-byte runes are kept whole
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, phone.Mask(tc.in), "Mask(%q)", tc.in)
	}
}

func TestLogValue(t *testing.T) {
	t.Parallel()
	n := phone.MustParse("202-555-0123")

	var _ slog.LogValuer = n

	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	logger.Info("sent message", "to", n, slog.Any("from", n))

	out := buf.String()
	require.Contains(t, out, `"to":"***0123"`)
	require.Contains(t, out, `"from":"***0123"`)
	require.NotContains(t, out, "2025550123")
	require.NotContains(t, out, "+12025550123")
}

func TestTimeZones(t *testing.T) {
	for number, want := range map[string][]string{
		"+12125550100": {"America/New_York"},
		"+13125550100": {"America/Chicago"},
		"+14155550100": {"America/Los_Angeles"},
		"+18085550100": {"Pacific/Honolulu"},
		"+19075550100": {"America/Adak", "America/Anchorage"},
		"+18005550100": nil, // toll-free: not geographic
	} {
		if got := phone.TimeZones(number); !slices.Equal(got, want) {
			t.Errorf("TimeZones(%s) = %v, want %v", phone.Mask(number), got, want)
		}
	}
}
