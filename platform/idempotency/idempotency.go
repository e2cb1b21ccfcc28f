// Package idempotency runs an operation at most once per Idempotency-Key:
// the decorator Do claims the key, runs the operation and stores its
// answer in one transaction with the operation's writes, and on a later
// request with the same key and the same request answers what was stored.
//
// It knows no table: a module keeps the records in its own store
// (Store), and names the transaction they share with its writes (Tx).
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
)

// Window is how long an Idempotency-Key is remembered.
const Window = 24 * time.Hour

// Record is what a key's first request left: the fingerprint of its
// request and its answer, JSON-encoded.
type Record struct {
	Fingerprint []byte
	Answer      []byte
}

// Store keeps the records of one caller's keys. Both methods run in the
// transaction of ctx (Tx).
type Store interface {
	// ClaimIdempotencyKey forgets the key's record from before expired,
	// then claims the key for a request with fingerprint at now. It
	// returns nil when the claim is new, else the record already there;
	// a concurrent duplicate waits on the first one's row lock until that
	// one commits or rolls back.
	ClaimIdempotencyKey(ctx context.Context, keyID, idemKey string, fingerprint []byte, now, expired time.Time) (*Record, error)
	// StoreIdempotentAnswer records the answer of the request that
	// claimed the key.
	StoreIdempotentAnswer(ctx context.Context, keyID, idemKey string, answer []byte) error
}

// Tx runs fn in one transaction (db.DB).
type Tx interface {
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Keys are one caller's idempotency keys: their store, the transaction
// they share with the operation's writes, and the clock of the window.
type Keys struct {
	Store Store
	Tx    Tx
	Clock clock.Clock
}

// errConflict is the answer to a key reused with another request.
var errConflict = fault.New(fault.Conflict, fault.CodeConflict, "this Idempotency-Key was used with a different request in the last 24 hours")

// Fingerprint is the fingerprint of a request: the SHA-256 of its JSON
// encoding (canonical for a struct: fields in declaration order; for a
// map: keys sorted).
func Fingerprint(request any) []byte {
	b, _ := json.Marshal(request) // a request decoded from JSON encodes again
	sum := sha256.Sum256(b)
	return sum[:]
}

// Do runs fn under the key idemKey of the API key keyID. Without an
// idemKey it just runs fn. With one, fn runs at most once within the
// Window, in one transaction with the claim of the key and the storing
// of its answer (fn's error rolls all of it back: nothing is stored).
// The first run returns fn's result as it is (it is encoded once, to be
// stored); a later request with the same key and fingerprint gets the
// stored answer decoded, with replayed true; the same key with another
// fingerprint gets 409 conflict.
func Do[T any](ctx context.Context, k Keys, keyID, idemKey string, fingerprint []byte, fn func(ctx context.Context) (T, error)) (result T, replayed bool, err error) {
	if idemKey == "" {
		result, err = fn(ctx)
		return result, false, err
	}
	err = k.Tx.Tx(ctx, func(ctx context.Context) error {
		now := k.Clock.Now().UTC()
		stored, err := k.Store.ClaimIdempotencyKey(ctx, keyID, idemKey, fingerprint, now, now.Add(-Window))
		if err != nil {
			return err
		}
		if stored != nil {
			if !bytes.Equal(stored.Fingerprint, fingerprint) {
				return errConflict
			}
			if err := json.Unmarshal(stored.Answer, &result); err != nil {
				return fault.New(fault.Internal, fault.CodeServerError, "stored answer unreadable")
			}
			replayed = true
			return nil
		}
		if result, err = fn(ctx); err != nil {
			return err
		}
		answer, err := json.Marshal(result)
		if err != nil {
			return fmt.Errorf("encode idempotent answer: %w", err)
		}
		return k.Store.StoreIdempotentAnswer(ctx, keyID, idemKey, answer)
	})
	if err != nil {
		var zero T
		return zero, false, err
	}
	return result, replayed, nil
}
