package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// selfSigned returns a fresh self-signed certificate in PEM.
func selfSigned(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestWebhookSettings(t *testing.T) {
	t.Parallel()
	c, err := Load(env(map[string]string{}), Need{})
	require.NoError(t, err)
	require.Empty(t, c.WebhookAllowCIDRs, "off by default")
	require.Empty(t, c.WebhookCAFile, "off by default")
	require.Empty(t, c.WebhookDNSServer)
	require.Empty(t, c.SMTPAddr, "e-mail is recorded only by default")

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(caFile, selfSigned(t), 0o600))
	c, err = Load(env(map[string]string{
		"WEBHOOK_ALLOW_CIDRS": " 127.0.0.1/32, ::1/128 ,10.1.2.3/8", "WEBHOOK_CA_FILE": caFile, "WEBHOOK_DNS_SERVER": "127.0.0.1:5353",
		"SMTP_ADDR": "smtp.example.com:587", "SMTP_FROM": "teamtext <noreply@example.com>", "SMTP_USERNAME": "u", "SMTP_PASSWORD": " p w ",
	}), Need{})
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("10.0.0.0/8")}, c.WebhookAllowCIDRs)
	require.Equal(t, caFile, c.WebhookCAFile)
	require.Equal(t, "127.0.0.1:5353", c.WebhookDNSServer)
	require.Equal(t, " p w ", c.SMTPPassword, "the password is taken as is")
}

func TestWebhookSettingsNameTheBadVariable(t *testing.T) {
	t.Parallel()
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("hello"), 0o600))
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"WEBHOOK_ALLOW_CIDRS": "127.0.0.1"}, "WEBHOOK_ALLOW_CIDRS"},
		{map[string]string{"WEBHOOK_ALLOW_CIDRS": "127.0.0.1/32,nonsense"}, "WEBHOOK_ALLOW_CIDRS"},
		{map[string]string{"WEBHOOK_CA_FILE": "/does/not/exist.pem"}, "WEBHOOK_CA_FILE"},
		{map[string]string{"WEBHOOK_CA_FILE": notPEM}, "WEBHOOK_CA_FILE"},
		{map[string]string{"WEBHOOK_DNS_SERVER": "10.0.0.53"}, "WEBHOOK_DNS_SERVER"},
		{map[string]string{"SMTP_ADDR": "smtp.example.com"}, "SMTP_ADDR"},
		{map[string]string{"SMTP_ADDR": "smtp.example.com:25"}, "SMTP_FROM"},
		{map[string]string{"SMTP_ADDR": "smtp.example.com:25", "SMTP_FROM": "not an address"}, "SMTP_FROM"},
		{map[string]string{"SMTP_ADDR": "smtp.example.com:25", "SMTP_FROM": "a@b.c", "SMTP_USERNAME": "u"}, "SMTP_PASSWORD"},
	} {
		_, err := Load(env(tc.env), Need{})
		var ce *Error
		require.True(t, errors.As(err, &ce), "%v", tc.env)
		require.Equal(t, tc.want, ce.Var, "%v", tc.env)
	}
}
