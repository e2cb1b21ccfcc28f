package e2e

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	tcexec "github.com/testcontainers/testcontainers-go/exec"

	"github.com/teamtext/teamtext/e2e/harness"
)

// whEnvelope is the body of a delivery (spec §6).
type whEnvelope struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	CreatedAt string `json:"created_at"`
	Team      struct {
		ID   string `json:"id"`
		Code string `json:"code"`
	} `json:"team"`
	Data json.RawMessage `json:"data"`
}

// envelope decodes a delivery's body.
func envelope(t *testing.T, r harness.Hook) whEnvelope {
	t.Helper()
	var e whEnvelope
	require.NoError(t, json.Unmarshal(r.Body, &e), string(r.Body))
	return e
}

// newReceiver starts an integrator's endpoint for the test (see
// harness.Receiver: "/redirect" answers 302 to the metadata address).
func newReceiver(t *testing.T) *harness.Receiver {
	t.Helper()
	r, err := harness.NewReceiver(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(r.Close)
	return r
}

// receiverPort is the receiver's TCP port.
func receiverPort(r *harness.Receiver) string {
	_, p, _ := net.SplitHostPort(strings.TrimPrefix(r.URL(""), "https://"))
	return p
}

// waitRequests waits until n requests arrived on path and returns them.
func waitRequests(t *testing.T, r *harness.Receiver, path string, n int) []harness.Hook {
	t.Helper()
	waitFor(t, 30*time.Second, func() bool { return len(r.Requests(path)) >= n })
	return r.Requests(path)
}

// hookService is a service on its own database that trusts the receiver
// and may reach it on loopback.
type hookService struct {
	url   string // database URL
	env   []string
	svc   *harness.Service
	admin *harness.Client
}

func startHookService(t *testing.T, db string, rcv *harness.Receiver, extraEnv ...string) *hookService {
	t.Helper()
	h := &hookService{url: freshDatabase(t, db)}
	h.env = append(harness.ReceiverEnv(rcv.PEM()), extraEnv...)
	h.start(t)
	return h
}

// start (re)starts the service process on the same database and settings.
func (h *hookService) start(t *testing.T) {
	t.Helper()
	h.svc = startServiceOn(t, h.url, h.env...)
	h.admin = harness.NewClient(h.svc.AdminURL+"/admin/v1", harness.AdminToken)
}

// team creates a team with a head coach and key on this service.
func (h *hookService) team(t *testing.T) (*harness.Fixture, *harness.Client) {
	t.Helper()
	f, err := harness.NewTeam(context.Background(), h.admin, harness.TeamOptions{})
	require.NoError(t, err)
	return f, harness.NewClient(h.svc.PublicURL+"/api/v1", f.Key)
}

// advance moves the service's test clock.
func (h *hookService) advance(t *testing.T, d time.Duration) time.Time {
	t.Helper()
	var now struct {
		Now time.Time `json:"now"`
	}
	require.NoError(t, h.admin.Expect(context.Background(), 200, "POST", "/clock/advance", map[string]any{"seconds": d.Seconds()}, &now))
	return now.Now
}

// whHook is POST /webhooks's answer.
type whHook struct {
	ID             string    `json:"id"`
	URL            string    `json:"url"`
	Events         []string  `json:"events"`
	Enabled        bool      `json:"enabled"`
	DisabledReason *string   `json:"disabled_reason"`
	Source         string    `json:"source"`
	CreatedBy      string    `json:"created_by"`
	CreatedAt      time.Time `json:"created_at"`
	Secret         string    `json:"secret"`
	// admin view only
	OwnerID             string  `json:"owner_id"`
	KeyID               *string `json:"key_id"`
	ConsecutiveFailures int     `json:"consecutive_failures"`
}

func whCreate(t *testing.T, api *harness.Client, url string, events ...string) whHook {
	t.Helper()
	var w whHook
	require.NoError(t, api.Expect(context.Background(), 201, "POST", "/webhooks", map[string]any{"url": url, "events": events}, &w))
	return w
}

func whAdminGet(t *testing.T, admin *harness.Client, teamID, id string) whHook {
	t.Helper()
	var w whHook
	require.NoError(t, admin.Expect(context.Background(), 200, "GET", "/teams/"+teamID+"/webhooks/"+id, nil, &w))
	return w
}

// whAttempt is one row of the admin's attempts log.
type whAttempt struct {
	EventID       string     `json:"event_id"`
	DeliveryID    string     `json:"delivery_id"`
	Attempt       int        `json:"attempt"`
	Success       bool       `json:"success"`
	StatusCode    *int       `json:"status_code"`
	Error         *string    `json:"error"`
	DurationMS    float64    `json:"duration_ms"`
	AttemptedAt   time.Time  `json:"attempted_at"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
}

func whAttempts(t *testing.T, admin *harness.Client, teamID, webhookID string) []whAttempt {
	t.Helper()
	var as []whAttempt
	require.NoError(t, admin.Expect(context.Background(), 200, "GET", "/teams/"+teamID+"/webhooks/"+webhookID+"/attempts?limit=200", nil, &as))
	return as
}

func whWaitAttempts(t *testing.T, admin *harness.Client, teamID, webhookID string, n int) []whAttempt {
	t.Helper()
	var as []whAttempt
	waitFor(t, 30*time.Second, func() bool {
		as = whAttempts(t, admin, teamID, webhookID)
		return len(as) >= n
	})
	return as
}

// whJoin adds an active member through the admin (member.joined) and returns its id.
func whJoin(t *testing.T, admin *harness.Client, teamID string, body map[string]any) string {
	t.Helper()
	if body["role"] == nil {
		body["role"] = "athlete"
	}
	var m struct {
		ID string `json:"id"`
	}
	require.NoError(t, admin.Expect(context.Background(), 201, "POST", "/teams/"+teamID+"/members", body, &m))
	return m.ID
}

// whVerifySignature checks X-Service-Signature as an integrator would, written
// from spec §6 alone: signed text = t + "." + raw body; v1 = hex
// HMAC-SHA256 keyed with the whole secret string; compared in constant
// time; t within 5 minutes of now. It returns t.
func whVerifySignature(t *testing.T, secret string, r harness.Hook, now time.Time) int64 {
	t.Helper()
	var ts, v1 string
	for _, part := range strings.Split(r.Header.Get("X-Service-Signature"), ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	require.NotEmpty(t, ts, "signature carries t")
	require.NotEmpty(t, v1, "signature carries v1")
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(r.Body)))
	want := hex.EncodeToString(mac.Sum(nil))
	require.True(t, hmac.Equal([]byte(want), []byte(v1)), "signature matches")
	unix, err := strconv.ParseInt(ts, 10, 64)
	require.NoError(t, err)
	require.LessOrEqual(t, whAbs(now.Sub(time.Unix(unix, 0))), 5*time.Minute, "timestamp within tolerance")
	return unix
}

func whAbs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// whQuery runs one SQL query in the suite's container and returns its
// single value as text.
func whQuery(t *testing.T, db, sql string) string {
	t.Helper()
	code, out, err := env.pg.Container.Exec(context.Background(),
		[]string{"psql", "-U", "teamtext", "-d", db, "-tA", "-v", "ON_ERROR_STOP=1", "-c", sql}, tcexec.Multiplexed())
	require.NoError(t, err)
	b, _ := io.ReadAll(out)
	require.Zero(t, code, string(b))
	return strings.TrimSpace(string(b))
}

// whDNS is a tiny authoritative DNS server for WEBHOOK_DNS_SERVER:
// answer decides per name and per A query count (for rebinding) what to
// say; silent names never get an answer (the lookup times out).
type whDNS struct {
	conn    net.PacketConn
	mu      sync.Mutex
	queries map[string]int
	answer  func(name string, n int) (addrs []string, found, silent bool)
}

func newWhDNS(t *testing.T, answer func(name string, n int) (addrs []string, found, silent bool)) *whDNS {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	d := &whDNS{conn: conn, queries: map[string]int{}, answer: answer}
	t.Cleanup(func() { _ = conn.Close() })
	go d.serve()
	return d
}

func (d *whDNS) addr() string { return d.conn.LocalAddr().String() }

// aQueries reports how many A queries name got.
func (d *whDNS) aQueries(name string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.queries[name]
}

func (d *whDNS) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if resp := d.respond(buf[:n]); resp != nil {
			_, _ = d.conn.WriteTo(resp, from)
		}
	}
}

// respond parses a one-question query and builds the answer.
func (d *whDNS) respond(q []byte) []byte {
	if len(q) < 12 {
		return nil
	}
	i := 12
	var labels []string
	for {
		if i >= len(q) {
			return nil
		}
		l := int(q[i])
		i++
		if l == 0 {
			break
		}
		if l&0xC0 != 0 || i+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i:i+l]))
		i += l
	}
	if i+4 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i:])
	qend := i + 4
	name := strings.ToLower(strings.Join(labels, "."))
	d.mu.Lock()
	count := d.queries[name]
	if qtype == 1 {
		d.queries[name]++
	}
	d.mu.Unlock()
	addrs, found, silent := d.answer(name, count)
	if silent {
		return nil
	}
	var answers [][]byte
	for _, s := range addrs {
		a := netip.MustParseAddr(s)
		switch {
		case qtype == 1 && a.Is4():
			answers = append(answers, a.AsSlice())
		case qtype == 28 && a.Is6():
			answers = append(answers, a.AsSlice())
		}
	}
	out := make([]byte, 12, 512)
	copy(out, q[:2])        // id
	flags := uint16(0x8180) // response, recursion desired and available
	if !found {
		flags |= 3 // NXDOMAIN
	}
	binary.BigEndian.PutUint16(out[2:], flags)
	binary.BigEndian.PutUint16(out[4:], 1)
	binary.BigEndian.PutUint16(out[6:], uint16(len(answers)))
	out = append(out, q[12:qend]...)
	for _, rdata := range answers {
		out = append(out, 0xC0, 0x0C) // the question's name
		out = binary.BigEndian.AppendUint16(out, qtype)
		out = binary.BigEndian.AppendUint16(out, 1) // IN
		out = binary.BigEndian.AppendUint32(out, 0) // TTL
		out = binary.BigEndian.AppendUint16(out, uint16(len(rdata)))
		out = append(out, rdata...)
	}
	return out
}

// whDo sends a request and fails the test on a transport error.
func whDo(t *testing.T, c *harness.Client, method, path string, body any) *harness.Response {
	t.Helper()
	r, err := c.Do(context.Background(), method, path, body)
	require.NoError(t, err)
	return r
}
