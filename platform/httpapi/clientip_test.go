package httpapi

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClientIP(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, tc := range []struct {
		name   string
		peer   string
		header ClientHeader
		values map[string][]string
		want   string
	}{
		{name: "no header from a trusted proxy: the proxy", peer: "10.0.0.2:5000", want: "10.0.0.2"},
		{name: "one hop", peer: "10.0.0.2:5000", values: map[string][]string{"X-Forwarded-For": {"203.0.113.7"}}, want: "203.0.113.7"},
		{name: "right-most untrusted hop, spoofed left part ignored", peer: "10.0.0.2:5000",
			values: map[string][]string{"X-Forwarded-For": {"1.2.3.4, 198.51.100.9, 10.1.1.1"}}, want: "198.51.100.9"},
		{name: "several header lines read in order", peer: "10.0.0.2:5000",
			values: map[string][]string{"X-Forwarded-For": {"1.2.3.4", "198.51.100.9", "10.1.1.1"}}, want: "198.51.100.9"},
		{name: "hops with ports and IPv6", peer: "[fd00::2]:443",
			values: map[string][]string{"X-Forwarded-For": {"[2001:db8::7]:4711, 10.0.0.9:80"}}, want: "2001:db8::7"},
		{name: "IPv4-mapped peer is trusted as IPv4", peer: "[::ffff:10.0.0.2]:5000",
			values: map[string][]string{"X-Forwarded-For": {"203.0.113.7"}}, want: "203.0.113.7"},
		{name: "all hops trusted: the left-most", peer: "10.0.0.2:5000",
			values: map[string][]string{"X-Forwarded-For": {"10.9.9.9, 10.1.1.1"}}, want: "10.9.9.9"},
		{name: "garbage hop: the last address known", peer: "10.0.0.2:5000",
			values: map[string][]string{"X-Forwarded-For": {"203.0.113.7, nonsense, 10.1.1.1"}}, want: "10.1.1.1"},
		{name: "untrusted peer: header ignored", peer: "192.0.2.50:5000",
			values: map[string][]string{"X-Forwarded-For": {"203.0.113.7"}}, want: "192.0.2.50"},
		{name: "untrusted peer spoofing a trusted address: ignored", peer: "192.0.2.50:5000",
			values: map[string][]string{"X-Forwarded-For": {"10.0.0.1"}, "Forwarded": {"for=10.0.0.1"}}, want: "192.0.2.50"},
		{name: "Forwarded when configured", peer: "10.0.0.2:5000", header: HeaderForwarded,
			values: map[string][]string{"Forwarded": {`for=1.2.3.4;proto=https, for="[2001:db8:cafe::17]:4711";by=10.0.0.2`}}, want: "2001:db8:cafe::17"},
		{name: "Forwarded: trusted hops skipped, case-insensitive key", peer: "10.0.0.2:5000", header: HeaderForwarded,
			values: map[string][]string{"Forwarded": {"FOR=198.51.100.9, for=10.3.3.3"}}, want: "198.51.100.9"},
		{name: "Forwarded configured: a spoofed X-Forwarded-For is not read", peer: "10.0.0.2:5000", header: HeaderForwarded,
			values: map[string][]string{"X-Forwarded-For": {"1.2.3.4"}, "Forwarded": {"for=198.51.100.9"}}, want: "198.51.100.9"},
		{name: "X-Forwarded-For configured: a spoofed Forwarded is not read", peer: "10.0.0.2:5000",
			values: map[string][]string{"Forwarded": {"for=1.2.3.4"}, "X-Forwarded-For": {"198.51.100.9"}}, want: "198.51.100.9"},
		{name: "Forwarded obfuscated identifier: the last address known", peer: "10.0.0.2:5000", header: HeaderForwarded,
			values: map[string][]string{"Forwarded": {"for=_hidden"}}, want: "10.0.0.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tc.peer
			for k, vs := range tc.values {
				for _, v := range vs {
					r.Header.Add(k, v)
				}
			}
			got, ok := ClientIP(r, ClientAddressOptions{Trusted: proxies, Header: tc.header})
			require.True(t, ok)
			require.Equal(t, netip.MustParseAddr(tc.want), got)
		})
	}
}

func TestClientAddressRewritesRemoteAddr(t *testing.T) {
	t.Parallel()
	var seen string
	echo := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { seen = r.RemoteAddr })
	call := func(h http.Handler, peer, xff string) string {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", xff)
		h.ServeHTTP(httptest.NewRecorder(), r)
		return seen
	}

	h := ClientAddress(echo, ClientAddressOptions{Trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	require.Equal(t, "203.0.113.7:0", call(h, "127.0.0.1:5000", "203.0.113.7"))
	require.Equal(t, "[2001:db8::1]:0", call(h, "127.0.0.1:5000", "2001:db8::1"))
	require.Equal(t, "192.0.2.1:0", call(h, "192.0.2.1:6000", "203.0.113.7"), "an untrusted peer is itself the client")

	off := ClientAddress(echo, ClientAddressOptions{})
	require.Equal(t, "127.0.0.1:5000", call(off, "127.0.0.1:5000", "203.0.113.7"), "no TRUSTED_PROXIES: headers never read")
}
