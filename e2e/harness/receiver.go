package harness

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
)

// ServeTLS serves h as an integrator's HTTPS endpoint on loopback and
// writes its self-signed certificate to dir/receiver-ca.pem, the file a
// service started with ReceiverEnv trusts.
func ServeTLS(h http.Handler, dir string) (srv *httptest.Server, pemPath string, err error) {
	srv = httptest.NewTLSServer(h)
	pemPath = filepath.Join(dir, "receiver-ca.pem")
	if err := os.WriteFile(pemPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		srv.Close()
		return nil, "", err
	}
	return srv, pemPath, nil
}

// ReceiverEnv lets a service deliver webhooks to a ServeTLS endpoint:
// loopback allowed, its certificate (pemPath) trusted.
func ReceiverEnv(pemPath string) []string {
	return []string{"WEBHOOK_ALLOW_CIDRS=127.0.0.1/32", "WEBHOOK_CA_FILE=" + pemPath}
}
