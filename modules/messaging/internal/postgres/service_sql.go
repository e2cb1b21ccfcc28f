package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/idempotency"
)

// This file holds the statements the send use cases (package service) used
// to write themselves: approvals, expiry and the Idempotency-Key record
// (the templates lock is in templates.go). Each is the statement it was, moved.

// approvals lists a team's messages awaiting approval, oldest first
// (limit+1 rows).
func (r *Repo) approvals(ctx context.Context, teamID string, limit, offset int) ([]messageRow, error) {
	var ms []messageRow
	err := r.db.IDB(ctx).NewSelect().Model(&ms).Where("team_id = ? AND status = ?", teamID, domain.StatusPendingApproval).
		OrderExpr("created_at, id").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	return ms, nil
}

// ExpireApproval ends a message still awaiting approval (decided at at);
// a message decided meanwhile is left as it is.
func (r *Repo) ExpireApproval(ctx context.Context, messageID string, at time.Time) error {
	_, err := r.db.IDB(ctx).NewUpdate().Model((*messageRow)(nil)).Set("status = ?", domain.StatusExpired).
		Set("decided_at = ?", at).Where("id = ? AND status = ?", messageID, domain.StatusPendingApproval).Exec(ctx)
	if err != nil {
		return fmt.Errorf("expire approval: %w", err)
	}
	return nil
}

// ClaimIdempotencyKey forgets the key's record from before expired, then
// claims the key for this request (fingerprint) at now. It returns nil
// when the claim is new, else the record already there (concurrent
// duplicates wait on the first one's row lock). The Repo is the send use
// cases' idempotency.Store.
func (r *Repo) ClaimIdempotencyKey(ctx context.Context, keyID, idemKey string, fingerprint []byte, now, expired time.Time) (*idempotency.Record, error) {
	db := r.db.IDB(ctx)
	if _, err := db.ExecContext(ctx, `DELETE FROM messaging_idempotency WHERE key_id = ? AND idem_key = ? AND created_at < ?`,
		keyID, idemKey, expired); err != nil {
		return nil, fmt.Errorf("forget idempotency key: %w", err)
	}
	res, err := db.ExecContext(ctx, `INSERT INTO messaging_idempotency (key_id, idem_key, request_hash, status, response, created_at)
VALUES (?, ?, ?, 0, '{}', ?) ON CONFLICT DO NOTHING`, keyID, idemKey, fingerprint, now)
	if err != nil {
		return nil, fmt.Errorf("claim idempotency key: %w", err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil, nil
	}
	var a idempotency.Record
	if err := db.QueryRowContext(ctx, `SELECT request_hash, response FROM messaging_idempotency WHERE key_id = ? AND idem_key = ?`,
		keyID, idemKey).Scan(&a.Fingerprint, &a.Answer); err != nil {
		return nil, fmt.Errorf("read idempotency key: %w", err)
	}
	return &a, nil
}

// idempotentStatus is the HTTP status kept with a stored answer: every
// operation that takes an Idempotency-Key answers 201 Created.
const idempotentStatus = 201

// StoreIdempotentAnswer records the answer of the request that claimed the key.
func (r *Repo) StoreIdempotentAnswer(ctx context.Context, keyID, idemKey string, answer []byte) error {
	if _, err := r.db.IDB(ctx).ExecContext(ctx, `UPDATE messaging_idempotency SET status = ?, response = ? WHERE key_id = ? AND idem_key = ?`,
		idempotentStatus, string(answer), keyID, idemKey); err != nil {
		return fmt.Errorf("store idempotent answer: %w", err)
	}
	return nil
}
