package postgres

import (
	"context"
	"fmt"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// FailedDeliveries returns a message's failed deliveries, in position order.
func (r *Repo) FailedDeliveries(ctx context.Context, messageID string) ([]domain.FailedDelivery, error) {
	rows, err := r.db.SQL(ctx).QueryContext(ctx, `SELECT phone, error_code FROM messaging_deliveries
WHERE message_id = $1 AND status = `+sqlFailed+` ORDER BY seq`, messageID)
	if err != nil {
		return nil, fmt.Errorf("failed deliveries: %w", err)
	}
	defer rows.Close()
	var out []domain.FailedDelivery
	for rows.Next() {
		var f domain.FailedDelivery
		if err := rows.Scan(&f.Phone, &f.ErrorCode); err != nil {
			return nil, fmt.Errorf("failed deliveries: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// LiveResend returns the id of a resend of messageID that is sent or on
// its way (not rejected or expired), or "" if there is none.
func (r *Repo) LiveResend(ctx context.Context, teamID, messageID string) (string, error) {
	var ids []string
	err := r.db.IDB(ctx).NewSelect().Model((*messageRow)(nil)).Column("id").
		Where("team_id = ? AND resend_of = ? AND status NOT IN ('rejected', 'expired')", teamID, messageID).
		OrderExpr("created_at").Limit(1).Scan(ctx, &ids)
	if err != nil {
		return "", fmt.Errorf("resends of message: %w", err)
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[0], nil
}
