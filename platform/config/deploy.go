package config

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// loadDeploy reads the settings of running behind a proxy or orchestrator.
func (c *Config) loadDeploy(get func(name, def string) string) error {
	if v := get("TRUSTED_PROXIES", ""); v != "" {
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			p, err := netip.ParsePrefix(part)
			if err != nil {
				// A bare address is a one-address range.
				a, aerr := netip.ParseAddr(part)
				if aerr != nil {
					return &Error{"TRUSTED_PROXIES", fmt.Sprintf("must be comma-separated CIDRs such as 10.0.0.0/8, got %q", part)}
				}
				p = netip.PrefixFrom(a, a.BitLen())
			}
			c.TrustedProxies = append(c.TrustedProxies, p.Masked())
		}
	}
	switch h := get("TRUSTED_PROXY_HEADER", "X-Forwarded-For"); strings.ToLower(h) {
	case "x-forwarded-for":
		c.TrustedProxyHeader = "X-Forwarded-For"
	case "forwarded":
		c.TrustedProxyHeader = "Forwarded"
	default:
		return &Error{"TRUSTED_PROXY_HEADER", fmt.Sprintf("must be X-Forwarded-For or Forwarded, got %q", h)}
	}
	d, err := time.ParseDuration(get("SHUTDOWN_DRAIN_DELAY", "0s"))
	if err != nil || d < 0 || d > 5*time.Minute {
		return &Error{"SHUTDOWN_DRAIN_DELAY", "must be a Go duration from 0s to 5m, e.g. 5s"}
	}
	c.DrainDelay = d
	return nil
}
