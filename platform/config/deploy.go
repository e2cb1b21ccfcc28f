package config

import (
	"fmt"
	"net/netip"
	"strconv"
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
	for _, r := range []struct {
		name, def string
		min       time.Duration
		dst       *time.Duration
	}{
		{"RETENTION_DELIVERIES", "400d", 24 * time.Hour, &c.RetentionDeliveries},
		{"RETENTION_WEBHOOKS", "30d", 24 * time.Hour, &c.RetentionWebhooks},
		{"RETENTION_JOBS", "24h", time.Hour, &c.RetentionJobs},
		{"RETENTION_ACTIVITY", "365d", 24 * time.Hour, &c.RetentionActivity},
		{"RETENTION_IMPORTS", "30d", 24 * time.Hour, &c.RetentionImports},
	} {
		v, err := parseDays(get(r.name, r.def))
		if err != nil || (v != 0 && v < r.min) {
			return &Error{r.name, fmt.Sprintf("must be 0 (keep forever) or a duration of at least %s, in days (30d) or Go form (720h)", r.min)}
		}
		*r.dst = v
	}
	return nil
}

// parseDays reads "30d" as 30 days, else a Go duration ("720h", "0").
func parseDays(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 100*365 {
			return 0, fmt.Errorf("bad day count %q", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return d, nil
}
