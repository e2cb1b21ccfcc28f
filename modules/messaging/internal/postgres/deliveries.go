package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/phone"
)

// Status ingestion's deliveries (ingest.Store is kept by the Repo
// itself): the repository's delivery statements seen through domain
// deliveries.

// LockDeliveries loads and locks deliveries by id, in id order.
func (r *Repo) LockDeliveries(ctx context.Context, ids []string) ([]domain.Delivery, error) {
	ds, err := r.lockDeliveries(ctx, ids)
	return toDomainDeliveries(ds), err
}

// PendingDeliveries loads and locks a message's deliveries without a final status.
func (r *Repo) PendingDeliveries(ctx context.Context, messageID string) ([]domain.Delivery, error) {
	ds, err := r.pendingDeliveries(ctx, messageID)
	return toDomainDeliveries(ds), err
}

// UpdateDeliveries writes the deliveries' status columns and moves their messages' counts.
func (r *Repo) UpdateDeliveries(ctx context.Context, ds []domain.Delivery, from []string) error {
	return r.updateDeliveries(ctx, fromDomainDeliveries(ds), from)
}

// CountFinals adds newly final deliveries to the analytics.
func (r *Repo) CountFinals(ctx context.Context, ds []domain.Delivery) error {
	return r.countFinals(ctx, fromDomainDeliveries(ds))
}

func toDomainDeliveries(ds []deliveryRow) []domain.Delivery {
	out := make([]domain.Delivery, len(ds))
	for i, d := range ds {
		out[i] = domain.Delivery{ID: d.ID, TeamID: d.TeamID, MessageID: d.MessageID, Phone: d.Phone, MemberIDs: d.MemberIDs, Seq: d.Seq, Status: d.Status,
			CarrierStatus: d.CarrierStatus, ProviderMessageID: d.ProviderMessageID, ErrorCode: d.ErrorCode,
			ErrorMessage: d.ErrorMessage, SentAt: d.SentAt, UpdatedAt: d.UpdatedAt}
	}
	return out
}

func fromDomainDeliveries(ds []domain.Delivery) []deliveryRow {
	out := make([]deliveryRow, len(ds))
	for i, d := range ds {
		out[i] = deliveryRow{ID: d.ID, TeamID: d.TeamID, MessageID: d.MessageID, Phone: d.Phone, MemberIDs: d.MemberIDs, Seq: d.Seq, Status: d.Status,
			CarrierStatus: d.CarrierStatus, ProviderMessageID: d.ProviderMessageID, ErrorCode: d.ErrorCode,
			ErrorMessage: d.ErrorMessage, SentAt: d.SentAt, UpdatedAt: d.UpdatedAt}
	}
	return out
}

// LatestToSQL reads a number's latest deliveries of a team, each with its
// text as that number got it. Deliveries have no index on the phone (one
// fewer for every broadcast row to maintain: migrations 20261122000003 and
// ...04 dropped them), so it walks the team's latest 100 messages
// (messaging_messages_team_created) and looks for the number among each
// one's deliveries on its (message_id, seq) index, fenced by OFFSET 0 so
// the planner cannot turn the probes into a scan of the table. Its cost is
// bounded by those sends' recipients, whatever the team's history; a
// number's texts older than the team's last 100 sends are not listed.
const LatestToSQL = `SELECT m.id, left(coalesce(d.body, m.rendered), 160), d.status, d.error_code, coalesce(d.sent_at, d.updated_at)
FROM (SELECT id, rendered, created_at FROM messaging_messages WHERE team_id = $1
      ORDER BY created_at DESC, id DESC LIMIT 100) m
CROSS JOIN LATERAL (SELECT body, status, error_code, sent_at, updated_at FROM messaging_deliveries
                    WHERE message_id = m.id AND phone = $2 OFFSET 0) d
ORDER BY m.created_at DESC, m.id DESC LIMIT $3`

// LatestTo lists the latest deliveries a team sent number, newest first.
func (r *Repo) LatestTo(ctx context.Context, teamID string, number phone.Number, limit int) ([]messagingapi.Delivery, error) {
	var out []messagingapi.Delivery
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, LatestToSQL, teamID, string(number), limit)
		if err != nil {
			return err
		}
		var d messagingapi.Delivery
		_, err = pgx.ForEachRow(rows, []any{&d.MessageID, &d.Text, &d.Status, &d.ErrorCode, &d.At}, func() error {
			out = append(out, d)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("latest deliveries: %w", err)
	}
	return out, nil
}
