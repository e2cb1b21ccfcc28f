// Package carriertest is the conformance suite every carrier adapter
// passes, run against each one the way River runs its driver tests: the
// adapter's test supplies a Harness per subtest, the suite states what any
// carrier must do and what an adapter's declared capabilities promise.
package carriertest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/metrics"
)

// Outcomes a harness can arrange for a number.
const (
	Delivered   = "delivered"
	Failed      = "failed"
	Unconfirmed = "unconfirmed" // no final status ever
)

// Text is a text the carrier handed on to a recipient.
type Text struct {
	To, From, Body    string
	ProviderMessageID string
}

// Harness is one fresh adapter under test plus the means to steer it and
// to observe what it did. Every subtest gets its own.
type Harness struct {
	Carrier carrier.Carrier
	// SetOutcome makes texts to number end in outcome (Delivered, Failed
	// with errorCode, or Unconfirmed) from now on.
	SetOutcome func(t *testing.T, number, outcome, errorCode string)
	// Settle delivers whatever status reports the carrier still owes (a real
	// carrier's callbacks); nil when reports are produced during Send.
	Settle func(t *testing.T)
	// Texts lists the texts the carrier handed on, oldest first.
	Texts func(t *testing.T) []Text
	// Statuses lists the normalised status updates produced so far, in the
	// order the ingestion job would see them.
	Statuses func(t *testing.T) []carrier.StatusArgs
	// Refuse makes sends to number fail permanently with code (required).
	Refuse func(t *testing.T, number, code string)
	// DedupesOnDeliveryID says the carrier treats the delivery id as an
	// idempotency key: a second Send for it texts nobody. Adapters without
	// one (Twilio) document the duplicate instead, and the suite checks that
	// they do send again rather than silently dropping the retry.
	DedupesOnDeliveryID bool
	// Codes are the error codes the suite uses, in the carrier's own
	// vocabulary; zero fields take Twilio's.
	Codes Codes
}

// Codes are carrier error codes the suite arranges and expects back.
type Codes struct {
	Refused string // a refusal at send time (Twilio: 21211, invalid 'To')
	Failed  string // a delivery failure reported later (Twilio: 30003, unreachable)
	Failed2 string // another such failure (Twilio: 30006, landline)
}

func (h Harness) codes() Codes {
	c := h.Codes
	if c.Refused == "" {
		c.Refused = "21211"
	}
	if c.Failed == "" {
		c.Failed = "30003"
	}
	if c.Failed2 == "" {
		c.Failed2 = "30006"
	}
	return c
}

// SetOutcomes returns a Harness.SetOutcome for a fake carrier whose
// outcomes are values of type O set per number (set): delivered and
// unconfirmed are the fake's outcomes for Delivered and Unconfirmed, failed
// makes the one for Failed with an error code.
func SetOutcomes[O any](set func(number string, o O), delivered, unconfirmed O,
	failed func(t *testing.T, errorCode string) O) func(t *testing.T, number, outcome, errorCode string) {
	return func(t *testing.T, number, outcome, errorCode string) {
		switch outcome {
		case Delivered:
			set(number, delivered)
		case Failed:
			set(number, failed(t, errorCode))
		case Unconfirmed:
			set(number, unconfirmed)
		default:
			t.Fatalf("unknown outcome %q", outcome)
		}
	}
}

// Flushes returns a Harness.Settle that has a fake carrier post the
// callbacks it still owes (flush).
func Flushes(flush func(context.Context) error) func(t *testing.T) {
	return func(t *testing.T) { require.NoError(t, flush(context.Background())) }
}

// FakeTexts returns a Harness.Texts listing a fake carrier's messages
// (messages, oldest first), each turned into a Text by text.
func FakeTexts[M any](messages func() []M, text func(M) Text) func(t *testing.T) []Text {
	return func(*testing.T) []Text {
		var out []Text
		for _, m := range messages() {
			out = append(out, text(m))
		}
		return out
	}
}

// CallbackServer serves h on a test server, closed when t ends, for POST
// requests to path, and returns the server's URL.
func CallbackServer(t testing.TB, path string, h http.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("POST "+path, h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Numbers used by the suite (fictional 555-01xx numbers).
const (
	teamNumber = "+12025550100"
	member1    = "+12025550101"
	member2    = "+12025550102"
	member3    = "+12025550103"
)

// RunConformance runs the suite against the adapter newHarness builds.
func RunConformance(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	ctx := context.Background()
	msg := func(deliveryID, to string) carrier.Message {
		return carrier.Message{DeliveryID: deliveryID, TeamID: "team_conformance", From: teamNumber, To: to,
			Body: "Practice moves to 6pm. Reply STOP to opt out.", Segments: 1}
	}

	t.Run("AcceptReturnsProviderMessageID", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		require.NotEmpty(t, h.Carrier.Name())
		m := msg("dlv_accept", member1)
		rc, err := h.Carrier.Send(ctx, m)
		require.NoError(t, err)
		require.NotEmpty(t, rc.ProviderMessageID)
		require.NotEmpty(t, rc.Status)
		texts := h.Texts(t)
		require.Len(t, texts, 1)
		require.Equal(t, Text{To: m.To, From: m.From, Body: m.Body, ProviderMessageID: rc.ProviderMessageID}, texts[0])
	})

	t.Run("DistinctDeliveriesAreDistinctTexts", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		a, err := h.Carrier.Send(ctx, msg("dlv_a", member1))
		require.NoError(t, err)
		b, err := h.Carrier.Send(ctx, msg("dlv_b", member1))
		require.NoError(t, err)
		require.NotEqual(t, a.ProviderMessageID, b.ProviderMessageID)
		require.Len(t, h.Texts(t), 2)
	})

	// sendSettled sends deliveryID to number, whose texts end in outcome,
	// lets the carrier report, and returns the receipt and the delivery's
	// final status (nil: none).
	sendSettled := func(t *testing.T, h Harness, deliveryID, number, outcome, errorCode string) (carrier.Receipt, *carrier.StatusArgs) {
		t.Helper()
		h.SetOutcome(t, number, outcome, errorCode)
		rc, err := h.Carrier.Send(ctx, msg(deliveryID, number))
		require.NoError(t, err, "a carrier that accepts a text reports its outcome later, not from Send")
		settle(t, h)
		return rc, finalStatus(t, h.Statuses(t), deliveryID)
	}

	t.Run("DeliveredNumberEndsDelivered", func(t *testing.T) {
		t.Parallel()
		rc, final := sendSettled(t, newHarness(t), "dlv_ok", member1, Delivered, "")
		require.NotNil(t, final, "no final status for a delivered number")
		require.Equal(t, "delivered", final.Status)
		require.Equal(t, rc.ProviderMessageID, final.ProviderMessageID)
		require.NotEmpty(t, final.CarrierStatus)
		require.Empty(t, final.ErrorCode)
		require.False(t, final.At.IsZero())
	})

	t.Run("FailedNumberEndsFailedWithErrorCode", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		rc, final := sendSettled(t, h, "dlv_fail", member2, Failed, h.codes().Failed)
		require.NotNil(t, final, "no final status for a failing number")
		require.Equal(t, "failed", final.Status)
		require.Equal(t, h.codes().Failed, final.ErrorCode)
		require.NotEmpty(t, final.ErrorMessage)
		require.NotEmpty(t, final.CarrierStatus)
		require.Equal(t, rc.ProviderMessageID, final.ProviderMessageID)
	})

	t.Run("UnconfirmedNumberHasNoFinalStatus", func(t *testing.T) {
		t.Parallel()
		_, final := sendSettled(t, newHarness(t), "dlv_silent", member3, Unconfirmed, "")
		require.Nil(t, final)
	})

	t.Run("SameDeliveryIDTwice", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		first, err := h.Carrier.Send(ctx, msg("dlv_twice", member1))
		require.NoError(t, err)
		second, err := h.Carrier.Send(ctx, msg("dlv_twice", member1))
		require.NoError(t, err)
		settle(t, h)
		if h.DedupesOnDeliveryID {
			require.Len(t, h.Texts(t), 1, "the delivery id is an idempotency key: no second text")
			require.Equal(t, first.ProviderMessageID, second.ProviderMessageID)
			finals := 0
			for _, s := range h.Statuses(t) {
				if s.DeliveryID == "dlv_twice" && isFinal(s.Status) {
					finals++
				}
			}
			require.Equal(t, 1, finals, "one text, one final report")
			return
		}
		require.Len(t, h.Texts(t), 2, "without an idempotency key the retry is sent again (the documented duplicate)")
		require.NotEqual(t, first.ProviderMessageID, second.ProviderMessageID)
	})

	t.Run("RefusalIsPermanentError", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		require.NotNil(t, h.Refuse, "every adapter's harness can make it refuse a number")
		h.Refuse(t, member2, h.codes().Refused)
		_, err := h.Carrier.Send(ctx, msg("dlv_refused", member2))
		pe, ok := carrier.IsPermanent(err)
		require.True(t, ok, "want *carrier.PermanentError, got %v", err)
		require.Equal(t, h.codes().Refused, pe.Code)
		require.NotEmpty(t, pe.Message)
		require.NotContains(t, pe.Message, member2[2:], "refusals are stored and published: no full phone number")
		require.Empty(t, h.Texts(t))
	})

	t.Run("StatusesAreNormalised", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		h.SetOutcome(t, member1, Delivered, "")
		h.SetOutcome(t, member2, Failed, h.codes().Failed2)
		for i, to := range []string{member1, member2, member1} {
			_, err := h.Carrier.Send(ctx, msg(fmt.Sprintf("dlv_norm_%d", i), to))
			require.NoError(t, err)
		}
		settle(t, h)
		ss := h.Statuses(t)
		require.NotEmpty(t, ss)
		for _, s := range ss {
			require.Contains(t, []string{"sent", "delivered", "failed"}, s.Status)
			require.NotEmpty(t, s.DeliveryID)
			require.NotEmpty(t, s.ProviderMessageID)
			require.NotEmpty(t, s.CarrierStatus)
			if s.Status != "failed" {
				require.Empty(t, s.ErrorCode, "error codes belong to failures")
			}
		}
		for i := range 3 {
			require.NotNil(t, finalStatus(t, ss, fmt.Sprintf("dlv_norm_%d", i)))
		}
	})
}

func settle(t *testing.T, h Harness) {
	t.Helper()
	if h.Settle != nil {
		h.Settle(t)
	}
}

func isFinal(status string) bool { return status == "delivered" || status == "failed" }

// finalStatus is the status the ingestion job keeps for a delivery: the
// first final one reported; nil if none.
func finalStatus(t *testing.T, ss []carrier.StatusArgs, deliveryID string) *carrier.StatusArgs {
	t.Helper()
	for i := range ss {
		if ss[i].DeliveryID == deliveryID && isFinal(ss[i].Status) {
			return &ss[i]
		}
	}
	return nil
}

// StatusJobs reads the ingestion jobs (messaging.delivery_status, and the
// batch kind messaging.delivery_statuses flattened in order) enqueued in d,
// oldest first: how harnesses observe the StatusArgs an adapter produced,
// since every adapter reports through those jobs.
func StatusJobs(ctx context.Context, d *db.DB) ([]carrier.StatusArgs, error) {
	rows, err := d.SQLDB.QueryContext(ctx, `SELECT kind, args FROM river_job WHERE kind IN ($1, $2) ORDER BY id`,
		carrier.StatusArgs{}.Kind(), carrier.StatusBatchArgs{}.Kind())
	if err != nil {
		return nil, fmt.Errorf("read status jobs: %w", err)
	}
	defer rows.Close()
	var out []carrier.StatusArgs
	for rows.Next() {
		var kind string
		var raw []byte
		if err := rows.Scan(&kind, &raw); err != nil {
			return nil, fmt.Errorf("read status jobs: %w", err)
		}
		if kind == (carrier.StatusBatchArgs{}).Kind() {
			var b carrier.StatusBatchArgs
			if err := json.Unmarshal(raw, &b); err != nil {
				return nil, fmt.Errorf("decode status batch job: %w", err)
			}
			out = append(out, b.Statuses...)
			continue
		}
		var a carrier.StatusArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("decode status job: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// StatusWorkers registers workers for the ingestion jobs' kinds so that an
// insert-only jobs.Jobs built in a test accepts them (River refuses kinds it
// has no worker for). The workers are never run.
func StatusWorkers(w *river.Workers) {
	river.AddWorker(w, river.WorkFunc(func(context.Context, *river.Job[carrier.StatusArgs]) error { return nil }))
	river.AddWorker(w, river.WorkFunc(func(context.Context, *river.Job[carrier.StatusBatchArgs]) error { return nil }))
}

var _ jobs.Registration = StatusWorkers

// Sink is a carrier.Sink for adapter tests: a status report becomes a
// status job in the test's database, where StatusJobs reads it, beside
// the batch jobs the simulator inserts itself (messaging's own sink stages
// reports for its filers instead: ingest.Sink); a received text is kept
// in memory.
type Sink struct {
	db   *db.DB
	jobs *jobs.Jobs

	mu       sync.Mutex
	received []carrier.InboundText
}

// NewSink returns a sink enqueueing in d (migrated with the platform's
// migrations) through an insert-only River that knows the status kinds.
func NewSink(t testing.TB, d *db.DB) *Sink {
	t.Helper()
	j, err := jobs.New(d, clock.Real{}, slog.New(slog.DiscardHandler), jobs.Options{})
	require.NoError(t, err)
	_, err = jobs.NewRunner(j, []jobs.Registration{StatusWorkers}, metrics.New(), jobs.Options{}) // the kinds, not worked
	require.NoError(t, err)
	return &Sink{db: d, jobs: j}
}

// server is the Postgres of an adapter's test binary (Main), where
// NewDBSink makes each sink's database.
var server *dbtest.Server

// Main is the TestMain body of an adapter's tests: it starts the Postgres
// NewDBSink needs, runs the tests and stops it (dbtest.Main).
func Main(m *testing.M) int { return dbtest.Main(m, &server) }

// NewDBSink returns a sink (NewSink) on a fresh database migrated with the
// platform's migrations, on the Postgres Main started.
func NewDBSink(t testing.TB) *Sink {
	t.Helper()
	if server == nil {
		t.Fatal("carriertest.NewDBSink needs carriertest.Main as the package's TestMain")
	}
	return NewSink(t, server.Migrated(t, db.PlatformMigrations()))
}

// Report enqueues the status's ingestion job in its own transaction.
func (s *Sink) Report(ctx context.Context, a carrier.StatusArgs) error {
	return s.db.Tx(ctx, func(ctx context.Context) error {
		_, err := s.jobs.Insert(ctx, a, nil)
		return err
	})
}

// Receive keeps the text.
func (s *Sink) Receive(_ context.Context, t carrier.InboundText) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received = append(s.received, t)
	return nil
}

// Received returns the texts received so far, oldest first.
func (s *Sink) Received() []carrier.InboundText {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]carrier.InboundText(nil), s.received...)
}

// Statuses returns the status reports enqueued so far (StatusJobs).
func (s *Sink) Statuses(t *testing.T) []carrier.StatusArgs {
	t.Helper()
	ss, err := StatusJobs(context.Background(), s.db)
	require.NoError(t, err)
	return ss
}
