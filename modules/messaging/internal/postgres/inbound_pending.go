package postgres

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/db"
)

// This file is inbound ingestion in batches: the staging table
// carrier callbacks write to, the filers' claim of a lane's texts, and the
// set-based statements that file a batch. Every statement has bind
// parameters and a fixed text, and takes its arrays whole.

// InboundChannel is the notification channel a staged text wakes the
// filers with (sent after the callback's commit).
const InboundChannel = "teamtext_inbound"

// stageInboundSQL is StageInbound's statement.
const stageInboundSQL = `INSERT INTO messaging_inbound_pending (provider_message_id, from_phone, to_phone, body, keyword, lane, received_at)
VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (provider_message_id) DO NOTHING`

// StageInbound stages a text, unless one with its provider id is staged
// already (a carrier retry), in one statement, and wakes the filers once
// the transaction (ctx's, a pipeline's or the statement's own) commits:
// a NOTIFY of its own after the commit (db.Notifier), not one inside the
// callback's transaction, where every callback's commit queued on
// Postgres's one lock for notifying transactions.
func (r *Repo) StageInbound(ctx context.Context, p domain.PendingInbound) error {
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, stageInboundSQL,
			p.ProviderMessageID, p.FromPhone, p.ToPhone, p.Body, p.Keyword, p.Lane, p.ReceivedAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("stage inbound text: %w", err)
	}
	db.AfterCommit(ctx, r.staged.Notify)
	return nil
}

// lockInboundLaneSQL is LockInboundLane's statement: lanes $1, first $2, attempts below $3.
const lockInboundLaneSQL = `SELECT l FROM (
  SELECT l FROM generate_series(0, $1::int - 1) AS l
  WHERE EXISTS (SELECT 1 FROM messaging_inbound_pending p WHERE p.lane = l AND p.attempts < $3)
  ORDER BY NOT EXISTS (SELECT 1 FROM messaging_inbound_pending p WHERE p.lane = l AND p.keyword AND p.attempts < $3),
    (l - $2::int + $1::int) % $1::int) x
WHERE pg_try_advisory_xact_lock(hashtextextended('messaging_inbound_lane:' || l, 0)) LIMIT 1`

// LockInboundLane takes, for the transaction, a lane that has staged texts
// and that no other filer holds: lanes with a keyword text (STOP, START,
// HELP) first, then from lane first on (so that a node's filers spread
// over the lanes); -1 when there is none.
func (r *Repo) LockInboundLane(ctx context.Context, lanes, first int) (int, error) {
	return r.lockLane(ctx, "inbound", lockInboundLaneSQL, lanes, first, domain.InboundMaxAttempts)
}

// takeInboundSQL is TakeInbound's statement: lane $1, limit $2, attempts
// below $3. The chosen rows are deleted by key, as TakeStatuses' are.
const takeInboundSQL = `WITH kw AS (
  SELECT from_phone, max(id) AS upto FROM messaging_inbound_pending WHERE lane = $1 AND keyword AND attempts < $3 GROUP BY from_phone),
pick AS (
  SELECT p.id, 0 AS pri FROM messaging_inbound_pending p JOIN kw ON kw.from_phone = p.from_phone AND p.id <= kw.upto
  WHERE p.lane = $1 AND p.attempts < $3
  UNION ALL
  (SELECT id, 1 FROM messaging_inbound_pending WHERE lane = $1 AND attempts < $3 ORDER BY id LIMIT $2)),
chosen AS (SELECT id FROM pick GROUP BY id ORDER BY min(pri), id LIMIT $2)
DELETE FROM messaging_inbound_pending p WHERE p.id = ANY (ARRAY(SELECT id FROM chosen))
RETURNING p.id, p.provider_message_id, p.from_phone, p.to_phone, p.body, p.keyword, p.lane, p.received_at`

// TakeInbound removes up to limit staged texts of a lane (locked by the
// caller) and returns them in arrival order: the texts of every number
// that sent a keyword, up to its latest keyword, first; then the oldest.
// So each number's texts taken are its oldest, and a STOP waits for at
// most one batch however long the lane's backlog.
func (r *Repo) TakeInbound(ctx context.Context, lane, limit int) ([]domain.PendingInbound, error) {
	var out []domain.PendingInbound
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, takeInboundSQL, lane, limit, domain.InboundMaxAttempts)
		if err != nil {
			return err
		}
		var p domain.PendingInbound
		_, err = pgx.ForEachRow(rows, []any{&p.ID, &p.ProviderMessageID, &p.FromPhone, &p.ToPhone, &p.Body, &p.Keyword, &p.Lane, &p.ReceivedAt},
			func() error { out = append(out, p); return nil })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("take inbound texts of lane %d: %w", lane, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// NoteInboundFailure counts a failed attempt to file a staged text on its
// own and keeps the error.
func (r *Repo) NoteInboundFailure(ctx context.Context, id int64, cause string) error {
	return r.noteStagedFailure(ctx, "messaging_inbound_pending", id, cause)
}

// PendingStats are the staged texts' count and the oldest one's arrival.
func (r *Repo) PendingStats(ctx context.Context) (int64, *time.Time, error) {
	return r.stagedStats(ctx, "messaging_inbound_pending", "received_at")
}

// LatestGroupsTo returns, for each of the numbers whose latest broadcast
// from its team went to a group, that group (message.received's
// group_id), in one statement: the fan-out records each recipient's
// latest broadcast before it sends (OutboundStore.RecordBroadcasts).
func (r *Repo) LatestGroupsTo(ctx context.Context, pairs []rosterapi.TeamPhone) (map[rosterapi.TeamPhone]string, error) {
	out := map[rosterapi.TeamPhone]string{}
	if len(pairs) == 0 {
		return out, nil
	}
	teams, phones := make([]string, len(pairs)), make([]string, len(pairs))
	for i, p := range pairs {
		teams[i], phones[i] = p.TeamID, string(p.Phone)
	}
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT l.team_id, l.phone, l.group_id FROM messaging_latest_broadcasts l
JOIN (SELECT DISTINCT * FROM unnest($1::text[], $2::text[])) AS v(team_id, phone) ON l.team_id = v.team_id AND l.phone = v.phone
WHERE coalesce(l.group_id, '') <> ''`, teams, phones)
		if err != nil {
			return err
		}
		var k rosterapi.TeamPhone
		var g string
		_, err = pgx.ForEachRow(rows, []any{&k.TeamID, &k.Phone, &g}, func() error { out[k] = g; return nil })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("latest groups of %d numbers: %w", len(pairs), err)
	}
	return out, nil
}

// insertInboundsSQL is InsertInbounds' statement: one array per column.
const insertInboundsSQL = `INSERT INTO messaging_inbound (id, team_id, provider_message_id, from_phone, to_phone, body, keyword, group_id,
  member_id, member_name, member_role, received_at, held, created_at)
SELECT v.id, v.team_id, v.provider, v.from_phone, v.to_phone, v.body, NULLIF(v.kw, ''), NULLIF(v.grp, ''),
  NULLIF(v.member, ''), NULLIF(v.name, ''), NULLIF(v.role, ''), v.received, v.held, v.created
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
  $11::text[], $12::timestamptz[], $13::bool[], $14::timestamptz[])
  WITH ORDINALITY AS v(id, team_id, provider, from_phone, to_phone, body, kw, grp, member, name, role, received, held, created, ord)
ORDER BY v.ord
ON CONFLICT (provider_message_id) DO NOTHING
RETURNING id`

// InsertInbounds stores texts in one statement, skipping those whose
// provider id is stored already (carrier retries), and returns the ids of
// those it stored.
func (r *Repo) InsertInbounds(ctx context.Context, ins []domain.Inbound) (map[string]bool, error) {
	stored := map[string]bool{}
	if len(ins) == 0 {
		return stored, nil
	}
	n := len(ins)
	var (
		ids, teams, providers, froms, tos, bodies = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		kws, groups, members, names, roles        = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		received, created                         = make([]time.Time, n), make([]time.Time, n)
		held                                      = make([]bool, n)
	)
	for i := range ins {
		in := &ins[i]
		ids[i], teams[i], providers[i], froms[i], tos[i], bodies[i] = in.ID, in.TeamID, in.ProviderMessageID, in.FromPhone, in.ToPhone, in.Body
		kws[i], groups[i], members[i], names[i], roles[i] = string(in.Keyword), in.GroupID, in.Member.ID, in.Member.Name, in.Member.Role
		received[i], created[i], held[i] = in.ReceivedAt, in.CreatedAt, in.Held
	}
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, insertInboundsSQL, ids, teams, providers, froms, tos, bodies, kws, groups, members, names, roles, received, held, created)
		if err != nil {
			return err
		}
		var id string
		_, err = pgx.ForEachRow(rows, []any{&id}, func() error { stored[id] = true; return nil })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("insert %d inbound texts: %w", n, err)
	}
	return stored, nil
}

// countReceivedSQL is CountReceivedMany's statement: teams, days, shards and counts.
const countReceivedSQL = `INSERT INTO messaging_daily_stats AS s (team_id, day, shard, texts_received)
SELECT v.team_id, v.day::date, v.shard, v.n FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[]) WITH ORDINALITY AS v(team_id, day, shard, n, ord)
ORDER BY v.ord
ON CONFLICT (team_id, day, shard) DO UPDATE SET texts_received = s.texts_received + EXCLUDED.texts_received`

// CountReceivedMany adds visible texts to the analytics of the UTC days
// they were received: one counter row per team and day, in one statement,
// rows taken in (team, day, shard) order like every counter writer.
func (r *Repo) CountReceivedMany(ctx context.Context, ins []domain.Inbound) error {
	type key struct {
		team, day string
		shard     int
	}
	counts := map[key]int64{}
	first := map[string]string{} // team|day → the first text's id: its shard
	var keys []key
	for i := range ins {
		day := ins[i].ReceivedAt.UTC().Format(time.DateOnly)
		td := ins[i].TeamID + "|" + day
		if _, ok := first[td]; !ok {
			first[td] = ins[i].ID
		}
		k := key{team: ins[i].TeamID, day: day, shard: shardOf(first[td])}
		if _, ok := counts[k]; !ok {
			keys = append(keys, k)
		}
		counts[k]++
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.team != b.team {
			return a.team < b.team
		}
		if a.day != b.day {
			return a.day < b.day
		}
		return a.shard < b.shard
	})
	teams, days, shards, ns := make([]string, len(keys)), make([]string, len(keys)), make([]int32, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		teams[i], days[i], shards[i], ns[i] = k.team, k.day, int32(k.shard), counts[k]
	}
	return r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, countReceivedSQL, teams, days, shards, ns)
		if err != nil {
			return fmt.Errorf("count %d received texts: %w", len(ins), err)
		}
		return nil
	})
}
