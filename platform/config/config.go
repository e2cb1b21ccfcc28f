// Package config reads teamtext's configuration from environment variables,
// applies the documented defaults and refuses invalid values at start.
package config

import (
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/teamtext/teamtext/platform/secrets"
)

// Config is the whole process configuration. Every field maps to one
// environment variable documented in docs/CONFIGURATION.md (docs_test.go
// fails when the two differ).
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
	// SignInCodesPerAddress is how many dashboard sign-in codes one client
	// address may ask for in 10 minutes (SIGNIN_CODES_PER_ADDRESS).
	SignInCodesPerAddress int
	JobWorkers            int // JOB_WORKERS, concurrent River jobs per process
	WebhookWorkers        int // WEBHOOK_WORKERS, concurrent webhook deliveries per process
	// OutboundWorkers, StatusWorkers and InboundWorkers (OUTBOUND_WORKERS,
	// STATUS_WORKERS, INBOUND_WORKERS) are the slots of the River queues of
	// hand-overs to the carrier, delivery-status ingestion and inbound
	// texts: each its own, so none waits behind another's backlog.
	OutboundWorkers int
	StatusWorkers   int
	InboundWorkers  int
	JobTimeout      time.Duration // JOB_TIMEOUT, longest a job attempt may run
	JobRescueAfter  time.Duration // JOB_RESCUE_AFTER, when a job left running by a dead process is retried
	// JobFetchCooldown (JOB_FETCH_COOLDOWN) is the shortest gap between two
	// fetches of River's producer. With JobWorkers it caps throughput at
	// JobWorkers / JobFetchCooldown jobs per second per process.
	JobFetchCooldown time.Duration

	// WebhookAllowCIDRs (WEBHOOK_ALLOW_CIDRS) are address ranges the webhook
	// URL guard lets through although they are private or special (test
	// receivers on loopback). Empty by default: only public addresses.
	WebhookAllowCIDRs []netip.Prefix
	// WebhookCAFile (WEBHOOK_CA_FILE) is a PEM file of CA roots trusted for
	// webhook deliveries in addition to the system pool. Empty by default.
	WebhookCAFile string
	// WebhookDNSServer (WEBHOOK_DNS_SERVER) is the host:port of the DNS
	// server webhook host names are resolved with; empty: the system's.
	WebhookDNSServer string
	// WebhookSecretOverlap (WEBHOOK_SECRET_OVERLAP) is how long a webhook's
	// rotated-out secret keeps signing deliveries beside the new one.
	WebhookSecretOverlap time.Duration
	SMTPAddr             string // SMTP_ADDR, host:port of the mail relay; empty: e-mail is only recorded
	SMTPFrom             string // SMTP_FROM, sender address (required with SMTP_ADDR)
	SMTPUsername         string // SMTP_USERNAME, PLAIN auth user (optional)
	SMTPPassword         string // SMTP_PASSWORD, PLAIN auth password (optional)
	// Twilio carrier (CARRIER=twilio).
	TwilioAccountSID string // TWILIO_ACCOUNT_SID (required with CARRIER=twilio)
	TwilioAuthToken  string // TWILIO_AUTH_TOKEN (required with CARRIER=twilio); also verifies status callbacks
	TwilioAPIURL     string // TWILIO_API_URL, Twilio's REST API base URL (tests point it at a fake)
	// SecretsKey (SECRETS_KEY) seals carrier accounts' credentials at rest
	// (standard base64 of 32 random bytes); SecretsKeyPrevious
	// (SECRETS_KEY_PREVIOUS) still opens values sealed under the key it
	// replaces while `teamtext secrets rotate` reseals them.
	SecretsKey         string
	SecretsKeyPrevious string
	// CarrierFailoverAfter (CARRIER_FAILOVER_AFTER) is how long a carrier
	// account must have been down before the queued texts of teams with
	// carrier_failover on move to their numbers on healthy accounts.
	CarrierFailoverAfter time.Duration
	// TwilioRate (TWILIO_RATE) is a sending number's throughput unless the
	// admin set its own: SMS segments per second, across all nodes together.
	TwilioRate float64
	// SimulatorProfile (SIMULATOR_PROFILE) is the carrier simulator's
	// profile until the admin API sets one: instant or realistic.
	SimulatorProfile string
	// UndeliverableAfter (UNDELIVERABLE_AFTER) is how many permanent
	// delivery failures in a row (landline, unreachable, invalid, blocked)
	// mark a number undeliverable, so that sends skip it.
	UndeliverableAfter int
	// QuietHoursDefault (QUIET_HOURS_DEFAULT: on or off) is whether a team's
	// quiet hours are on when the team has not chosen.
	QuietHoursDefault bool
	// RiverUIActions (RIVER_UI_ACTIONS: true or false) lets the River UI
	// on the admin listener (/admin/river/) cancel, retry and delete jobs
	// and pause or resume queues; false (the default): it only shows them.
	RiverUIActions bool

	// TrustedProxies (TRUSTED_PROXIES) are the address ranges of reverse
	// proxies whose report of the client's address is believed; empty: none,
	// the TCP peer is the client.
	TrustedProxies []netip.Prefix
	// TrustedProxyHeader (TRUSTED_PROXY_HEADER) is the header those proxies
	// report it in: X-Forwarded-For or Forwarded.
	TrustedProxyHeader string
	// DrainDelay (SHUTDOWN_DRAIN_DELAY) is how long /readyz answers 503
	// after SIGTERM before the listeners stop accepting, so that load
	// balancers take the node out of rotation first.
	DrainDelay time.Duration
	// Retention (RETENTION_*): how long rows are kept before the leader's
	// hourly job deletes them in batches; 0 keeps them forever.
	RetentionDeliveries time.Duration // RETENTION_DELIVERIES: text deliveries, by their send's time
	RetentionWebhooks   time.Duration // RETENTION_WEBHOOKS: webhook events, deliveries and their attempts
	RetentionJobs       time.Duration // RETENTION_JOBS: River's completed and cancelled jobs
	RetentionActivity   time.Duration // RETENTION_ACTIVITY: the dashboard's activity log
	RetentionImports    time.Duration // RETENTION_IMPORTS: browser imports, their rejected rows included
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
	w, err := strconv.Atoi(get("JOB_WORKERS", "50"))
	if err != nil || w < 1 || w > 1000 {
		return c, &Error{"JOB_WORKERS", "must be a whole number from 1 to 1000"}
	}
	c.JobWorkers = w
	if c.SignInCodesPerAddress, err = strconv.Atoi(get("SIGNIN_CODES_PER_ADDRESS", "30")); err != nil ||
		c.SignInCodesPerAddress < 20 || c.SignInCodesPerAddress > 100000 {
		return c, &Error{"SIGNIN_CODES_PER_ADDRESS", "must be a whole number from 20 to 100000"}
	}
	for _, q := range []struct {
		name string
		def  string
		dst  *int
	}{{"WEBHOOK_WORKERS", "200", &c.WebhookWorkers}, {"OUTBOUND_WORKERS", "20", &c.OutboundWorkers},
		{"STATUS_WORKERS", "10", &c.StatusWorkers}, {"INBOUND_WORKERS", "10", &c.InboundWorkers}} {
		if *q.dst, err = strconv.Atoi(get(q.name, q.def)); err != nil || *q.dst < 1 || *q.dst > 1000 {
			return c, &Error{q.name, "must be a whole number from 1 to 1000"}
		}
	}
	if c.JobTimeout, err = time.ParseDuration(get("JOB_TIMEOUT", "30s")); err != nil || c.JobTimeout < time.Second {
		return c, &Error{"JOB_TIMEOUT", "must be a Go duration of at least 1s, e.g. 30s"}
	}
	if c.JobRescueAfter, err = time.ParseDuration(get("JOB_RESCUE_AFTER", "1m")); err != nil || c.JobRescueAfter < c.JobTimeout {
		return c, &Error{"JOB_RESCUE_AFTER", "must be a Go duration no shorter than JOB_TIMEOUT, e.g. 1m"}
	}
	if c.JobFetchCooldown, err = time.ParseDuration(get("JOB_FETCH_COOLDOWN", "10ms")); err != nil ||
		c.JobFetchCooldown < time.Millisecond || c.JobFetchCooldown > time.Second {
		return c, &Error{"JOB_FETCH_COOLDOWN", "must be a Go duration from 1ms to 1s, e.g. 10ms"}
	}
	if err := c.loadWebhooks(getenv, get); err != nil {
		return c, err
	}
	if err := c.loadTwilio(get); err != nil {
		return c, err
	}
	if err := c.loadDeploy(get); err != nil {
		return c, err
	}
	if c.CarrierFailoverAfter, err = time.ParseDuration(get("CARRIER_FAILOVER_AFTER", "30s")); err != nil ||
		c.CarrierFailoverAfter < time.Second || c.CarrierFailoverAfter > time.Hour {
		return c, &Error{"CARRIER_FAILOVER_AFTER", "must be a Go duration from 1s to 1h, e.g. 30s"}
	}
	if c.UndeliverableAfter, err = strconv.Atoi(get("UNDELIVERABLE_AFTER", "2")); err != nil || c.UndeliverableAfter < 1 || c.UndeliverableAfter > 100 {
		return c, &Error{"UNDELIVERABLE_AFTER", "must be a whole number from 1 to 100"}
	}
	switch q := strings.ToLower(get("QUIET_HOURS_DEFAULT", "off")); q {
	case "on", "off":
		c.QuietHoursDefault = q == "on"
	default:
		return c, &Error{"QUIET_HOURS_DEFAULT", fmt.Sprintf("must be on or off, got %q", q)}
	}
	switch a := strings.ToLower(get("RIVER_UI_ACTIONS", "false")); a {
	case "true", "false":
		c.RiverUIActions = a == "true"
	default:
		return c, &Error{"RIVER_UI_ACTIONS", fmt.Sprintf("must be true or false, got %q", a)}
	}
	switch c.SimulatorProfile = get("SIMULATOR_PROFILE", "instant"); c.SimulatorProfile {
	case "instant", "realistic":
	default:
		return c, &Error{"SIMULATOR_PROFILE", fmt.Sprintf("must be instant or realistic, got %q", c.SimulatorProfile)}
	}
	return c, nil
}

// loadWebhooks reads the webhook delivery and e-mail settings.
func (c *Config) loadWebhooks(getenv func(string) string, get func(name, def string) string) error {
	if v := get("WEBHOOK_ALLOW_CIDRS", ""); v != "" {
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return &Error{"WEBHOOK_ALLOW_CIDRS", fmt.Sprintf("must be comma-separated CIDRs such as 127.0.0.1/32, got %q", part)}
			}
			c.WebhookAllowCIDRs = append(c.WebhookAllowCIDRs, p.Masked())
		}
	}
	c.WebhookCAFile = get("WEBHOOK_CA_FILE", "")
	if c.WebhookCAFile != "" {
		pem, err := os.ReadFile(c.WebhookCAFile)
		if err != nil {
			return &Error{"WEBHOOK_CA_FILE", fmt.Sprintf("cannot be read: %v", err)}
		}
		if !x509.NewCertPool().AppendCertsFromPEM(pem) {
			return &Error{"WEBHOOK_CA_FILE", "must contain at least one PEM certificate"}
		}
	}
	c.WebhookDNSServer = get("WEBHOOK_DNS_SERVER", "")
	if c.WebhookDNSServer != "" {
		if host, port, err := net.SplitHostPort(c.WebhookDNSServer); err != nil || host == "" || port == "" {
			return &Error{"WEBHOOK_DNS_SERVER", fmt.Sprintf("must be host:port of a DNS server, got %q", c.WebhookDNSServer)}
		}
	}
	d, err := time.ParseDuration(get("WEBHOOK_SECRET_OVERLAP", "24h"))
	if err != nil || d < 0 || d > 30*24*time.Hour {
		return &Error{"WEBHOOK_SECRET_OVERLAP", "must be a duration from 0s to 720h"}
	}
	c.WebhookSecretOverlap = d
	c.SMTPAddr = get("SMTP_ADDR", "")
	c.SMTPFrom = get("SMTP_FROM", "")
	c.SMTPUsername = get("SMTP_USERNAME", "")
	c.SMTPPassword = getenv("SMTP_PASSWORD") // taken as is: spaces may be part of it
	if c.SMTPAddr == "" {
		return nil
	}
	if host, port, err := net.SplitHostPort(c.SMTPAddr); err != nil || host == "" || port == "" {
		return &Error{"SMTP_ADDR", fmt.Sprintf("must be host:port, got %q", c.SMTPAddr)}
	}
	if _, err := mail.ParseAddress(c.SMTPFrom); err != nil {
		return &Error{"SMTP_FROM", "is required with SMTP_ADDR and must be an e-mail address"}
	}
	if (c.SMTPUsername == "") != (c.SMTPPassword == "") {
		return &Error{"SMTP_PASSWORD", "SMTP_USERNAME and SMTP_PASSWORD must be set together"}
	}
	return nil
}

// TestClock reports whether the shared, database-backed test clock is on.
func (c Config) TestClock() bool { return c.Clock == "test" }

// loadTwilio reads the Twilio carrier's settings; the credentials are
// required only when CARRIER=twilio.
func (c *Config) loadTwilio(get func(name, def string) string) error {
	c.TwilioAccountSID = get("TWILIO_ACCOUNT_SID", "")
	c.TwilioAuthToken = get("TWILIO_AUTH_TOKEN", "")
	c.TwilioAPIURL = strings.TrimRight(get("TWILIO_API_URL", "https://api.twilio.com"), "/")
	if u, err := url.Parse(c.TwilioAPIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &Error{"TWILIO_API_URL", "must be an absolute http(s) URL"}
	}
	r, err := strconv.ParseFloat(get("TWILIO_RATE", "1"), 64)
	if err != nil || !(r > 0 && r <= 1000) { // the negation also refuses NaN
		return &Error{"TWILIO_RATE", "must be SMS segments per second per number, greater than 0 and at most 1000 (e.g. 1 or 0.5)"}
	}
	c.TwilioRate = r
	c.SecretsKey, c.SecretsKeyPrevious = get("SECRETS_KEY", ""), get("SECRETS_KEY_PREVIOUS", "")
	if _, err := secrets.New(c.SecretsKey, ""); err != nil {
		return &Error{"SECRETS_KEY", "must be standard base64 of 32 random bytes (openssl rand -base64 32)"}
	}
	if _, err := secrets.New(c.SecretsKey, c.SecretsKeyPrevious); err != nil {
		return &Error{"SECRETS_KEY_PREVIOUS", "must be standard base64 of 32 random bytes, and needs SECRETS_KEY"}
	}
	if c.Carrier != "twilio" {
		return nil
	}
	if len(c.TwilioAccountSID) != 34 || !strings.HasPrefix(c.TwilioAccountSID, "AC") {
		return &Error{"TWILIO_ACCOUNT_SID", "is required with CARRIER=twilio: the account SID, AC followed by 32 characters"}
	}
	if c.TwilioAuthToken == "" {
		return &Error{"TWILIO_AUTH_TOKEN", "is required with CARRIER=twilio"}
	}
	return nil
}
