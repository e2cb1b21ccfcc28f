package config

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	c, err := Load(env(map[string]string{"DATABASE_URL": "postgres://u@h/db", "ADMIN_TOKEN": "0123456789abcdef"}), Need{Database: true, AdminToken: true})
	require.NoError(t, err)
	require.Equal(t, ":8080", c.Addr)
	require.Equal(t, "127.0.0.1:8081", c.AdminAddr)
	require.Equal(t, "simulator", c.Carrier)
	require.Equal(t, "real", c.Clock)
	require.Equal(t, 20*time.Second, c.ShutdownTimeout)
	require.EqualValues(t, 1<<20, c.MaxBodyBytes)
	require.Equal(t, "http://localhost:8080", c.PublicBaseURL)
	require.Equal(t, 50, c.JobWorkers)
	require.Equal(t, 200, c.WebhookWorkers)
	require.Equal(t, 10*time.Millisecond, c.JobFetchCooldown)
	require.Equal(t, 30*time.Second, c.JobTimeout)
	require.Equal(t, time.Minute, c.JobRescueAfter, "a crashed node's jobs run again within about 1.5 minutes")
	require.Equal(t, 20, c.OutboundWorkers)
	require.Equal(t, 10, c.StatusWorkers)
	require.Equal(t, 10, c.InboundWorkers)
	require.Equal(t, 1.0, c.TwilioRate)
	require.Equal(t, "instant", c.SimulatorProfile)
	require.Equal(t, 2, c.UndeliverableAfter, "two permanent failures in a row mark a number undeliverable")
	require.False(t, c.QuietHoursDefault, "quiet hours are off unless the operator or the team turns them on")
	require.False(t, c.RiverUIActions, "the River UI only shows jobs unless the operator allows actions")
	require.Equal(t, 30*time.Second, c.CarrierFailoverAfter)
}

func TestLoadCarrierFailoverAfter(t *testing.T) {
	t.Parallel()
	for v, ok := range map[string]bool{"5s": true, "1s": true, "1h": true, "999ms": false, "2h": false, "soon": false} {
		c, err := Load(func(k string) string {
			if k == "CARRIER_FAILOVER_AFTER" {
				return v
			}
			return ""
		}, Need{})
		if !ok {
			require.ErrorContains(t, err, "CARRIER_FAILOVER_AFTER", v)
			continue
		}
		require.NoError(t, err, v)
		d, _ := time.ParseDuration(v)
		require.Equal(t, d, c.CarrierFailoverAfter, v)
	}
}

func TestLoadRiverUIActions(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{"true": true, "TRUE": true, " false ": false, "": false} {
		c, err := Load(env(map[string]string{"RIVER_UI_ACTIONS": v}), Need{})
		require.NoError(t, err, v)
		require.Equal(t, want, c.RiverUIActions, v)
	}
}

func TestLoadQuietHoursDefault(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{"on": true, "ON": true, " off ": false, "": false} {
		c, err := Load(env(map[string]string{"QUIET_HOURS_DEFAULT": v}), Need{})
		require.NoError(t, err, v)
		require.Equal(t, want, c.QuietHoursDefault, v)
	}
}

func TestLoadNamesTheBadVariable(t *testing.T) {
	t.Parallel()
	base := map[string]string{"DATABASE_URL": "postgres://u@h/db", "ADMIN_TOKEN": "0123456789abcdef"}
	for name, bad := range map[string]string{
		"DATABASE_URL": "mysql://x", "ADDR": "8080", "ADMIN_ADDR": "nope", "PUBLIC_BASE_URL": "ftp://x",
		"CARRIER": "pigeon", "CLOCK": "slow", "LOG_LEVEL": "chatty", "SHUTDOWN_TIMEOUT": "5", "DB_MAX_CONNS": "2",
		"MAX_BODY_BYTES": "10", "ADMIN_TOKEN": "short", "JOB_WORKERS": "0", "JOB_TIMEOUT": "10ms",
		"JOB_RESCUE_AFTER": "1s", "JOB_FETCH_COOLDOWN": "0s", "WEBHOOK_WORKERS": "1001", "OUTBOUND_WORKERS": "0",
		"STATUS_WORKERS": "x", "INBOUND_WORKERS": "1001", "SIMULATOR_PROFILE": "slow", "UNDELIVERABLE_AFTER": "0", "TWILIO_RATE": "0",
		"QUIET_HOURS_DEFAULT": "yes", "RIVER_UI_ACTIONS": "on",
	} {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		m[name] = bad
		_, err := Load(env(m), Need{Database: true, AdminToken: true})
		var ce *Error
		require.True(t, errors.As(err, &ce), name)
		require.Equal(t, name, ce.Var)
	}
	_, err := Load(env(map[string]string{}), Need{})
	require.NoError(t, err, "nothing is required when nothing is needed")
}

func TestLoadDeploySettings(t *testing.T) {
	t.Parallel()
	base := map[string]string{"DATABASE_URL": "postgres://u@h/db", "ADMIN_TOKEN": "0123456789abcdef"}
	c, err := Load(env(base), Need{Database: true, AdminToken: true})
	require.NoError(t, err)
	require.Empty(t, c.TrustedProxies, "no proxy is trusted unless named")
	require.Equal(t, "X-Forwarded-For", c.TrustedProxyHeader)
	require.Zero(t, c.DrainDelay)
	require.Equal(t, 400*24*time.Hour, c.RetentionDeliveries)
	require.Equal(t, 30*24*time.Hour, c.RetentionWebhooks)
	require.Equal(t, 24*time.Hour, c.RetentionJobs)

	set := map[string]string{"TRUSTED_PROXIES": " 10.0.0.0/8, 172.18.0.5 ,fd00::/8", "TRUSTED_PROXY_HEADER": "forwarded", "SHUTDOWN_DRAIN_DELAY": "5s",
		"RETENTION_DELIVERIES": "0", "RETENTION_WEBHOOKS": "2160h", "RETENTION_JOBS": "7d"}
	for k, v := range base {
		set[k] = v
	}
	c, err = Load(env(set), Need{Database: true, AdminToken: true})
	require.NoError(t, err)
	require.Equal(t, "[10.0.0.0/8 172.18.0.5/32 fd00::/8]", fmt.Sprint(c.TrustedProxies))
	require.Equal(t, "Forwarded", c.TrustedProxyHeader)
	require.Equal(t, 5*time.Second, c.DrainDelay)
	require.Zero(t, c.RetentionDeliveries, "0 keeps forever")
	require.Equal(t, 90*24*time.Hour, c.RetentionWebhooks)
	require.Equal(t, 7*24*time.Hour, c.RetentionJobs)

	for name, bad := range map[string]string{"TRUSTED_PROXIES": "10.0.0.0/33", "TRUSTED_PROXY_HEADER": "X-Real-IP", "SHUTDOWN_DRAIN_DELAY": "-1s",
		"RETENTION_DELIVERIES": "12h", "RETENTION_WEBHOOKS": "x", "RETENTION_JOBS": "-1d"} {
		m := map[string]string{name: bad}
		for k, v := range base {
			m[k] = v
		}
		_, err := Load(env(m), Need{Database: true, AdminToken: true})
		var ce *Error
		require.ErrorAs(t, err, &ce, name)
		require.Equal(t, name, ce.Var)
	}
}
