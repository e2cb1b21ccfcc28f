package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

// consentRow is a member's consent record (domain.MemberConsent): the
// consent_* columns of roster_members, embedded in memberRow. All three are
// NULL for members added before the consent record existed (and Evidence
// when none was given).
type consentRow struct {
	ConsentSource   *string    `bun:"consent_source"`
	ConsentAt       *time.Time `bun:"consent_at"`
	ConsentEvidence *string    `bun:"consent_evidence"`
}

// consentColumns are MemberConsent's columns in consentDest's order.
const consentColumns = `m.consent_source, m.consent_at, m.consent_evidence`

func consentDest(c *domain.MemberConsent) []any {
	return []any{&c.ConsentSource, &c.ConsentAt, &c.ConsentEvidence}
}

// consentEventRow is a roster_consent_events row: one fact of a number's
// consent history.
type consentEventRow struct {
	bun.BaseModel `bun:"table:roster_consent_events,alias:ce"`
	Seq           int64     `bun:"seq,scanonly"`
	ID            string    `bun:"id"`
	TeamID        string    `bun:"team_id"`
	Phone         string    `bun:"phone"`
	MemberID      *string   `bun:"member_id"`
	Kind          string    `bun:"kind"`
	Channel       string    `bun:"channel"`
	Changed       bool      `bun:"changed"`
	Source        *string   `bun:"source"`
	Evidence      *string   `bun:"evidence"`
	MessageID     *string   `bun:"message_id"`
	At            time.Time `bun:"at"`
	RecordedAt    time.Time `bun:"recorded_at"`
}

// toDomain maps a row to what it stores.
func (r *consentEventRow) toDomain() domain.ConsentEvent {
	return domain.ConsentEvent{Seq: r.Seq, ID: r.ID, TeamID: r.TeamID, Phone: r.Phone, MemberID: r.MemberID, Kind: r.Kind, Channel: r.Channel, Changed: r.Changed, Source: r.Source, Evidence: r.Evidence, MessageID: r.MessageID, At: r.At, RecordedAt: r.RecordedAt}
}

// toConsentEventRow maps a domain value to its row.
func toConsentEventRow(d *domain.ConsentEvent) *consentEventRow {
	return &consentEventRow{Seq: d.Seq, ID: d.ID, TeamID: d.TeamID, Phone: d.Phone, MemberID: d.MemberID, Kind: d.Kind, Channel: d.Channel, Changed: d.Changed, Source: d.Source, Evidence: d.Evidence, MessageID: d.MessageID, At: d.At, RecordedAt: d.RecordedAt}
}

// consentEventColumns are the columns COPY and the reads use, in row order.
var consentEventColumns = []string{"id", "team_id", "phone", "member_id", "kind", "channel", "changed", "source", "evidence", "message_id", "at", "recorded_at"}

// consentEventValues fills a COPY row with e's values, in
// consentEventColumns' order.
func consentEventValues(row []any, e *domain.ConsentEvent) {
	row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[10], row[11] = e.ID, e.TeamID, e.Phone, e.MemberID, e.Kind, e.Channel, e.Changed, e.Source, e.Evidence, e.MessageID, e.At, e.RecordedAt
}

// InsertConsentEvents appends history rows, in the caller's transaction:
// one INSERT for a few, COPY for many (an import chunk, a bulk opt-out),
// straight from the domain values into one row buffer (db.CopyRows).
func (r *Repo) InsertConsentEvents(ctx context.Context, events []domain.ConsentEvent) error {
	switch {
	case len(events) == 0:
		return nil
	case len(events) <= 8:
		evs := make([]consentEventRow, len(events))
		for i := range events {
			evs[i] = *toConsentEventRow(&events[i])
		}
		if _, err := r.db.IDB(ctx).NewInsert().Model(&evs).Exec(ctx); err != nil {
			return fmt.Errorf("insert consent events: %w", err)
		}
		return nil
	}
	return db.PgxTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"roster_consent_events"}, consentEventColumns,
			db.CopyRows(len(events), len(consentEventColumns), func(row []any, i int) { consentEventValues(row, &events[i]) })); err != nil {
			return fmt.Errorf("copy consent events: %w", err)
		}
		return nil
	})
}

// ConsentHistory returns a team's history for phone, oldest first (by when
// each fact happened, then by when it was written). limit < 0 reads all;
// otherwise limit+1 rows for pagination.
func (r *Repo) ConsentHistory(ctx context.Context, teamID, phone string, limit, offset int) ([]domain.ConsentEvent, error) {
	var evs []consentEventRow
	q := r.db.IDB(ctx).NewSelect().Model(&evs).Column("seq").Column(consentEventColumns...).
		Where("team_id = ? AND phone = ?", teamID, phone).OrderExpr("at, seq")
	if limit >= 0 {
		q = q.Limit(int64(limit + 1)).Offset(int64(offset))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("consent history: %w", err)
	}
	return toDomains[domain.ConsentEvent](evs), nil
}

// MembersOnRecordByPhone returns a team's entries with phone, those removed
// from the roster but kept on record included, oldest first.
func (r *Repo) MembersOnRecordByPhone(ctx context.Context, teamID, phone string) ([]domain.Member, error) {
	return r.membersByPhones(ctx, teamID, []string{phone}, true)
}
