package guard

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeResolver answers from a map; names it does not know do not exist.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ips, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, len(ips))
	for i, s := range ips {
		out[i] = netip.MustParseAddr(s)
	}
	return out, nil
}

// resolverFunc adapts a function to Resolver.
type resolverFunc func(ctx context.Context, host string) ([]netip.Addr, error)

func (f resolverFunc) LookupNetIP(ctx context.Context, _, host string) ([]netip.Addr, error) {
	return f(ctx, host)
}

var testResolver = fakeResolver{
	"example.com":         {"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"},
	"api.integrator.test": {"93.184.216.34"},
	"internal.corp":       {"127.0.0.1"},
	"metadata.evil":       {"169.254.169.254"},
	"mixed.evil":          {"93.184.216.34", "10.1.2.3"},
	"mapped.evil":         {"::ffff:10.0.0.1"},
	"v6local.evil":        {"fd00::1"},
	"nat64.evil":          {"64:ff9b::a9fe:a9fe"},
	"cgnat.evil":          {"100.100.100.100"},
	"zero.evil":           {"0.0.0.0"},
	"127.0.0.1.nip.io":    {"127.0.0.1"},
}

func newGuard(o Options) *Guard {
	if o.Resolver == nil {
		o.Resolver = testResolver
	}
	return New(o)
}

// TestCheckRefusesHostileURLs: every private, loopback, link-local or
// special target, however written, is blocked_url at save time.
func TestCheckRefusesHostileURLs(t *testing.T) {
	t.Parallel()
	g := newGuard(Options{})
	hostile := []string{
		// IPv4 loopback and its legacy spellings
		"https://127.0.0.1/",
		"https://127.0.0.1:8443/hook",
		"https://127.1/",
		"https://2130706433/",
		"https://0177.0.0.1/",
		"https://0x7f000001/",
		"https://0x7f.0.0.1/",
		"https://0x7F.1/",
		"https://017700000001/",
		"https://127.0.0.1./",
		// unspecified
		"https://0.0.0.0/",
		"https://0/",
		"https://0x/",
		// private, CGNAT, link-local and other special IPv4
		"https://10.0.0.1/",
		"https://10.1/",
		"https://172.16.5.4/",
		"https://172.31.255.255/",
		"https://192.168.1.1/",
		"https://169.254.169.254/latest/meta-data/",
		"https://100.64.0.1/",
		"https://100.127.255.254/",
		"https://192.0.0.8/",
		"https://192.0.2.1/",
		"https://198.51.100.7/",
		"https://203.0.113.9/",
		"https://198.18.0.1/",
		"https://198.19.255.1/",
		"https://192.88.99.1/",
		"https://224.0.0.1/",
		"https://239.255.255.250/",
		"https://240.0.0.1/",
		"https://255.255.255.255/",
		// IPv6 loopback, unspecified, link-local, ULA, multicast, special
		"https://[::1]/",
		"https://[::]/",
		"https://[fe80::1]/",
		"https://[fe80::1%25eth0]/",
		"https://[fc00::1]/",
		"https://[fd12:3456:789a::1]/",
		"https://[ff02::1]/",
		"https://[2001:db8::1]/",
		"https://[2001::1]/",
		"https://[2002:7f00:1::1]/",
		"https://[64:ff9b::7f00:1]/",
		"https://[100::1]/",
		"https://[::127.0.0.1]/",
		// IPv4-mapped IPv6
		"https://[::ffff:127.0.0.1]/",
		"https://[::ffff:7f00:1]/",
		"https://[::ffff:169.254.169.254]/",
		"https://[::ffff:10.0.0.1]/",
		// names
		"https://localhost/",
		"https://LOCALHOST./",
		"https://app.localhost/",
		"https://internal.corp/",
		"https://127.0.0.1.nip.io/",
		"https://metadata.evil/",
		"https://mixed.evil/",
		"https://mapped.evil/",
		"https://v6local.evil/",
		"https://nat64.evil/",
		"https://cgnat.evil/",
		"https://zero.evil/",
	}
	require.GreaterOrEqual(t, len(hostile), 30)
	for _, raw := range hostile {
		_, err := g.Check(context.Background(), raw)
		require.Error(t, err, raw)
		require.Equal(t, Blocked, ReasonOf(err), "%s: %v", raw, err)
		require.ErrorIs(t, err, ErrBlocked, raw)
	}
}

func TestCheckInvalidURLs(t *testing.T) {
	t.Parallel()
	g := newGuard(Options{})
	for _, raw := range []string{
		"",
		"http://example.com/hook",
		"ftp://example.com/",
		"HTTP://example.com/",
		"example.com/hook",
		"//example.com/hook",
		"https://",
		"https:///path",
		"https://user:pass@example.com/",
		"https://user@example.com/",
		"https://exa mple.com/",
		" https://example.com/",
		"https://example.com:0/",
		"https://example.com:99999/",
		"https://example.com:/",
		"https://256.1.1.1/",
		"https://1.2.3.4.5/",
		"https://foo.123/",
		"https://134744072/",       // 8.8.8.8, but not written as an address
		"https://010.010.010.010/", // octal 8.8.8.8
		"https://-bad-.example/",
		"https://ex_ample..com/",
		"https://exämple.com/",
		"https://nxdomain.example/",
		"https://hooks.invalid/",
		"https://" + strings.Repeat("a", 64) + ".com/",
		"https://example.com/" + strings.Repeat("p", 2100),
		"mailto:someone@example.com",
	} {
		_, err := g.Check(context.Background(), raw)
		require.Error(t, err, raw)
		require.Equal(t, Invalid, ReasonOf(err), "%q: %v", raw, err)
	}
}

func TestCheckAcceptsPublicTargets(t *testing.T) {
	t.Parallel()
	g := newGuard(Options{})
	for _, raw := range []string{
		"https://example.com/hook",
		"https://EXAMPLE.com./hook?x=1",
		"https://api.integrator.test:8443/teamtext",
		"https://93.184.216.34/",
		"https://[2606:4700:4700::1111]/",
		"https://[::ffff:93.184.216.34]/",
		"https://8.8.8.8:443/",
	} {
		u, err := g.Check(context.Background(), raw)
		require.NoError(t, err, raw)
		require.Equal(t, "https", u.Scheme)
	}
}

func TestLegacyIPv4Forms(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"2130706433": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "0x7f000001": "127.0.0.1", "127.1": "127.0.0.1",
		"0x7f.1": "127.0.0.1", "10.1": "10.0.0.1", "192.168.257": "192.168.1.1", "0": "0.0.0.0", "1.2.3.4.": "1.2.3.4",
	} {
		a, numeric, err := legacyIPv4(host)
		require.True(t, numeric, host)
		require.NoError(t, err, host)
		require.Equal(t, want, a.String(), host)
	}
	for _, host := range []string{"example.com", "a1", "1a", "0xg1.com", "1.2.3.4a"} {
		_, numeric, _ := legacyIPv4(host)
		require.False(t, numeric, host)
	}
}

func TestDNSFailures(t *testing.T) {
	t.Parallel()
	slow := resolverFunc(func(ctx context.Context, _ string) ([]netip.Addr, error) {
		<-ctx.Done() // a resolver that never answers in time
		return nil, &net.DNSError{Err: "i/o timeout", IsTimeout: true}
	})
	g := New(Options{Resolver: slow, LookupTimeout: 20 * time.Millisecond})
	_, err := g.Check(context.Background(), "https://slow.example/")
	require.ErrorIs(t, err, ErrDNSBusy)

	temp := resolverFunc(func(context.Context, string) ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "server misbehaving", IsTemporary: true}
	})
	_, err = New(Options{Resolver: temp}).Check(context.Background(), "https://servfail.example/")
	require.ErrorIs(t, err, ErrDNSBusy)

	_, err = newGuard(Options{}).Check(context.Background(), "https://nxdomain.example/")
	require.ErrorIs(t, err, ErrInvalid)

	empty := resolverFunc(func(context.Context, string) ([]netip.Addr, error) { return nil, nil })
	_, err = New(Options{Resolver: empty}).Check(context.Background(), "https://empty.example/")
	require.ErrorIs(t, err, ErrInvalid)
}

func TestAllowlist(t *testing.T) {
	t.Parallel()
	g := newGuard(Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	for _, ok := range []string{"https://127.0.0.1:9443/", "https://[::ffff:127.0.0.1]/", "https://internal.corp/"} {
		_, err := g.Check(context.Background(), ok)
		require.NoError(t, err, ok)
	}
	for _, no := range []string{"https://127.0.0.2/", "https://10.0.0.1/", "https://[::1]/"} {
		_, err := g.Check(context.Background(), no)
		require.ErrorIs(t, err, ErrBlocked, no)
	}
	_, err := g.Check(context.Background(), "http://127.0.0.1/")
	require.ErrorIs(t, err, ErrInvalid, "the allowlist does not lift the https rule")
}

// receiver is a TLS test server counting the requests it gets.
func receiver(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func roots(srvs ...*httptest.Server) *x509.CertPool {
	p := x509.NewCertPool()
	for _, s := range srvs {
		p.AddCert(s.Certificate())
	}
	return p
}

func port(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	return u.Port()
}

// TestRebindingRefusedAtDial: the name resolves to a public address when
// the webhook is saved and to loopback when the delivery dials; the dial is
// refused and the local server never hears from us.
func TestRebindingRefusedAtDial(t *testing.T) {
	t.Parallel()
	srv, hits := receiver(t, func(w http.ResponseWriter, _ *http.Request) {})
	var calls atomic.Int64
	rebinding := resolverFunc(func(context.Context, string) ([]netip.Addr, error) {
		if calls.Add(1) == 1 {
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	})
	g := New(Options{Resolver: rebinding, RootCAs: roots(srv)})
	raw := "https://example.com:" + port(t, srv) + "/hook"
	_, err := g.Check(context.Background(), raw)
	require.NoError(t, err, "public at save time")

	resp, err := g.Client().Post(raw, "application/json", strings.NewReader(`{}`))
	if resp != nil {
		_ = resp.Body.Close()
	}
	require.Error(t, err)
	require.ErrorIs(t, err, ErrBlocked)
	require.Zero(t, hits.Load())
}

// TestDialControlRefusesLiterals: a stored URL with a private literal (or
// one saved before the rules changed) is refused when dialled.
func TestDialControlRefusesLiterals(t *testing.T) {
	t.Parallel()
	srv, hits := receiver(t, func(w http.ResponseWriter, _ *http.Request) {})
	g := New(Options{Resolver: testResolver, RootCAs: roots(srv)})
	for _, host := range []string{"127.0.0.1", "[::ffff:127.0.0.1]"} {
		resp, err := g.Client().Get("https://" + host + ":" + port(t, srv) + "/")
		if resp != nil {
			_ = resp.Body.Close()
		}
		require.ErrorIs(t, err, ErrBlocked, host)
	}
	require.Zero(t, hits.Load())

	// The control hook alone refuses what the resolver step would let through.
	for _, addr := range []string{"127.0.0.1:443", "[::ffff:169.254.169.254]:443", "[fe80::1%eth0]:443", "nonsense"} {
		require.ErrorIs(t, g.control(context.Background(), "tcp", addr, nil), ErrBlocked, addr)
	}
	require.NoError(t, g.control(context.Background(), "tcp", "93.184.216.34:443", nil))
}

// TestRedirectNotFollowed: a public name answering 302 to a private address
// gives the 302 to the caller; the private target is never contacted.
func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	private, privateHits := receiver(t, func(w http.ResponseWriter, _ *http.Request) {})
	redirector, _ := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+"/latest/meta-data/", http.StatusFound)
	})
	// example.com (a public name) reaches the redirector through the allowlist.
	g := New(Options{
		Resolver: fakeResolver{"example.com": {"127.0.0.1"}},
		Allow:    []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		RootCAs:  roots(private, redirector),
	})
	resp, err := g.Client().Post("https://example.com:"+port(t, redirector)+"/hook", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	require.Zero(t, privateHits.Load())
}

func TestClientSettings(t *testing.T) {
	t.Parallel()
	c := New(Options{}).Client()
	require.Equal(t, DefaultTimeout, c.Timeout)
	tr, ok := c.Transport.(*http.Transport)
	require.True(t, ok)
	require.Nil(t, tr.Proxy, "no proxy, whatever the environment says")
	require.ErrorIs(t, c.CheckRedirect(nil, nil), http.ErrUseLastResponse)
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv, _ := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		select { // answer only when the client has given up
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	g := New(Options{Resolver: testResolver, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		RootCAs: roots(srv), Timeout: 100 * time.Millisecond})
	resp, err := g.Client().Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if resp != nil {
		_ = resp.Body.Close()
	}
	require.Error(t, err)
	var ne net.Error
	require.True(t, errors.As(err, &ne) && ne.Timeout(), "%v", err)
}

func TestLoadRoots(t *testing.T) {
	t.Parallel()
	p, err := LoadRoots("")
	require.NoError(t, err)
	require.Nil(t, p)
	_, err = LoadRoots(t.TempDir() + "/missing.pem")
	require.Error(t, err)
}
