package accounts_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/fakes/bandwidthtest"
	"github.com/teamtext/teamtext/modules/messaging/fakes/telnyxtest"
	"github.com/teamtext/teamtext/modules/messaging/internal/accounts"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/modules/messaging/internal/carrier/carriertest"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/secrets"
)

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

func newKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(b)
}

type env struct {
	d    *db.DB
	repo *postgres.Repo
	svc  *accounts.Service
	key  string
	logs *bytes.Buffer
}

func setup(t *testing.T, provider domain.Provider) *env {
	t.Helper()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	key := newKey(t)
	keys, err := secrets.New(key, "")
	require.NoError(t, err)
	logs := &bytes.Buffer{}
	repo := postgres.NewRepo(d, slog.New(slog.DiscardHandler))
	svc := accounts.New(repo, keys, clock.NewFake(time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)), provider, slog.New(slog.NewTextHandler(logs, nil)))
	return &env{d: d, repo: repo, svc: svc, key: key, logs: logs}
}

func ptr(s string) *string { return &s }

// Telnyx test credentials (the key is any 32 bytes).
var telnyxCreds = domain.Credentials{"api_key": "KEYsecretvalue42", "public_key": base64.StdEncoding.EncodeToString(make([]byte, 32)),
	"messaging_profile_id": "prof-1"}

func requireFault(t *testing.T, err error, kind fault.Kind, code string) {
	t.Helper()
	f, ok := fault.As(err)
	require.True(t, ok, "want a fault, got %v", err)
	require.Equal(t, kind, f.Kind)
	require.Equal(t, code, f.Code)
}

func addNumber(t *testing.T, d *db.DB, number, account string) {
	t.Helper()
	_, err := d.SQLDB.Exec(`INSERT INTO messaging_numbers (id, team_id, number, kind, created_at, updated_at, carrier_account_id)
VALUES ($1, 'team_x', $2, 'long_code', now(), now(), $3)`, "num_"+number[1:], number, account)
	require.NoError(t, err)
}

func TestAccountsLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t, domain.ProviderTwilio)

	list, err := e.svc.List(ctx, 10, 0)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.True(t, list[0].Default)
	require.Equal(t, domain.DefaultAccountID, list[0].ID)
	require.Equal(t, domain.ProviderTwilio, list[0].Provider, "the default account's provider is the environment's CARRIER")

	a, err := e.svc.Create(ctx, domain.AccountInput{Provider: ptr("telnyx"), Name: ptr("Club Telnyx"), Credentials: telnyxCreds})
	require.NoError(t, err)
	require.Nil(t, a.Credentials)
	require.False(t, a.Default)

	var sealed []byte
	require.NoError(t, e.d.SQLDB.QueryRow(`SELECT sealed FROM messaging_carrier_accounts WHERE id = $1`, a.ID).Scan(&sealed))
	require.NotContains(t, string(sealed), "KEYsecretvalue42", "credentials are sealed at rest")
	require.NotContains(t, e.logs.String(), "KEYsecretvalue42")

	opened, err := e.svc.Open(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, telnyxCreds, opened.Credentials)

	list, err = e.svc.List(ctx, 10, 0)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.True(t, list[0].Default, "the default first")

	// Changes: a name; credentials checked whole; the provider stays.
	changed, err := e.svc.Update(ctx, a.ID, domain.AccountInput{Name: ptr("Renamed")})
	require.NoError(t, err)
	require.Equal(t, "Renamed", changed.Name)
	_, err = e.svc.Update(ctx, a.ID, domain.AccountInput{Credentials: domain.Credentials{"api_key": "x"}})
	requireFault(t, err, fault.Invalid, fault.CodeInvalidRequest)
	_, err = e.svc.Update(ctx, a.ID, domain.AccountInput{Provider: ptr("twilio")})
	requireFault(t, err, fault.Invalid, fault.CodeInvalidRequest)
	_, err = e.svc.Update(ctx, domain.DefaultAccountID, domain.AccountInput{Name: ptr("mine")})
	requireFault(t, err, fault.Conflict, fault.CodeConflict)

	// A number uses it: no delete; moved away: deleted, then 404.
	addNumber(t, e.d, "+12025550111", a.ID)
	requireFault(t, e.svc.Delete(ctx, a.ID), fault.Conflict, fault.CodeConflict)
	requireFault(t, e.svc.Delete(ctx, domain.DefaultAccountID), fault.Conflict, fault.CodeConflict)
	_, err = e.d.SQLDB.Exec(`UPDATE messaging_numbers SET carrier_account_id = 'cac_default'`)
	require.NoError(t, err)
	require.NoError(t, e.svc.Delete(ctx, a.ID))
	_, err = e.svc.Get(ctx, a.ID)
	requireFault(t, err, fault.NotFound, fault.CodeNotFound)
	requireFault(t, e.svc.Usable(ctx, a.ID), fault.Invalid, fault.CodeInvalidRequest)
	require.NoError(t, e.svc.Usable(ctx, domain.DefaultAccountID))
}

func TestCreateRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t, domain.ProviderSimulator)
	for name, in := range map[string]domain.AccountInput{
		"unknown provider": {Provider: ptr("nexmo"), Name: ptr("x"), Credentials: domain.Credentials{}},
		"missing field":    {Provider: ptr("bandwidth"), Name: ptr("x"), Credentials: domain.Credentials{"account_id": "1"}},
		"extra field":      {Provider: ptr("simulator"), Name: ptr("x"), Credentials: domain.Credentials{"token": "x"}},
		"twilio sid":       {Provider: ptr("twilio"), Name: ptr("x"), Credentials: domain.Credentials{"account_sid": "nope", "auth_token": "abc"}},
		"telnyx key":       {Provider: ptr("telnyx"), Name: ptr("x"), Credentials: domain.Credentials{"api_key": "k", "public_key": "short", "messaging_profile_id": "p"}},
		"NUL in a value":   {Provider: ptr("telnyx"), Name: ptr("x"), Credentials: domain.Credentials{"api_key": "k\x00", "public_key": telnyxCreds["public_key"], "messaging_profile_id": "p"}},
		"NUL in the name":  {Provider: ptr("simulator"), Name: ptr("a\x00b"), Credentials: domain.Credentials{}},
		"api_url":          {Provider: ptr("simulator"), Name: ptr("x"), Credentials: domain.Credentials{}, APIURL: ptr("ftp://fake")},
		"no name":          {Provider: ptr("simulator"), Credentials: domain.Credentials{}},
	} {
		_, err := e.svc.Create(ctx, in)
		requireFault(t, err, fault.Invalid, fault.CodeInvalidRequest)
		require.NotContains(t, err.Error(), "KEYsecret", name)
	}
	var n int
	require.NoError(t, e.d.SQLDB.QueryRow(`SELECT count(*) FROM messaging_carrier_accounts`).Scan(&n))
	require.Equal(t, 1, n, "nothing half-written: only the default row")

	noKey := accounts.New(e.repo, nil, clock.Real{}, domain.ProviderSimulator, slog.New(slog.DiscardHandler))
	_, err := noKey.Create(ctx, domain.AccountInput{Provider: ptr("telnyx"), Name: ptr("x"), Credentials: telnyxCreds})
	requireFault(t, err, fault.Conflict, fault.CodeConflict)
}

func TestRotate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t, domain.ProviderSimulator)
	var ids []string
	for i := range 3 {
		a, err := e.svc.Create(ctx, domain.AccountInput{Provider: ptr("telnyx"), Name: ptr("t" + strconv.Itoa(i)), Credentials: telnyxCreds})
		require.NoError(t, err)
		ids = append(ids, a.ID)
	}
	next := newKey(t)
	onlyNew, err := secrets.New(next, "")
	require.NoError(t, err)
	after := accounts.New(e.repo, onlyNew, clock.Real{}, domain.ProviderSimulator, slog.New(slog.DiscardHandler))
	_, err = after.Open(ctx, ids[0])
	require.ErrorIs(t, err, secrets.ErrNoKey, "before the rotation the new key alone opens nothing")

	both, err := secrets.New(next, e.key)
	require.NoError(t, err)
	during := accounts.New(e.repo, both, clock.Real{}, domain.ProviderSimulator, slog.New(slog.DiscardHandler))
	var seen []int
	n, err := during.Rotate(ctx, func(done, total int) { seen = append(seen, done*10+total) })
	require.NoError(t, err)
	require.Equal(t, 3, n)
	require.Equal(t, []int{13, 23, 33}, seen, "progress after each account")
	n, err = during.Rotate(ctx, nil)
	require.NoError(t, err)
	require.Zero(t, n, "a second run has nothing left")
	for _, id := range ids {
		a, err := after.Open(ctx, id)
		require.NoError(t, err)
		require.Equal(t, telnyxCreds, a.Credentials)
	}
}

// recorder is a default carrier that keeps what it was handed.
type recorder struct {
	mu   sync.Mutex
	sent []carrier.Message
}

func (r *recorder) Name() string                        { return "recorder" }
func (r *recorder) Paced(context.Context) (bool, error) { return false, nil }
func (r *recorder) Send(_ context.Context, m carrier.Message) (carrier.Receipt, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, m)
	return carrier.Receipt{ProviderMessageID: "rec_" + m.DeliveryID, Status: "queued"}, nil
}

func TestRouterSendsThroughEachNumbersAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t, domain.ProviderSimulator)
	tfake := telnyxtest.NewServer(t, "KEYtelnyx", "prof-1")
	bfake := bandwidthtest.NewServer(t, "990001", "user", "pass", "app-1", "cbuser", "cbpass")
	tel, err := e.svc.Create(ctx, domain.AccountInput{Provider: ptr("telnyx"), Name: ptr("T"), APIURL: ptr(tfake.URL),
		Credentials: domain.Credentials{"api_key": "KEYtelnyx", "public_key": tfake.PublicKey(), "messaging_profile_id": "prof-1"}})
	require.NoError(t, err)
	bw, err := e.svc.Create(ctx, domain.AccountInput{Provider: ptr("bandwidth"), Name: ptr("B"), APIURL: ptr(bfake.URL),
		Credentials: domain.Credentials{"account_id": "990001", "username": "user", "password": "pass", "application_id": "app-1",
			"callback_username": "cbuser", "callback_password": "cbpass"}})
	require.NoError(t, err)
	addNumber(t, e.d, "+12025550121", tel.ID)
	addNumber(t, e.d, "+12025550122", bw.ID)
	addNumber(t, e.d, "+12025550123", domain.DefaultAccountID)

	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	def := &recorder{}
	r := accounts.NewRouter(def, e.svc, accounts.Adapters{PublicBaseURL: "https://teamtext.example", Log: slog.New(slog.DiscardHandler)},
		func() time.Time { return now }, slog.New(slog.DiscardHandler))
	send := func(from, dlv string) {
		t.Helper()
		_, err := r.Send(ctx, carrier.Message{DeliveryID: dlv, From: from, To: "+12025550199", Body: "Practice at 6", Segments: 1})
		require.NoError(t, err)
	}
	send("+12025550121", "d1")
	send("+12025550122", "d2")
	send("+12025550123", "d3")
	send("+12025550124", "d4") // no row: the default
	require.Len(t, tfake.Messages(), 1)
	require.Equal(t, "+12025550121", tfake.Messages()[0].From)
	require.Len(t, bfake.Messages(), 1)
	require.Equal(t, "d2", bfake.Messages()[0].Tag)
	require.Len(t, def.sent, 2)

	paced, err := r.Paced(ctx)
	require.NoError(t, err)
	require.True(t, paced, "accounts at real carriers: texts are planned at each number's pace")

	// Moved to Bandwidth: the cached route holds for CacheTTL, then the move is seen.
	_, err = e.d.SQLDB.Exec(`UPDATE messaging_numbers SET carrier_account_id = $1 WHERE number = '+12025550121'`, bw.ID)
	require.NoError(t, err)
	send("+12025550121", "d5")
	require.Len(t, tfake.Messages(), 2)
	now = now.Add(accounts.CacheTTL)
	send("+12025550121", "d6")
	require.Len(t, bfake.Messages(), 2)
	require.Equal(t, "d6", bfake.Messages()[1].Tag)
}

func TestCallbacksByAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t, domain.ProviderSimulator)
	tfake := telnyxtest.NewServer(t, "KEYtelnyx", "prof-1")
	other := telnyxtest.NewServer(t, "KEYother", "prof-2")
	tel, err := e.svc.Create(ctx, domain.AccountInput{Provider: ptr("telnyx"), Name: ptr("T"),
		Credentials: domain.Credentials{"api_key": "KEYtelnyx", "public_key": tfake.PublicKey(), "messaging_profile_id": "prof-1"}})
	require.NoError(t, err)
	sink := carriertest.NewSink(t, e.d)
	cbs := accounts.NewCallbacks(e.svc, sink, "https://teamtext.example", "", "", clock.Real{}, time.Now, slog.New(slog.DiscardHandler))
	mux := http.NewServeMux()
	for pattern, h := range cbs.Routes() {
		mux.Handle(pattern, h)
	}
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)

	_, err = tfake.Inbound(ctx, hs.URL+"/carrier/telnyx/"+tel.ID, "+12025550131", "+12025550121", "Running late")
	require.NoError(t, err)
	require.Len(t, sink.Received(), 1)

	forbidden := func(err error) {
		t.Helper()
		var he *telnyxtest.HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, http.StatusForbidden, he.Status)
	}
	_, err = other.Inbound(ctx, hs.URL+"/carrier/telnyx/"+tel.ID, "+12025550131", "+12025550121", "forged")
	forbidden(err)
	_, err = tfake.Inbound(ctx, hs.URL+"/carrier/telnyx/cac_nope", "+12025550131", "+12025550121", "no account")
	forbidden(err)
	_, err = tfake.Inbound(ctx, hs.URL+"/carrier/telnyx/"+domain.DefaultAccountID, "+12025550131", "+12025550121", "default")
	forbidden(err)
	bfake := bandwidthtest.NewServer(t, "1", "u", "p", "a", "cbuser", "cbpass")
	bfake.CallbackURL = hs.URL + "/carrier/bandwidth/" + tel.ID // a Telnyx account's id on Bandwidth's path
	_, err = bfake.Inbound(ctx, "+12025550131", "+12025550121", "wrong provider")
	var he *bandwidthtest.HTTPError
	require.ErrorAs(t, err, &he)
	require.Equal(t, http.StatusForbidden, he.Status)
	require.Len(t, sink.Received(), 1, "refused callbacks record nothing")
}

// down is a default carrier whose calls fail while failing is set.
type down struct {
	recorder
	failing bool
	calls   int
}

func (d *down) Send(ctx context.Context, m carrier.Message) (carrier.Receipt, error) {
	d.calls++
	if d.failing {
		return carrier.Receipt{}, errors.New("HTTP 503")
	}
	return d.recorder.Send(ctx, m)
}

func TestBreakerHoldsAnAccountThatIsDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t, domain.ProviderTwilio)
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	def := &down{failing: true}
	logs := &bytes.Buffer{}
	r := accounts.NewRouter(def, e.svc, accounts.Adapters{Log: slog.New(slog.DiscardHandler)}, func() time.Time { return now },
		slog.New(slog.NewTextHandler(logs, nil)))
	send := func() error {
		_, err := r.Send(ctx, carrier.Message{DeliveryID: "d", From: "+12025550141", To: "+12025550199", Body: "x", Segments: 1})
		return err
	}
	for range accounts.BreakerAfter {
		err := send()
		require.Error(t, err)

	}
	require.Equal(t, accounts.BreakerAfter, def.calls)
	outage := func() (int, time.Time) {
		t.Helper()
		var n int
		var since *time.Time
		require.NoError(t, e.d.SQLDB.QueryRow(`SELECT count(*), min(since) FROM messaging_carrier_outages WHERE account_id = $1`, domain.DefaultAccountID).
			Scan(&n, &since))
		if since == nil {
			return n, time.Time{}
		}
		return n, *since
	}
	n, since := outage()
	require.Equal(t, 1, n, "the open breaker is recorded where every node's failover sees it")
	require.Equal(t, map[string]bool{domain.DefaultAccountID: true}, r.(interface{ Open() map[string]bool }).Open())
	for range 50 {
		err := send()
		b, ok := carrier.IsBusy(err)
		require.True(t, ok, "held back while the breaker is open: %v", err)
		require.ErrorIs(t, err, carrier.ErrUnavailable)
		require.Positive(t, b.RetryAfter)
	}
	require.Equal(t, accounts.BreakerAfter, def.calls, "no call while open: nothing spins")
	require.Equal(t, 1, strings.Count(logs.String(), "level=WARN"), "one warning for the outage")

	now = now.Add(accounts.BreakerProbe)
	require.Error(t, send(), "the probe fails: still down")
	require.Error(t, send())
	require.Equal(t, accounts.BreakerAfter+1, def.calls, "one probe per interval")
	n, again := outage()
	require.Equal(t, 1, n)
	require.Equal(t, since, again, "a failed probe keeps the outage's start")

	def.failing = false
	now = now.Add(accounts.BreakerProbe)
	require.NoError(t, send(), "the probe succeeds: closed")
	require.NoError(t, send())
	require.Equal(t, 1, strings.Count(logs.String(), "level=WARN"))
	require.Contains(t, logs.String(), "available again")
	n, _ = outage()
	require.Zero(t, n, "closing the breaker ends the recorded outage")
	require.Equal(t, map[string]bool{domain.DefaultAccountID: false}, r.(interface{ Open() map[string]bool }).Open())
}

// batchRecorder is a default adapter that takes batches, as the simulator does.
type batchRecorder struct{ recorder }

func (r *batchRecorder) SendMany(ctx context.Context, ms []carrier.Message) ([]carrier.Result, error) {
	out := make([]carrier.Result, len(ms))
	for i, m := range ms {
		out[i].Receipt, out[i].Err = r.Send(ctx, m)
	}
	return out, nil
}

// TestRouterBatchLooksUpInItsCallersTransaction: a batch (a fan-out job's
// one call) reads its numbers' accounts on its caller's transaction, not
// on a second connection from the pool, which a pool full of such jobs
// would never give: so it sees the transaction's own uncommitted number.
func TestRouterBatchLooksUpInItsCallersTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t, domain.ProviderSimulator)
	tfake := telnyxtest.NewServer(t, "KEYtelnyx", "prof-1")
	tel, err := e.svc.Create(ctx, domain.AccountInput{Provider: ptr("telnyx"), Name: ptr("T"), APIURL: ptr(tfake.URL),
		Credentials: domain.Credentials{"api_key": "KEYtelnyx", "public_key": tfake.PublicKey(), "messaging_profile_id": "prof-1"}})
	require.NoError(t, err)
	def := &batchRecorder{}
	r := accounts.NewRouter(def, e.svc, accounts.Adapters{PublicBaseURL: "https://teamtext.example", Log: slog.New(slog.DiscardHandler)},
		time.Now, slog.New(slog.DiscardHandler))
	bs, ok := r.(carrier.BatchSender)
	require.True(t, ok, "a default that takes batches makes a router that takes batches")

	err = e.d.Tx(ctx, func(ctx context.Context) error {
		tx, err := db.MustTx(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO messaging_numbers (id, team_id, number, kind, created_at, updated_at, carrier_account_id)
VALUES ('num_tx', 'team_x', '+12025550131', 'long_code', now(), now(), ?)`, tel.ID); err != nil {
			return err
		}
		rs, err := bs.SendMany(ctx, []carrier.Message{{DeliveryID: "d1", From: "+12025550131", To: "+12025550199", Body: "Practice at 6", Segments: 1}})
		if err != nil {
			return err
		}
		return rs[0].Err
	})
	require.NoError(t, err)
	require.Len(t, tfake.Messages(), 1, "routed by the transaction's own row")
	require.Empty(t, def.sent)
}
