package idempotency_test

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/idempotency"
)

// record is a fake row: a claim, with its answer once stored.
type record struct {
	fingerprint, answer []byte
	createdAt           time.Time
}

// fakeStore keeps records in a map; its Tx rolls the map back when fn
// fails, as a database transaction would.
type fakeStore struct {
	rows          map[[2]string]record
	claims, saves int
	inTx          bool
}

func newFakeStore() *fakeStore { return &fakeStore{rows: map[[2]string]record{}} }

func (s *fakeStore) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	before := maps.Clone(s.rows)
	s.inTx = true
	defer func() { s.inTx = false }()
	if err := fn(ctx); err != nil {
		s.rows = before
		return err
	}
	return nil
}

func (s *fakeStore) ClaimIdempotencyKey(_ context.Context, keyID, idemKey string, fingerprint []byte, now, expired time.Time) (*idempotency.Record, error) {
	if !s.inTx {
		return nil, errors.New("claim outside the transaction")
	}
	s.claims++
	k := [2]string{keyID, idemKey}
	if r, ok := s.rows[k]; ok && r.createdAt.Before(expired) {
		delete(s.rows, k)
	}
	if r, ok := s.rows[k]; ok {
		return &idempotency.Record{Fingerprint: r.fingerprint, Answer: r.answer}, nil
	}
	s.rows[k] = record{fingerprint: fingerprint, answer: []byte("{}"), createdAt: now}
	return nil, nil
}

func (s *fakeStore) StoreIdempotentAnswer(_ context.Context, keyID, idemKey string, answer []byte) error {
	if !s.inTx {
		return errors.New("store outside the transaction")
	}
	s.saves++
	k := [2]string{keyID, idemKey}
	r := s.rows[k]
	r.answer = answer
	s.rows[k] = r
	return nil
}

// result has a field JSON does not carry: the first run returns it, a
// replay (decoded from the stored answer) cannot.
type result struct {
	ID     string `json:"id"`
	Count  int    `json:"count"`
	Unsent string `json:"-"`
}

var t0 = time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)

func setup() (*fakeStore, *clock.Fake, idempotency.Keys) {
	s, clk := newFakeStore(), clock.NewFake(t0)
	return s, clk, idempotency.Keys{Store: s, Tx: s, Clock: clk}
}

// op counts its runs and answers a result numbered by them.
func op(runs *int) func(context.Context) (result, error) {
	return func(context.Context) (result, error) {
		*runs++
		return result{ID: "msg_1", Count: *runs, Unsent: "first run"}, nil
	}
}

func TestFirstRunReturnsTheResultAndStoresItsJSON(t *testing.T) {
	s, _, k := setup()
	runs := 0
	r, replayed, err := idempotency.Do(context.Background(), k, "key_1", "abc", idempotency.Fingerprint("req"), op(&runs))
	require.NoError(t, err)
	require.False(t, replayed)
	require.Equal(t, 1, runs)
	require.Equal(t, result{ID: "msg_1", Count: 1, Unsent: "first run"}, r, "the first run's value as fn returned it, not decoded")
	require.JSONEq(t, `{"id":"msg_1","count":1}`, string(s.rows[[2]string{"key_1", "abc"}].answer))
	require.Equal(t, 1, s.saves)
}

func TestReplayAnswersTheStoredResultWithoutRunning(t *testing.T) {
	_, clk, k := setup()
	ctx := context.Background()
	runs := 0
	fp := idempotency.Fingerprint(map[string]any{"text": "hi", "audience": "all"})
	_, _, err := idempotency.Do(ctx, k, "key_1", "abc", fp, op(&runs))
	require.NoError(t, err)
	clk.Advance(idempotency.Window - time.Second)
	r, replayed, err := idempotency.Do(ctx, k, "key_1", "abc", idempotency.Fingerprint(map[string]any{"audience": "all", "text": "hi"}), op(&runs))
	require.NoError(t, err)
	require.True(t, replayed)
	require.Equal(t, 1, runs, "fn ran once")
	require.Equal(t, result{ID: "msg_1", Count: 1}, r, "decoded from the stored answer")

	// Another API key's same Idempotency-Key is another key.
	r, replayed, err = idempotency.Do(ctx, k, "key_2", "abc", fp, op(&runs))
	require.NoError(t, err)
	require.False(t, replayed)
	require.Equal(t, 2, r.Count)
}

func TestSameKeyOtherRequestIsConflict(t *testing.T) {
	_, _, k := setup()
	ctx := context.Background()
	runs := 0
	_, _, err := idempotency.Do(ctx, k, "key_1", "abc", idempotency.Fingerprint("one"), op(&runs))
	require.NoError(t, err)
	r, replayed, err := idempotency.Do(ctx, k, "key_1", "abc", idempotency.Fingerprint("two"), op(&runs))
	f, ok := fault.As(err)
	require.True(t, ok, "a fault: %v", err)
	require.Equal(t, fault.Conflict, f.Kind)
	require.Equal(t, fault.CodeConflict, f.Code)
	require.Equal(t, "this Idempotency-Key was used with a different request in the last 24 hours", f.Message)
	require.False(t, replayed)
	require.Zero(t, r)
	require.Equal(t, 1, runs)
}

func TestFnErrorStoresNothing(t *testing.T) {
	s, _, k := setup()
	ctx := context.Background()
	boom := errors.New("boom")
	_, replayed, err := idempotency.Do(ctx, k, "key_1", "abc", idempotency.Fingerprint("req"), func(context.Context) (result, error) {
		return result{ID: "half"}, boom
	})
	require.ErrorIs(t, err, boom)
	require.False(t, replayed)
	require.Empty(t, s.rows, "the claim rolled back with fn's error")
	require.Zero(t, s.saves)

	// The key is free again: the next request runs.
	runs := 0
	r, replayed, err := idempotency.Do(ctx, k, "key_1", "abc", idempotency.Fingerprint("other"), op(&runs))
	require.NoError(t, err)
	require.False(t, replayed)
	require.Equal(t, 1, r.Count)
}

func TestKeyExpiresAfterTheWindow(t *testing.T) {
	_, clk, k := setup()
	ctx := context.Background()
	runs := 0
	_, _, err := idempotency.Do(ctx, k, "key_1", "abc", idempotency.Fingerprint("one"), op(&runs))
	require.NoError(t, err)
	clk.Advance(idempotency.Window + time.Second)
	r, replayed, err := idempotency.Do(ctx, k, "key_1", "abc", idempotency.Fingerprint("two"), op(&runs))
	require.NoError(t, err, "a day later the key is forgotten: another request is no conflict")
	require.False(t, replayed)
	require.Equal(t, 2, r.Count)
}

func TestNoKeyJustRuns(t *testing.T) {
	s, _, k := setup()
	runs := 0
	for range 2 {
		_, replayed, err := idempotency.Do(context.Background(), k, "key_1", "", nil, op(&runs))
		require.NoError(t, err)
		require.False(t, replayed)
	}
	require.Equal(t, 2, runs)
	require.Zero(t, s.claims, "no key, no record")
}

func TestUnreadableStoredAnswerIsInternal(t *testing.T) {
	s, _, k := setup()
	fp := idempotency.Fingerprint("req")
	s.rows[[2]string{"key_1", "abc"}] = record{fingerprint: fp, answer: []byte(`{"count":"x"}`), createdAt: t0}
	runs := 0
	_, _, err := idempotency.Do(context.Background(), k, "key_1", "abc", fp, op(&runs))
	f, ok := fault.As(err)
	require.True(t, ok, "a fault: %v", err)
	require.Equal(t, fault.Internal, f.Kind)
	require.Zero(t, runs)
}

func TestFingerprintIsCanonical(t *testing.T) {
	type body struct {
		Text     string `json:"text"`
		Audience string `json:"audience"`
	}
	require.Equal(t, idempotency.Fingerprint(body{"hi", "all"}), idempotency.Fingerprint(body{"hi", "all"}))
	require.NotEqual(t, idempotency.Fingerprint(body{"hi", "all"}), idempotency.Fingerprint(body{"hi", "staff"}))
	require.Len(t, idempotency.Fingerprint(body{}), 32)
}
