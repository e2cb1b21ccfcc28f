// Package config reads teamtext's configuration from environment variables,
// applies the documented defaults and refuses invalid values at start.
package config

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is the whole process configuration. Every field maps to one
// environment variable documented in the README's configuration table.
type Config struct {
	DatabaseURL     string        // DATABASE_URL (required)
	Addr            string        // ADDR, public API listener
	AdminAddr       string        // ADMIN_ADDR, admin API listener
	AdminToken      string        // ADMIN_TOKEN (required for serve)
	PublicBaseURL   string        // PUBLIC_BASE_URL, how integrators and carriers reach ADDR
	Carrier         string        // CARRIER: simulator or twilio
	Clock           string        // CLOCK: real or test
	LogLevel        slog.Level    // LOG_LEVEL: debug, info, warn, error
	ShutdownTimeout time.Duration // SHUTDOWN_TIMEOUT, graceful stop budget
	DBMaxConns      int32         // DB_MAX_CONNS, pgx pool size
	MaxBodyBytes    int64         // MAX_BODY_BYTES, JSON request body limit
}

// Error names the variable that made the configuration invalid.
type Error struct {
	Var string
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("config: %s %s", e.Var, e.Msg) }

// Need says which settings a command requires beyond the defaults.
type Need struct {
	Database   bool
	AdminToken bool
}

// Load reads the configuration through getenv (os.Getenv in production) and
// validates it. It returns an *Error naming the first bad variable.
func Load(getenv func(string) string, need Need) (Config, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		DatabaseURL:   get("DATABASE_URL", ""),
		Addr:          get("ADDR", ":8080"),
		AdminAddr:     get("ADMIN_ADDR", "127.0.0.1:8081"),
		AdminToken:    getenv("ADMIN_TOKEN"),
		PublicBaseURL: get("PUBLIC_BASE_URL", "http://localhost:8080"),
		Carrier:       get("CARRIER", "simulator"),
		Clock:         get("CLOCK", "real"),
	}
	if need.Database {
		if c.DatabaseURL == "" {
			return c, &Error{"DATABASE_URL", "is required (a postgres:// URL)"}
		}
		if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return c, &Error{"DATABASE_URL", "must be a postgres:// or postgresql:// URL"}
		}
	}
	for _, a := range []struct{ name, v string }{{"ADDR", c.Addr}, {"ADMIN_ADDR", c.AdminAddr}} {
		if _, port, err := net.SplitHostPort(a.v); err != nil || port == "" {
			return c, &Error{a.name, fmt.Sprintf("must be host:port, got %q", a.v)}
		}
	}
	if need.AdminToken && len(c.AdminToken) < 16 {
		return c, &Error{"ADMIN_TOKEN", "is required and must be at least 16 characters"}
	}
	if u, err := url.Parse(c.PublicBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, &Error{"PUBLIC_BASE_URL", "must be an absolute http(s) URL"}
	}
	c.PublicBaseURL = strings.TrimRight(c.PublicBaseURL, "/")
	switch c.Carrier {
	case "simulator", "twilio":
	default:
		return c, &Error{"CARRIER", fmt.Sprintf("must be simulator or twilio, got %q", c.Carrier)}
	}
	switch c.Clock {
	case "real", "test":
	default:
		return c, &Error{"CLOCK", fmt.Sprintf("must be real or test, got %q", c.Clock)}
	}
	if err := c.LogLevel.UnmarshalText([]byte(get("LOG_LEVEL", "info"))); err != nil {
		return c, &Error{"LOG_LEVEL", "must be debug, info, warn or error"}
	}
	d, err := time.ParseDuration(get("SHUTDOWN_TIMEOUT", "20s"))
	if err != nil || d < time.Second {
		return c, &Error{"SHUTDOWN_TIMEOUT", "must be a Go duration of at least 1s, e.g. 20s"}
	}
	c.ShutdownTimeout = d
	n, err := strconv.ParseInt(get("DB_MAX_CONNS", "20"), 10, 32)
	if err != nil || n < 4 || n > 1000 {
		return c, &Error{"DB_MAX_CONNS", "must be a whole number from 4 to 1000"}
	}
	c.DBMaxConns = int32(n)
	b, err := strconv.ParseInt(get("MAX_BODY_BYTES", "1048576"), 10, 64)
	if err != nil || b < 1024 || b > 64<<20 {
		return c, &Error{"MAX_BODY_BYTES", "must be a whole number of bytes from 1024 to 67108864"}
	}
	c.MaxBodyBytes = b
	return c, nil
}

// TestClock reports whether the shared, database-backed test clock is on.
func (c Config) TestClock() bool { return c.Clock == "test" }
