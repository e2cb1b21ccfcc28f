// Package guard keeps webhook deliveries away from private and special
// addresses (SSRF). A URL is checked when a webhook is saved (https, a
// well-formed host, every resolved address public), and every connection
// is checked again at dial time against the address actually dialled, after
// netip.Addr.Unmap, so a name that resolves differently later (DNS
// rebinding) still cannot reach an internal address. The client it builds
// uses no proxy, follows no redirects and gives up after 10 seconds.
package guard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Reason says why a URL or an address was refused.
type Reason int

// The reasons, each mapped to one of the spec's codes by the service.
const (
	Invalid Reason = iota + 1 // invalid_url: not https, malformed, or a host that cannot exist
	Blocked                   // blocked_url: a private, loopback, link-local or other special address
	DNSBusy                   // dns_busy: the host name could not be resolved at once
)

// String names the reason.
func (r Reason) String() string {
	switch r {
	case Invalid:
		return "invalid"
	case Blocked:
		return "blocked"
	case DNSBusy:
		return "dns busy"
	}
	return "unknown"
}

// Error is a refusal with its reason.
type Error struct {
	Reason Reason
	Msg    string
	Err    error // cause, e.g. the resolver's error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Reason, e.Msg, e.Err)
	}
	return e.Reason.String() + ": " + e.Msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinels by reason.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Reason == e.Reason
}

// Sentinels for errors.Is.
var (
	ErrInvalid = &Error{Reason: Invalid}
	ErrBlocked = &Error{Reason: Blocked}
	ErrDNSBusy = &Error{Reason: DNSBusy}
)

// ReasonOf returns the reason of a refusal in err's chain, or 0.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return 0
}

// Resolver looks host names up. *net.Resolver implements it; tests inject
// their own to simulate private answers, rebinding and slow DNS.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Defaults of Options.
const (
	DefaultTimeout       = 10 * time.Second // the spec's reply time
	DefaultLookupTimeout = 2 * time.Second  // "resolved at once"
	maxURLLength         = 2048
)

// Options configure a Guard. The zero value is production's strict guard
// with the system resolver and roots.
type Options struct {
	// Allow lists ranges let through although special (WEBHOOK_ALLOW_CIDRS),
	// for test receivers on loopback. Empty in production.
	Allow         []netip.Prefix
	Resolver      Resolver       // nil: net.DefaultResolver
	LookupTimeout time.Duration  // 0: DefaultLookupTimeout
	Timeout       time.Duration  // 0: DefaultTimeout, for the whole request
	RootCAs       *x509.CertPool // nil: the system pool
}

// Guard checks URLs and addresses, and builds the delivery client.
type Guard struct {
	allow         []netip.Prefix
	special       []netip.Prefix
	resolver      Resolver
	lookupTimeout time.Duration
	timeout       time.Duration
	roots         *x509.CertPool
	dialer        *net.Dialer
}

// New returns a guard.
func New(o Options) *Guard {
	g := &Guard{
		allow:         o.Allow,
		special:       specialPrefixes(),
		resolver:      o.Resolver,
		lookupTimeout: o.LookupTimeout,
		timeout:       o.Timeout,
		roots:         o.RootCAs,
	}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	if g.lookupTimeout <= 0 {
		g.lookupTimeout = DefaultLookupTimeout
	}
	if g.timeout <= 0 {
		g.timeout = DefaultTimeout
	}
	g.dialer = &net.Dialer{Timeout: g.timeout, KeepAlive: 30 * time.Second, ControlContext: g.control}
	return g
}

// LoadRoots returns the system roots plus the PEM certificates in file
// (WEBHOOK_CA_FILE); an empty file name gives nil (the system pool).
func LoadRoots(file string) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read webhook CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("webhook CA file %s holds no PEM certificate", file)
	}
	return pool, nil
}

// specialPrefixes are the ranges no delivery may reach: IANA's special-
// purpose registries for IPv4 and IPv6, and for IPv6 everything outside
// global unicast (2000::/3) as well (ULA fc00::/7, link-local fe80::/10,
// multicast, NAT64 64:ff9b::/96, IPv4-compatible ::/96, discard 100::/64...).
func specialPrefixes() []netip.Prefix {
	list := []string{
		"0.0.0.0/8",         // "this network", 0.0.0.0 included
		"10.0.0.0/8",        // private
		"100.64.0.0/10",     // shared address space (CGNAT)
		"127.0.0.0/8",       // loopback
		"169.254.0.0/16",    // link-local (cloud metadata)
		"172.16.0.0/12",     // private
		"192.0.0.0/24",      // IETF protocol assignments
		"192.0.2.0/24",      // TEST-NET-1
		"192.31.196.0/24",   // AS112-v4
		"192.52.193.0/24",   // AMT
		"192.88.99.0/24",    // 6to4 relay anycast (deprecated)
		"192.168.0.0/16",    // private
		"192.175.48.0/24",   // direct delegation AS112
		"198.18.0.0/15",     // benchmarking
		"198.51.100.0/24",   // TEST-NET-2
		"203.0.113.0/24",    // TEST-NET-3
		"224.0.0.0/4",       // multicast
		"240.0.0.0/4",       // reserved, 255.255.255.255 included
		"2001::/23",         // IETF protocol assignments (Teredo, benchmarking, ORCHID...)
		"2001:db8::/32",     // documentation
		"2002::/16",         // 6to4
		"2620:4f:8000::/48", // direct delegation AS112
		"3fff::/20",         // documentation
		"64:ff9b::/96",      // NAT64 (outside 2000::/3 too; listed for clarity)
		"64:ff9b:1::/48",    // local-use NAT64
		"fc00::/7",          // unique local
		"fe80::/10",         // link-local
		"ff00::/8",          // multicast
		"::/128", "::1/128", // unspecified, loopback
		"::ffff:0:0/96", // IPv4-mapped (addresses are unmapped first; kept for safety)
		"100::/64",      // discard-only
	}
	out := make([]netip.Prefix, len(list))
	for i, s := range list {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// Allowed reports whether a delivery may connect to a: a public unicast
// address, or one inside an allowlisted range. IPv4-mapped IPv6 addresses
// are judged as the IPv4 address they carry.
func (g *Guard) Allowed(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if !a.IsValid() {
		return false
	}
	for _, p := range g.allow {
		if p.Contains(a) {
			return true
		}
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsMulticast() || a.IsUnspecified() || a.IsInterfaceLocalMulticast() {
		return false
	}
	if a.Is6() && !globalUnicast6.Contains(a) {
		return false
	}
	for _, p := range g.special {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

func invalid(format string, args ...any) *Error {
	return &Error{Reason: Invalid, Msg: fmt.Sprintf(format, args...)}
}

func blocked(format string, args ...any) *Error {
	return &Error{Reason: Blocked, Msg: fmt.Sprintf(format, args...)}
}

// Check is the save-time check: raw must be an absolute https URL without
// credentials whose host is a public address or a name that resolves, at
// once, only to public addresses. It returns the parsed URL or an *Error.
func (g *Guard) Check(ctx context.Context, raw string) (*url.URL, error) {
	u, host, err := parse(raw)
	if err != nil {
		return nil, err
	}
	if a, ok := literal(host); ok {
		if !g.Allowed(a) {
			return nil, blocked("%s is a private or special address", a)
		}
		return u, nil
	}
	if a, isNumeric, err := legacyIPv4(host); isNumeric {
		switch {
		case err != nil:
			return nil, invalid("host %q is neither a valid IPv4 address nor a name", host)
		case !g.Allowed(a):
			return nil, blocked("%s (written %q) is a private or special address", a, host)
		default:
			return nil, invalid("write IPv4 addresses in dotted-decimal form (%s, not %q)", a, host)
		}
	}
	if err := validName(host); err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return nil, blocked("%s is a loopback name", host)
	}
	if name == "invalid" || strings.HasSuffix(name, ".invalid") { // RFC 6761: never resolves
		return nil, invalid("host %s does not resolve (.invalid names never do)", host)
	}
	addrs, err := g.lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if !g.Allowed(a) {
			return nil, blocked("%s resolves to %s, a private or special address", host, a.Unmap())
		}
	}
	return u, nil
}

// parse checks the URL's shape and returns it with its host.
func parse(raw string) (*url.URL, string, error) {
	if raw == "" {
		return nil, "", invalid("url is required")
	}
	if len(raw) > maxURLLength {
		return nil, "", invalid("url is longer than %d characters", maxURLLength)
	}
	if strings.TrimSpace(raw) != raw || strings.ContainsAny(raw, "\\\x00\r\n\t") {
		return nil, "", invalid("url contains spaces, backslashes or control characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", invalid("url does not parse")
	}
	if u.Scheme != "https" {
		return nil, "", invalid("url must use https")
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, "", invalid("url must be absolute: https://host/path")
	}
	if u.User != nil {
		return nil, "", invalid("url must not carry credentials")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, "", invalid("url port must be 1 to 65535")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, "", invalid("url has an empty port")
	}
	host := u.Hostname()
	if host == "" {
		return nil, "", invalid("url has no host")
	}
	return u, host, nil
}

// literal parses an IP literal host (IPv6 from brackets, or dotted IPv4).
func literal(host string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a, true
}

// legacyIPv4 applies the WHATWG URL host parser: a host whose last label is
// a number is an IPv4 address, written in up to four parts, each decimal,
// octal (leading 0) or hex (0x), the last part filling the remaining bytes
// ("127.1", "2130706433", "0177.0.0.1", "0x7f000001"). Browsers and libc
// connect to such hosts; so they are judged as the address they denote.
// isNumeric is false when the host is a name.
func legacyIPv4(host string) (addr netip.Addr, isNumeric bool, err error) {
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if !isNumberLabel(last) {
		return netip.Addr{}, false, nil
	}
	if len(parts) > 4 {
		return netip.Addr{}, true, errors.New("more than four parts")
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := parseIPv4Part(p)
		if err != nil {
			return netip.Addr{}, true, err
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, true, fmt.Errorf("part %d exceeds 255", i+1)
		}
		v |= n << (8 * (3 - i))
	}
	rest := nums[len(nums)-1]
	if rest >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, true, errors.New("last part too large")
	}
	v |= rest
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true, nil
}

// isNumberLabel reports whether a label is all decimal digits or a 0x
// number (WHATWG's "ends in a number").
func isNumberLabel(s string) bool {
	if s == "" {
		return false
	}
	if strings.TrimLeft(s, "0123456789") == "" {
		return true
	}
	return len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") && strings.TrimLeft(s[2:], "0123456789abcdefABCDEF") == ""
}

func parseIPv4Part(p string) (uint64, error) {
	if p == "" {
		return 0, errors.New("empty part")
	}
	base, digits := 10, p
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, digits = 16, p[2:]
		if digits == "" {
			return 0, nil
		}
	case len(p) >= 2 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	if len(digits) > 32 {
		return 0, errors.New("part too long")
	}
	n, err := strconv.ParseUint(digits, base, 64)
	if err != nil || n > 1<<32 {
		return 0, fmt.Errorf("part %q is not a number in base %d", p, base)
	}
	return n, nil
}

// validName checks a DNS host name: labels of letters, digits, hyphens and
// underscores, 1 to 63 characters, 253 in all.
func validName(host string) error {
	name := strings.TrimSuffix(host, ".")
	if name == "" || len(name) > 253 {
		return invalid("host %q is not a valid name", host)
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return invalid("host %q is not a valid name", host)
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return invalid("host %q is not a valid name (use punycode for international names)", host)
			}
		}
	}
	return nil
}

// lookup resolves name within the lookup timeout and classifies failures:
// a name that does not exist is invalid_url, anything else (timeout,
// temporary failure, a server that will not answer) is dns_busy.
func (g *Guard) lookup(ctx context.Context, name string) ([]netip.Addr, error) {
	ctx, cancel := context.WithTimeout(ctx, g.lookupTimeout)
	defer cancel()
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", name)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return nil, &Error{Reason: Invalid, Msg: fmt.Sprintf("host %s does not resolve", name), Err: err}
		}
		return nil, &Error{Reason: DNSBusy, Msg: fmt.Sprintf("host %s could not be resolved at once", name), Err: err}
	}
	if len(addrs) == 0 {
		return nil, invalid("host %s has no addresses", name)
	}
	return addrs, nil
}

// DialContext connects to address through the guard: a name is resolved
// with the guard's resolver, refused addresses are skipped, and the
// dialler's control hook checks the address actually dialled once more.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("guard dial %s: %w", address, err)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("guard dial %s: bad port: %w", address, err)
	}
	var addrs []netip.Addr
	if a, ok := literal(host); ok {
		addrs = []netip.Addr{a}
	} else {
		if addrs, err = g.lookup(ctx, host); err != nil {
			return nil, err
		}
	}
	var firstErr error
	for _, a := range addrs {
		if !g.Allowed(a) {
			if firstErr == nil {
				firstErr = blocked("%s resolves to %s, a private or special address", host, a.Unmap())
			}
			continue
		}
		conn, err := g.dialer.DialContext(ctx, network, netip.AddrPortFrom(a.Unmap(), uint16(p)).String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil || ReasonOf(firstErr) == Blocked {
			firstErr = err
		}
	}
	return nil, firstErr
}

// control runs just before connect(2): the last word on the address.
func (g *Guard) control(_ context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return blocked("cannot check dial address %q", address)
	}
	if !g.Allowed(ap.Addr()) {
		return blocked("refusing to connect to %s, a private or special address", ap.Addr().Unmap())
	}
	return nil
}

// Client returns the delivery client: connections only through the guard,
// no proxy, no redirects followed (a 3xx is the answer), TLS verified
// against the system roots plus any extra roots, a 10 s limit per request.
func (g *Guard) Client() *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		TLSClientConfig:       &tls.Config{RootCAs: g.roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   g.timeout,
		ResponseHeaderTimeout: g.timeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       g.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
