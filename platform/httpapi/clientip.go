package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientHeader names the request header a trusted proxy reports the client
// address in.
type ClientHeader string

// The headers ClientAddress reads.
const (
	HeaderXForwardedFor ClientHeader = "X-Forwarded-For"
	HeaderForwarded     ClientHeader = "Forwarded" // RFC 7239, its for= parameters
)

// ClientAddressOptions says which peers are proxies whose word on the
// client's address is believed, and in which header they give it.
type ClientAddressOptions struct {
	Trusted []netip.Prefix
	Header  ClientHeader
}

// ClientAddress rewrites r.RemoteAddr to the client's address, so that the
// per-IP limit and the request log see the client, not the proxy in front.
// The header is read only when the TCP peer is in a trusted range; it is
// then walked from the right (the hop the nearest proxy appended), skipping
// trusted proxies, and the first untrusted hop is the client: everything to
// its left was written by that client and proves nothing. With no trusted
// ranges the handler is next itself.
func ClientAddress(next http.Handler, o ClientAddressOptions) http.Handler {
	if len(o.Trusted) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if client, ok := ClientIP(r, o); ok {
			r2 := *r
			r2.RemoteAddr = netip.AddrPortFrom(client, 0).String()
			r = &r2
		}
		next.ServeHTTP(w, r)
	})
}

// ClientIP returns the client's address of r as ClientAddress decides it,
// and false when r.RemoteAddr is not an IP address.
func ClientIP(r *http.Request, o ClientAddressOptions) (netip.Addr, bool) {
	peer, ok := parseHop(r.RemoteAddr)
	if !ok {
		return netip.Addr{}, false
	}
	if !trusted(peer, o.Trusted) {
		return peer, true
	}
	var hops []string
	switch o.Header {
	case HeaderForwarded:
		hops = forwardedFor(r.Header.Values("Forwarded"))
	default:
		for _, v := range r.Header.Values("X-Forwarded-For") {
			hops = append(hops, strings.Split(v, ",")...)
		}
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			// A hop a trusted proxy wrote that is no address (an
			// obfuscated "unknown", garbage): the last address known is
			// the best there is.
			return client, true
		}
		client = a
		if !trusted(a, o.Trusted) {
			return a, true
		}
	}
	return client, true
}

func trusted(a netip.Addr, prefixes []netip.Prefix) bool {
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHop reads one address as proxies write them: "192.0.2.1",
// "192.0.2.1:4711", "2001:db8::1", "[2001:db8::1]:4711", quoted or not.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.Trim(strings.TrimSpace(s), `"`)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		if a, err := netip.ParseAddr(host); err == nil {
			return a.Unmap().WithZone(""), true
		}
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil {
			return a.Unmap().WithZone(""), true
		}
	}
	return netip.Addr{}, false
}

// forwardedFor lists the for= values of Forwarded header lines, in order
// (RFC 7239: elements separated by commas, pairs by semicolons).
func forwardedFor(lines []string) []string {
	var out []string
	for _, line := range lines {
		for _, elem := range splitOutsideQuotes(line, ',') {
			for _, pair := range splitOutsideQuotes(elem, ';') {
				k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "for") {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

func splitOutsideQuotes(s string, sep byte) []string {
	var parts []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			quoted = !quoted
		case s[i] == sep && !quoted:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// remoteHost is the address part of r.RemoteAddr (the client's, once
// ClientAddress ran) for the request log.
func remoteHost(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}
