package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/platform/db"
)

var _ outbound.FailoverStore = (*OutboundStore)(nil)

// failoverLock is the advisory lock one failover pass holds, for its
// transaction, across all nodes: passes on several nodes would only wait
// for each other's number locks.
const failoverLock = 0x7465787466616f76 // "textfaov"

// MarkOutage records that a node's breaker for the account is open (or
// that a probe failed again): the first node's time stays as since. It
// runs on a connection of its own, outside the caller's transaction, so
// the outage stands whatever becomes of the pass that met it. Times are
// the database's clock, which every node shares.
func (r *Repo) MarkOutage(ctx context.Context, accountID string) error {
	_, err := r.db.Pool.Exec(ctx, `INSERT INTO messaging_carrier_outages (account_id, since, seen_at)
VALUES ($1, clock_timestamp(), clock_timestamp())
ON CONFLICT (account_id) DO UPDATE SET seen_at = EXCLUDED.seen_at`, accountID)
	if err != nil {
		return fmt.Errorf("mark carrier account outage: %w", err)
	}
	return nil
}

// ClearOutage records that a call to the account succeeded: its outage,
// if one was recorded, is over. Like MarkOutage, outside any transaction.
func (r *Repo) ClearOutage(ctx context.Context, accountID string) error {
	if _, err := r.db.Pool.Exec(ctx, `DELETE FROM messaging_carrier_outages WHERE account_id = $1`, accountID); err != nil {
		return fmt.Errorf("clear carrier account outage: %w", err)
	}
	return nil
}

// TryFailoverLock takes the failover pass's lock for the caller's
// transaction, or reports that another node's pass holds it.
func (s *OutboundStore) TryFailoverLock(ctx context.Context) (bool, error) {
	var ok bool
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		return q.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(failoverLock)).Scan(&ok)
	})
	if err != nil {
		return false, fmt.Errorf("failover lock: %w", err)
	}
	return ok, nil
}

// FailoverTeams returns the teams with carrier_failover on that have
// texts queued on a number of an account down for at least after (its
// latest failure seen within fresh) beyond the number's head slot, and a
// number on an account with no outage recorded at all: each with those
// numbers, in id order.
func (s *OutboundStore) FailoverTeams(ctx context.Context, after, fresh time.Duration) ([]outbound.FailoverTeam, error) {
	var out []outbound.FailoverTeam
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `WITH o AS (
  SELECT account_id, since FROM messaging_carrier_outages WHERE seen_at >= clock_timestamp() - make_interval(secs => $2)),
down AS (SELECT account_id FROM o WHERE since <= clock_timestamp() - make_interval(secs => $1)),
n AS (
  SELECT n.id, n.team_id,
    (n.carrier_account_id IN (SELECT account_id FROM down) AND n.next_at IS NOT NULL
     AND (SELECT count(*) FROM (SELECT 1 FROM messaging_slots sl WHERE sl.number_id = n.id LIMIT 2) x) > 1) AS is_down,
    (n.carrier_account_id NOT IN (SELECT account_id FROM o)) AS is_healthy
  FROM messaging_numbers n
  JOIN messaging_settings st ON st.team_id = n.team_id AND st.carrier_failover
  WHERE EXISTS (SELECT 1 FROM down))
SELECT team_id, array_agg(id ORDER BY id) FILTER (WHERE is_down), array_agg(id ORDER BY id) FILTER (WHERE is_healthy)
FROM n GROUP BY team_id
HAVING bool_or(is_down) AND bool_or(is_healthy)
ORDER BY team_id`, after.Seconds(), fresh.Seconds())
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (outbound.FailoverTeam, error) {
			var t outbound.FailoverTeam
			err := row.Scan(&t.TeamID, &t.Down, &t.Healthy)
			return t, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("failover teams: %w", err)
	}
	return out, nil
}

// TakeSlots deletes the numbers' queued slots but each one's earliest
// (its head, kept as the probe of its account) and returns them, urgent
// ones first, then earliest first, with the heads kept. The caller holds
// the numbers' locks, so no pass has taken any of them.
func (s *OutboundStore) TakeSlots(ctx context.Context, numberIDs []string) ([]outbound.QueuedSlot, map[string]outbound.QueuedSlot, error) {
	var all []outbound.QueuedSlot
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `WITH h AS (
  SELECT DISTINCT ON (number_id) id FROM messaging_slots WHERE number_id = ANY($1) ORDER BY number_id, due_at, id),
d AS (
  DELETE FROM messaging_slots WHERE number_id = ANY($1) AND id NOT IN (SELECT id FROM h)
  RETURNING id, number_id, message_id, due_at, seqs, segments, urgent)
SELECT id, number_id, message_id, due_at, seqs, segments, urgent, false FROM d
UNION ALL
SELECT id, number_id, message_id, due_at, seqs, segments, urgent, true FROM messaging_slots WHERE id IN (SELECT id FROM h)
ORDER BY 7 DESC, 4, 1`, numberIDs)
		if err != nil {
			return err
		}
		all, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (outbound.QueuedSlot, error) {
			var sl outbound.QueuedSlot
			err := row.Scan(&sl.ID, &sl.NumberID, &sl.MessageID, &sl.DueAt, &sl.Seqs, &sl.Segments, &sl.Urgent, &sl.Head)
			sl.DueAt = sl.DueAt.UTC()
			return sl, err
		})
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("take slots: %w", err)
	}
	var taken []outbound.QueuedSlot
	heads := map[string]outbound.QueuedSlot{}
	for _, sl := range all {
		if sl.Head {
			heads[sl.NumberID] = sl
		} else {
			taken = append(taken, sl)
		}
	}
	return taken, heads, nil
}

// RefreshCompletion sets each send's estimated completion to its latest
// planned slot (sends with none left keep theirs).
func (s *OutboundStore) RefreshCompletion(ctx context.Context, messageIDs []string) error {
	if len(messageIDs) == 0 {
		return nil
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `UPDATE messaging_messages AS m SET estimated_completion = s.last
FROM (SELECT message_id, max(due_at) AS last FROM messaging_slots WHERE message_id = ANY($1) GROUP BY message_id) AS s
WHERE m.id = s.message_id`, messageIDs)
		if err != nil {
			return fmt.Errorf("refresh estimated completion: %w", err)
		}
		return nil
	})
}

// QueuedByAccount counts, per carrier account, the texts planned on its
// numbers and not yet handed over (the queued-texts gauge).
func (s *OutboundStore) QueuedByAccount(ctx context.Context) (map[string]int64, error) {
	out, err := s.counts(ctx, `SELECT n.carrier_account_id, sum(cardinality(s.seqs))::bigint
FROM messaging_numbers n JOIN messaging_slots s ON s.number_id = n.id
WHERE n.next_at IS NOT NULL GROUP BY n.carrier_account_id`)
	if err != nil {
		return nil, fmt.Errorf("queued texts by account: %w", err)
	}
	return out, nil
}

// RecordSenders records the number each delivery is handed over from,
// locking the rows in id order (as MarkSent does, later in the same pass).
func (s *OutboundStore) RecordSenders(ctx context.Context, from map[string]string) error {
	if len(from) == 0 {
		return nil
	}
	ids, nums := make([]string, 0, len(from)), make([]string, 0, len(from))
	for id, n := range from {
		ids, nums = append(ids, id), append(nums, n)
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `WITH v AS (SELECT * FROM unnest($1::text[], $2::text[]) AS v(id, f)),
l AS (SELECT d.id FROM messaging_deliveries d WHERE d.id = ANY($1::text[]) ORDER BY d.id FOR UPDATE)
UPDATE messaging_deliveries AS d SET sent_from = v.f FROM v, l WHERE d.id = v.id AND d.id = l.id AND d.sent_from IS DISTINCT FROM v.f`, ids, nums)
		if err != nil {
			return fmt.Errorf("record %d senders: %w", len(ids), err)
		}
		return nil
	})
}
