package service

import (
	"bytes"
	"context"
	"time"

	"github.com/teamtext/teamtext/platform/fault"
)

// IdempotencyWindow is how long an Idempotency-Key is remembered.
const IdempotencyWindow = 24 * time.Hour

// Idempotent runs fn at most once per (key, idempotency key) within the
// window, in one transaction with fn's writes: the same key and request
// return the first answer; the same key with another request gives
// 409 conflict. Concurrent duplicates wait on the first one's row lock.
func (s *Service) Idempotent(ctx context.Context, keyID, idemKey string, hash []byte, fn func(ctx context.Context) (int, []byte, error)) (status int, body []byte, replay bool, err error) {
	err = s.DB.Tx(ctx, func(ctx context.Context) error {
		now := s.Clock.Now().UTC()
		stored, err := s.IdempotencyStore.ClaimIdempotencyKey(ctx, keyID, idemKey, hash, now, now.Add(-IdempotencyWindow))
		if err != nil {
			return err
		}
		if stored != nil {
			if !bytes.Equal(stored.RequestHash, hash) {
				return fault.New(fault.Conflict, fault.CodeConflict, "this Idempotency-Key was used with a different request in the last 24 hours")
			}
			status, body, replay = stored.Status, stored.Response, true
			return nil
		}
		if status, body, err = fn(ctx); err != nil {
			return err
		}
		return s.IdempotencyStore.StoreIdempotentAnswer(ctx, keyID, idemKey, status, body)
	})
	return status, body, replay, err
}
