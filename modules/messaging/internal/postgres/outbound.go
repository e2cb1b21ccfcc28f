package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/platform/db"
)

// OutboundStore is the delivery engine's store (outbound.Store): sending
// numbers with their pacing state, planned slots, and the set-based
// statements of a hand-over. Every statement has bind parameters and a
// fixed text (pgx prepares it once per connection) and takes its arrays
// whole, however many numbers, slots or texts it covers.
type OutboundStore struct {
	db   *db.DB
	repo *Repo
}

// NewOutboundStore returns the store.
func NewOutboundStore(d *db.DB, r *Repo) *OutboundStore { return &OutboundStore{db: d, repo: r} }

var _ outbound.Store = (*OutboundStore)(nil)

const numberColumns = `id, team_id, number, kind, throughput, is_primary, created_at, updated_at,
  last_at, last_segments, free_at, catch_up_until, next_at, backlog_segments, carrier_account_id`

// scanNumber reads a row of numberColumns.
func scanNumber(row pgx.Row) (outbound.Number, error) {
	var n outbound.Number
	var kind string
	var last, free, catchUp, next *time.Time
	err := row.Scan(&n.ID, &n.TeamID, &n.Number, &kind, &n.Throughput, &n.Primary, &n.CreatedAt, &n.UpdatedAt,
		&last, &n.Schedule.LastSegments, &free, &catchUp, &next, &n.Backlog, &n.CarrierAccountID)
	if err != nil {
		return outbound.Number{}, err
	}
	n.Kind = domain.NumberKind(kind)
	n.Schedule.LastAt, n.Schedule.FreeAt, n.Schedule.CatchUpUntil, n.NextAt = val(last), val(free), val(catchUp), val(next)
	return n, nil
}

func val(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func ptr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func (s *OutboundStore) numbers(ctx context.Context, query string, args ...any) ([]outbound.Number, error) {
	var out []outbound.Number
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			n, err := scanNumber(rows)
			if err != nil {
				return err
			}
			out = append(out, n)
		}
		return rows.Err()
	})
	return out, err
}

func (s *OutboundStore) number(ctx context.Context, what, query string, args ...any) (outbound.Number, error) {
	ns, err := s.numbers(ctx, query, args...)
	if err != nil {
		return outbound.Number{}, fmt.Errorf("%s: %w", what, err)
	}
	if len(ns) == 0 {
		return outbound.Number{}, outbound.ErrNotFound
	}
	return ns[0], nil
}

// Numbers lists a team's numbers, primary first, then oldest first.
func (s *OutboundStore) Numbers(ctx context.Context, teamID string) ([]outbound.Number, error) {
	ns, err := s.numbers(ctx, `SELECT `+numberColumns+` FROM messaging_numbers WHERE team_id = $1
ORDER BY is_primary DESC, created_at, id`, teamID)
	if err != nil {
		return nil, fmt.Errorf("list numbers: %w", err)
	}
	return ns, nil
}

// Number loads one of a team's numbers.
func (s *OutboundStore) Number(ctx context.Context, teamID, id string) (outbound.Number, error) {
	return s.number(ctx, "select number", `SELECT `+numberColumns+` FROM messaging_numbers WHERE team_id = $1 AND id = $2`, teamID, id)
}

// NumberByValue finds a number of any team.
func (s *OutboundStore) NumberByValue(ctx context.Context, value string) (outbound.Number, error) {
	return s.number(ctx, "select number by value", `SELECT `+numberColumns+` FROM messaging_numbers WHERE number = $1`, value)
}

// NumbersByValue loads the numbers of values (those that exist).
func (s *OutboundStore) NumbersByValue(ctx context.Context, values []string) ([]outbound.Number, error) {
	ns, err := s.numbers(ctx, `SELECT `+numberColumns+` FROM messaging_numbers WHERE number = ANY($1::text[])`, values)
	if err != nil {
		return nil, fmt.Errorf("select numbers by value: %w", err)
	}
	return ns, nil
}

// InsertNumber stores a number; ErrNumberTaken (the transaction goes on)
// when any team has it, or the team has a primary already and n is one.
func (s *OutboundStore) InsertNumber(ctx context.Context, n outbound.Number) error {
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		tag, err := q.Exec(ctx, `INSERT INTO messaging_numbers (id, team_id, number, kind, throughput, is_primary, created_at, updated_at, carrier_account_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
			n.ID, n.TeamID, n.Number, string(n.Kind), n.Throughput, n.Primary, n.CreatedAt, n.UpdatedAt, n.AccountID())
		if err != nil {
			return fmt.Errorf("insert number: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return outbound.ErrNumberTaken
		}
		return nil
	})
}

// UpdateNumber writes a number's value, kind, throughput and updated_at;
// ErrNumberTaken when another number has the value.
func (s *OutboundStore) UpdateNumber(ctx context.Context, n outbound.Number) error {
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		tag, err := q.Exec(ctx, `UPDATE messaging_numbers SET number = $2, kind = $3, throughput = $4, updated_at = $5, carrier_account_id = $6
WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM messaging_numbers o WHERE o.number = $2 AND o.id <> $1)`,
			n.ID, n.Number, string(n.Kind), n.Throughput, n.UpdatedAt, n.AccountID())
		if err != nil {
			return fmt.Errorf("update number: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return outbound.ErrNumberTaken
		}
		return nil
	})
}

// DeleteNumber removes a number and the senders that point at it.
func (s *OutboundStore) DeleteNumber(ctx context.Context, teamID, id string) error {
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		if _, err := q.Exec(ctx, `DELETE FROM messaging_senders WHERE team_id = $1 AND number_id = $2`, teamID, id); err != nil {
			return fmt.Errorf("delete senders: %w", err)
		}
		if _, err := q.Exec(ctx, `DELETE FROM messaging_numbers WHERE team_id = $1 AND id = $2`, teamID, id); err != nil {
			return fmt.Errorf("delete number: %w", err)
		}
		return nil
	})
}

// LockNumbers loads numbers by id, locked, in id order.
func (s *OutboundStore) LockNumbers(ctx context.Context, ids []string) ([]outbound.Number, error) {
	ns, err := s.numbers(ctx, `SELECT `+numberColumns+` FROM messaging_numbers WHERE id = ANY($1) ORDER BY id FOR UPDATE`, ids)
	if err != nil {
		return nil, fmt.Errorf("lock numbers: %w", err)
	}
	return ns, nil
}

// SaveSchedules writes numbers' pacing state and moves their backlogs.
func (s *OutboundStore) SaveSchedules(ctx context.Context, us []outbound.ScheduleUpdate) error {
	if len(us) == 0 {
		return nil
	}
	n := len(us)
	ids, lastSegs, deltas := make([]string, n), make([]int32, n), make([]int64, n)
	last, free, catchUp, next := make([]*time.Time, n), make([]*time.Time, n), make([]*time.Time, n), make([]*time.Time, n)
	for i, u := range us {
		ids[i], lastSegs[i], deltas[i] = u.NumberID, int32(u.Schedule.LastSegments), u.BacklogDelta
		last[i], free[i], catchUp[i], next[i] = ptr(u.Schedule.LastAt), ptr(u.Schedule.FreeAt), ptr(u.Schedule.CatchUpUntil), ptr(u.NextAt)
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `UPDATE messaging_numbers AS n SET last_at = v.last_at, last_segments = v.last_segments,
  free_at = v.free_at, catch_up_until = v.catch_up_until, next_at = v.next_at, backlog_segments = n.backlog_segments + v.delta
FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::timestamptz[], $7::bigint[])
  AS v(id, last_at, last_segments, free_at, catch_up_until, next_at, delta)
WHERE n.id = v.id`, ids, last, lastSegs, free, catchUp, next, deltas)
		if err != nil {
			return fmt.Errorf("save %d schedules: %w", n, err)
		}
		return nil
	})
}

// Senders returns the number each of phones was last planned from, where known.
func (s *OutboundStore) Senders(ctx context.Context, teamID string, phones []string) (map[string]string, error) {
	out := map[string]string{}
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT phone, number_id FROM messaging_senders WHERE team_id = $1 AND phone = ANY($2)`, teamID, phones)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p, n string
			if err := rows.Scan(&p, &n); err != nil {
				return err
			}
			out[p] = n
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("senders: %w", err)
	}
	return out, nil
}

// SetSenders records the number each phone is texted from.
func (s *OutboundStore) SetSenders(ctx context.Context, teamID string, phones, numberIDs []string) error {
	if len(phones) == 0 {
		return nil
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `INSERT INTO messaging_senders (team_id, phone, number_id)
SELECT $1, p, n FROM unnest($2::text[], $3::text[]) AS v(p, n) ORDER BY p
ON CONFLICT (team_id, phone) DO UPDATE SET number_id = excluded.number_id
WHERE messaging_senders.number_id <> excluded.number_id`, teamID, phones, numberIDs)
		if err != nil {
			return fmt.Errorf("set %d senders: %w", len(phones), err)
		}
		return nil
	})
}

// InsertSlots writes planned hand-overs in one statement: the positions of
// every slot go as one flat array, each slot taking its part.
func (s *OutboundStore) InsertSlots(ctx context.Context, ss []outbound.NewSlot) error {
	if len(ss) == 0 {
		return nil
	}
	n := len(ss)
	nums, msgs, due := make([]string, n), make([]string, n), make([]time.Time, n)
	from, to, segs, urgent := make([]int32, n), make([]int32, n), make([]int32, n), make([]bool, n)
	var flat []int32
	for i, sl := range ss {
		nums[i], msgs[i], due[i], segs[i], urgent[i] = sl.NumberID, sl.MessageID, sl.DueAt, int32(sl.Segments), sl.Urgent
		from[i] = int32(len(flat) + 1)
		flat = append(flat, sl.Seqs...)
		to[i] = int32(len(flat))
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `INSERT INTO messaging_slots (number_id, message_id, due_at, seqs, segments, urgent)
SELECT v.number_id, v.message_id, v.due_at, ($7::int[])[v.lo:v.hi], v.segments, v.urgent
FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[], $5::int[], $6::int[], $8::boolean[])
  AS v(number_id, message_id, due_at, lo, hi, segments, urgent)`, nums, msgs, due, from, to, segs, flat, urgent)
		if err != nil {
			return fmt.Errorf("insert %d slots: %w", n, err)
		}
		return nil
	})
}

// Queues returns, per number with slots planned, its latest urgent slot
// (the segments of every row due then) and its earliest other slot: two
// index probes per number, whatever its backlog (the urgent slots have a
// partial index of their own).
func (s *OutboundStore) Queues(ctx context.Context, ids []string) (map[string]outbound.Queued, error) {
	out := make(map[string]outbound.Queued, len(ids))
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT v.id, u.due_at, coalesce(u.segments, 0), h.due_at FROM unnest($1::text[]) AS v(id)
LEFT JOIN LATERAL (SELECT s.due_at, sum(s.segments)::int AS segments FROM messaging_slots s
  WHERE s.number_id = v.id AND s.urgent GROUP BY s.due_at ORDER BY s.due_at DESC LIMIT 1) u ON true
LEFT JOIN LATERAL (SELECT s.due_at FROM messaging_slots s
  WHERE s.number_id = v.id AND NOT s.urgent ORDER BY s.due_at LIMIT 1) h ON true
WHERE u.due_at IS NOT NULL OR h.due_at IS NOT NULL`, ids)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var urgentAt, firstAt *time.Time
			var qu outbound.Queued
			if err := rows.Scan(&id, &urgentAt, &qu.UrgentLastSegments, &firstAt); err != nil {
				return err
			}
			qu.UrgentLastAt, qu.FirstAt = val(urgentAt), val(firstAt)
			out[id] = qu
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("slot queues: %w", err)
	}
	return out, nil
}

// ShiftSlots moves each number's queued slots that are not urgent later by
// its shift, and the estimated completion of each send they hold to its
// latest slot if that is later now, in one statement. Callers hold the
// numbers' locks: no pass is handing any of these slots over.
func (s *OutboundStore) ShiftSlots(ctx context.Context, ss []outbound.Shift) error {
	if len(ss) == 0 {
		return nil
	}
	ids, us := make([]string, len(ss)), make([]int64, len(ss))
	for i, sh := range ss {
		ids[i], us[i] = sh.NumberID, sh.By.Microseconds()
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `WITH moved AS (
  UPDATE messaging_slots AS s SET due_at = s.due_at + v.us * interval '1 microsecond'
  FROM unnest($1::text[], $2::bigint[]) AS v(number_id, us)
  WHERE s.number_id = v.number_id AND NOT s.urgent
  RETURNING s.message_id, s.due_at)
UPDATE messaging_messages AS m SET estimated_completion = greatest(m.estimated_completion, x.last)
FROM (SELECT message_id, max(due_at) AS last FROM moved GROUP BY message_id) AS x
WHERE m.id = x.message_id`, ids, us)
		if err != nil {
			return fmt.Errorf("shift slots of %d numbers: %w", len(ss), err)
		}
		return nil
	})
}

// DueNumbers locks up to limit numbers whose next_at has come, earliest
// first, skipping those another transaction holds.
func (s *OutboundStore) DueNumbers(ctx context.Context, now time.Time, limit int) ([]outbound.Number, error) {
	ns, err := s.numbers(ctx, `SELECT `+numberColumns+` FROM messaging_numbers WHERE next_at <= $1
ORDER BY next_at LIMIT $2 FOR UPDATE SKIP LOCKED`, now, limit)
	if err != nil {
		return nil, fmt.Errorf("due numbers: %w", err)
	}
	return ns, nil
}

// Heads returns each number's earliest planned slot.
func (s *OutboundStore) Heads(ctx context.Context, ids []string) (map[string]time.Time, error) {
	out := make(map[string]time.Time, len(ids))
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT v.id, h.due_at FROM unnest($1::text[]) AS v(id)
CROSS JOIN LATERAL (SELECT due_at FROM messaging_slots s WHERE s.number_id = v.id ORDER BY due_at LIMIT 1) h`, ids)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var at time.Time
			if err := rows.Scan(&id, &at); err != nil {
				return err
			}
			out[id] = at.UTC()
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("slot heads: %w", err)
	}
	return out, nil
}

// DueSlots returns each requested number's slots due by its horizon, earliest first, within its limit.
func (s *OutboundStore) DueSlots(ctx context.Context, ds []outbound.Due) ([]outbound.Slot, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	nums, upto, lim := make([]string, len(ds)), make([]time.Time, len(ds)), make([]int32, len(ds))
	for i, d := range ds {
		nums[i], upto[i], lim[i] = d.NumberID, d.Upto, int32(d.Limit)
	}
	var out []outbound.Slot
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT s.id, s.number_id, s.message_id, s.due_at, s.seqs, s.segments
FROM unnest($1::text[], $2::timestamptz[], $3::int[]) AS v(number_id, upto, lim)
CROSS JOIN LATERAL (SELECT * FROM messaging_slots s WHERE s.number_id = v.number_id AND s.due_at <= v.upto
  ORDER BY s.due_at, s.id LIMIT v.lim) s`, nums, upto, lim)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var sl outbound.Slot
			if err := rows.Scan(&sl.ID, &sl.NumberID, &sl.MessageID, &sl.DueAt, &sl.Seqs, &sl.Segments); err != nil {
				return err
			}
			out = append(out, sl)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("due slots: %w", err)
	}
	return out, nil
}

// DeleteSlots removes handed-over slots.
func (s *OutboundStore) DeleteSlots(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		if _, err := q.Exec(ctx, `DELETE FROM messaging_slots WHERE id = ANY($1)`, ids); err != nil {
			return fmt.Errorf("delete %d slots: %w", len(ids), err)
		}
		return nil
	})
}

// NextWake is the earliest next_at of any number.
func (s *OutboundStore) NextWake(ctx context.Context) (time.Time, error) {
	var at *time.Time
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		return q.QueryRow(ctx, `SELECT min(next_at) FROM messaging_numbers WHERE next_at IS NOT NULL`).Scan(&at)
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("next wake: %w", err)
	}
	return val(at), nil
}

// LockMessages locks messages in id order.
func (s *OutboundStore) LockMessages(ctx context.Context, ids []string) error {
	return s.repo.LockMessages(ctx, ids)
}

// LockMessages locks messages in id order: every writer of several
// messages' rows (a hand-over, an ingestion batch) takes them so, before
// the day's analytics shard, so that none deadlocks.
func (r *Repo) LockMessages(ctx context.Context, ids []string) error {
	return r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		if _, err := q.Exec(ctx, `SELECT 1 FROM messaging_messages WHERE id = ANY($1) ORDER BY id FOR UPDATE`, ids); err != nil {
			return fmt.Errorf("lock %d messages: %w", len(ids), err)
		}
		return nil
	})
}

// QueuedTexts returns the still-queued deliveries refs name, in refs' order.
func (s *OutboundStore) QueuedTexts(ctx context.Context, refs []outbound.TextRef) ([]outbound.Text, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	slots, msgs, seqs := make([]int64, len(refs)), make([]string, len(refs)), make([]int32, len(refs))
	for i, r := range refs {
		slots[i], msgs[i], seqs[i] = r.SlotID, r.MessageID, r.Seq
	}
	var out []outbound.Text
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT v.slot_id, d.id, d.message_id, d.team_id, d.phone, coalesce(d.body, m.rendered), coalesce(d.segments, m.segments), m.group_id, m.created_at
FROM unnest($1::bigint[], $2::text[], $3::int[]) WITH ORDINALITY AS v(slot_id, message_id, seq, n)
JOIN messaging_deliveries d ON d.message_id = v.message_id AND d.seq = v.seq
JOIN messaging_messages m ON m.id = v.message_id
WHERE d.status = `+sqlQueued+`
ORDER BY v.n`, slots, msgs, seqs)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t outbound.Text
			if err := rows.Scan(&t.SlotID, &t.DeliveryID, &t.MessageID, &t.TeamID, &t.Phone, &t.Body, &t.Segments, &t.GroupID,
				&t.MessageCreatedAt); err != nil {
				return err
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("queued texts: %w", err)
	}
	return out, nil
}

// MarkSent records the carrier's acceptance of deliveries still queued.
func (s *OutboundStore) MarkSent(ctx context.Context, ss []outbound.Sent, at time.Time) error {
	sent := make([]Sent, len(ss))
	for i, x := range ss {
		sent[i] = Sent(x)
	}
	return s.repo.MarkSent(ctx, sent, at)
}

// AddSkipped counts deliveries never handed over, per message.
func (s *OutboundStore) AddSkipped(ctx context.Context, perMessage map[string]int) error {
	if len(perMessage) == 0 {
		return nil
	}
	ids, ns := make([]string, 0, len(perMessage)), make([]int32, 0, len(perMessage))
	for id, n := range perMessage {
		ids, ns = append(ids, id), append(ns, int32(n))
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `UPDATE messaging_messages AS m SET skipped_count = m.skipped_count + v.n
FROM unnest($1::text[], $2::int[]) AS v(id, n) WHERE m.id = v.id`, ids, ns)
		if err != nil {
			return fmt.Errorf("count skipped: %w", err)
		}
		return nil
	})
}

// RecordBroadcasts makes each send the latest broadcast to its number,
// unless a newer one (by creation, then id) already is: hand-overs of two
// sends may run in any order. bs has one row per team and phone, in that
// order, so concurrent hand-overs lock the rows in one order.
func (s *OutboundStore) RecordBroadcasts(ctx context.Context, bs []outbound.Broadcast) error {
	if len(bs) == 0 {
		return nil
	}
	n := len(bs)
	teams, phones, msgs, groups, created := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]time.Time, n)
	for i, b := range bs {
		teams[i], phones[i], msgs[i], groups[i], created[i] = b.TeamID, b.Phone, b.MessageID, b.GroupID, b.MessageCreatedAt
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `INSERT INTO messaging_latest_broadcasts AS l (team_id, phone, message_id, group_id, message_created_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
ON CONFLICT (team_id, phone) DO UPDATE SET message_id = excluded.message_id, group_id = excluded.group_id,
  message_created_at = excluded.message_created_at
WHERE (l.message_created_at, l.message_id) < (excluded.message_created_at, excluded.message_id)`, teams, phones, msgs, groups, created)
		if err != nil {
			return fmt.Errorf("record %d broadcasts: %w", n, err)
		}
		return nil
	})
}

// CompleteMessages marks sent the given messages with nothing left queued.
func (s *OutboundStore) CompleteMessages(ctx context.Context, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `UPDATE messaging_messages SET status = $2, sent_at = $3
WHERE id = ANY($1) AND status = $4 AND queued_count = 0`, ids, domain.StatusSent, at, domain.StatusQueued)
		if err != nil {
			return fmt.Errorf("complete messages: %w", err)
		}
		return nil
	})
}

// Backlogs lists the numbers with segments planned.
func (s *OutboundStore) Backlogs(ctx context.Context) (map[string]int64, error) {
	out, err := s.counts(ctx, `SELECT id, backlog_segments FROM messaging_numbers WHERE backlog_segments > 0`)
	if err != nil {
		return nil, fmt.Errorf("backlogs: %w", err)
	}
	return out, nil
}

// counts reads a statement's (key, count) rows into a map.
func (s *OutboundStore) counts(ctx context.Context, query string, args ...any) (map[string]int64, error) {
	out := map[string]int64{}
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		var k string
		var n int64
		_, err = pgx.ForEachRow(rows, []any{&k, &n}, func() error {
			out[k] = n
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Busy returns each number's slots due from on, earliest first, with the
// segments due at each instant, from the (number_id, due_at) index.
func (s *OutboundStore) Busy(ctx context.Context, ids []string, from time.Time) (map[string][]domain.Busy, error) {
	out := make(map[string][]domain.Busy, len(ids))
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT number_id, due_at, sum(segments)::int FROM messaging_slots
WHERE number_id = ANY($1::text[]) AND due_at >= $2 GROUP BY number_id, due_at ORDER BY number_id, due_at`, ids, from.Add(-domain.Window))
		if err != nil {
			return err
		}
		var id string
		var b domain.Busy
		_, err = pgx.ForEachRow(rows, []any{&id, &b.At, &b.Segments}, func() error {
			out[id] = append(out[id], b)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("busy slots: %w", err)
	}
	return out, nil
}
