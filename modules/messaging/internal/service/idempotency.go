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
		db := s.Repo.IDB(ctx)
		now := s.Clock.Now().UTC()
		if _, err := db.ExecContext(ctx, `DELETE FROM messaging_idempotency WHERE key_id = ? AND idem_key = ? AND created_at < ?`,
			keyID, idemKey, now.Add(-IdempotencyWindow)); err != nil {
			return err
		}
		res, err := db.ExecContext(ctx, `INSERT INTO messaging_idempotency (key_id, idem_key, request_hash, status, response, created_at)
VALUES (?, ?, ?, 0, '{}', ?) ON CONFLICT DO NOTHING`, keyID, idemKey, hash, now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var stored []byte
			if err := db.QueryRowContext(ctx, `SELECT request_hash, status, response FROM messaging_idempotency WHERE key_id = ? AND idem_key = ?`,
				keyID, idemKey).Scan(&stored, &status, &body); err != nil {
				return err
			}
			if !bytes.Equal(stored, hash) {
				return fault.New(fault.Conflict, fault.CodeConflict, "this Idempotency-Key was used with a different request in the last 24 hours")
			}
			replay = true
			return nil
		}
		if status, body, err = fn(ctx); err != nil {
			return err
		}
		_, err = db.ExecContext(ctx, `UPDATE messaging_idempotency SET status = ?, response = ? WHERE key_id = ? AND idem_key = ?`,
			status, string(body), keyID, idemKey)
		return err
	})
	return status, body, replay, err
}
