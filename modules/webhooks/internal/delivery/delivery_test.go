package delivery

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/webhooks/internal/guard"
	"github.com/teamtext/teamtext/platform/clock"
)

type seen struct {
	header http.Header
	body   []byte
}

func setup(t *testing.T, h http.HandlerFunc) (*Sender, *httptest.Server, func() []seen, time.Time) {
	t.Helper()
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Header.Clone(), b})
		mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	g := guard.New(guard.Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, RootCAs: roots})
	at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	return NewSender(g.Client(), clock.NewFake(at)), srv, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), got...)
	}, at
}

func TestSendSignsTheStoredBytes(t *testing.T) {
	t.Parallel()
	s, srv, got, at := setup(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) })
	body := []byte(`{"id":"evt_1","type":"member.joined" ,"data":{"x":1}}`) // not re-encoded: spacing kept
	res := s.Send(context.Background(), Request{URL: srv.URL + "/hook", Secret: "whsec_k", Event: "member.joined", DeliveryID: "dlv_1", Body: body})
	require.True(t, res.OK(), res.Err)
	require.Equal(t, http.StatusAccepted, res.StatusCode)
	require.Equal(t, at, res.At)
	require.Len(t, got(), 1)
	r := got()[0]
	require.Equal(t, body, r.body)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	require.Equal(t, "member.joined", r.header.Get(HeaderEvent))
	require.Equal(t, "dlv_1", r.header.Get(HeaderDelivery))
	mac := hmac.New(sha256.New, []byte("whsec_k"))
	mac.Write([]byte(strconv.FormatInt(at.Unix(), 10) + "." + string(body)))
	require.Equal(t, "t="+strconv.FormatInt(at.Unix(), 10)+",v1="+hex.EncodeToString(mac.Sum(nil)), r.header.Get(HeaderSignature))
}

func TestSendFailures(t *testing.T) {
	t.Parallel()
	s, srv, got, _ := setup(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "https://169.254.169.254/", http.StatusFound)
		default:
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	ctx := context.Background()
	res := s.Send(ctx, Request{URL: srv.URL + "/redirect", Secret: "s", Body: []byte("{}")})
	require.False(t, res.OK())
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Contains(t, res.Err, "redirects are not followed")
	res = s.Send(ctx, Request{URL: srv.URL + "/boom", Secret: "s", Body: []byte("{}")})
	require.False(t, res.OK())
	require.Equal(t, 500, res.StatusCode)
	require.Len(t, got(), 2)

	res = s.Send(ctx, Request{URL: strings.Replace(srv.URL, "https://", "http://", 1), Secret: "s", Body: []byte("{}")})
	require.False(t, res.OK())
	require.Contains(t, res.Err, "https")
	res = s.Send(ctx, Request{URL: "https://10.0.0.1/?token=secret", Secret: "s", Body: []byte("{}")})
	require.False(t, res.OK())
	require.Zero(t, res.StatusCode)
	require.Contains(t, res.Err, "refused")
	require.NotContains(t, res.Err, "token=secret", "errors never carry the URL")
	require.Len(t, got(), 2)
}
