package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

// This file keeps the analytics counters (GET /analytics): broadcasts and
// deliveries counted when a send is dispatched, delivered texts when their
// final status arrives, inbound texts when they become visible. Sharded
// per team and UTC day so concurrent writers rarely meet on one row.

// statShards is how many rows one team's day is spread over.
const statShards = 8

func shardOf(id string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return int(h.Sum32() % statShards)
}

// addStats adds s to the team's counters of at's UTC day, in the shard
// chosen by factID.
func (r *Repo) addStats(ctx context.Context, teamID, factID string, at time.Time, s domain.DailyStats) error {
	_, err := r.db.IDB(ctx).ExecContext(ctx, `INSERT INTO messaging_daily_stats AS s
  (team_id, day, shard, broadcasts, deliveries, delivered, failed, texts_received) VALUES (?, ?::date, ?, ?, ?, ?, ?, ?)
ON CONFLICT (team_id, day, shard) DO UPDATE SET
  broadcasts = s.broadcasts + EXCLUDED.broadcasts, deliveries = s.deliveries + EXCLUDED.deliveries,
  delivered = s.delivered + EXCLUDED.delivered, failed = s.failed + EXCLUDED.failed, texts_received = s.texts_received + EXCLUDED.texts_received`,
		teamID, at.UTC().Format(time.DateOnly), shardOf(factID), s.Broadcasts, s.Deliveries, s.Delivered, s.Failed, s.TextsReceived)
	if err != nil {
		return fmt.Errorf("add daily stats: %w", err)
	}
	return nil
}

// countBroadcast adds a dispatched broadcast and its deliveries to the
// analytics of the UTC day of at. dispatch calls it in its transaction.
func (r *Repo) countBroadcast(ctx context.Context, m *messageRow, deliveries int, at time.Time) error {
	return r.addStats(ctx, m.TeamID, m.ID, at, domain.DailyStats{Broadcasts: 1, Deliveries: int64(deliveries)})
}

// countFinals adds deliveries that just reached their final status to the
// analytics: delivered ones to delivered, failed ones to failed (the
// dashboard's chart; delivery_unconfirmed is neither). The day is the UTC day the text was
// handed to the carrier (its status time if it never was), which for
// almost every delivery is the day it was dispatched and counted. Ingestion
// calls it in its transaction with the deliveries it finalised (a final
// status is final, so each is counted once): one counter statement per
// team and UTC day, taken in (team, day, shard) order so
// that concurrent batches never deadlock on the shard rows.
func (r *Repo) countFinals(ctx context.Context, ds []deliveryRow) error {
	type group struct {
		team, first       string
		at                time.Time
		delivered, failed int64
	}
	byKey := map[string]*group{}
	var gs []*group
	for i := range ds {
		d := &ds[i]
		if d.Status != "delivered" && d.Status != "failed" {
			continue
		}
		at := d.UpdatedAt
		if d.SentAt != nil {
			at = *d.SentAt
		}
		k := d.TeamID + "|" + at.UTC().Format(time.DateOnly)
		g, ok := byKey[k]
		if !ok {
			g = &group{team: d.TeamID, first: d.ID, at: at}
			byKey[k] = g
			gs = append(gs, g)
		}
		if d.Status == "delivered" {
			g.delivered++
		} else {
			g.failed++
		}
	}
	sort.Slice(gs, func(i, j int) bool {
		a, b := gs[i], gs[j]
		if a.team != b.team {
			return a.team < b.team
		}
		if da, db := a.at.UTC().Format(time.DateOnly), b.at.UTC().Format(time.DateOnly); da != db {
			return da < db
		}
		return shardOf(a.first) < shardOf(b.first)
	})
	for _, g := range gs {
		if err := r.addStats(ctx, g.team, g.first, g.at, domain.DailyStats{Delivered: g.delivered, Failed: g.failed}); err != nil {
			return err
		}
	}
	return nil
}

// CountReceived adds a visible inbound text to the analytics of the UTC
// day it was received.
func (r *Repo) CountReceived(ctx context.Context, in *domain.Inbound) error {
	return r.addStats(ctx, in.TeamID, in.ID, in.ReceivedAt, domain.DailyStats{TextsReceived: 1})
}

// SumStats sums a team's counters over the UTC days from..to inclusive.
func (r *Repo) SumStats(ctx context.Context, teamID string, from, to time.Time) (domain.DailyStats, error) {
	var s domain.DailyStats
	err := r.db.IDB(ctx).QueryRowContext(ctx, `SELECT coalesce(sum(broadcasts), 0), coalesce(sum(deliveries), 0),
  coalesce(sum(delivered), 0), coalesce(sum(failed), 0), coalesce(sum(texts_received), 0)
FROM messaging_daily_stats WHERE team_id = ? AND day BETWEEN ?::date AND ?::date`,
		teamID, from.UTC().Format(time.DateOnly), to.UTC().Format(time.DateOnly)).
		Scan(&s.Broadcasts, &s.Deliveries, &s.Delivered, &s.Failed, &s.TextsReceived)
	if err != nil {
		return domain.DailyStats{}, fmt.Errorf("sum daily stats: %w", err)
	}
	return s, nil
}

// DayStatsSQL sums a team's counters per UTC day over from..to inclusive
// ($1 team, $2 and $3 the days): SumStats's sums, grouped by day, on the
// same (team_id, day, shard) primary key range. Days with no row are absent.
const DayStatsSQL = `SELECT day, sum(broadcasts), sum(deliveries), sum(delivered), sum(failed), sum(texts_received)
FROM messaging_daily_stats WHERE team_id = $1 AND day BETWEEN $2::date AND $3::date
GROUP BY day ORDER BY day`

// DayStats are a team's counters per UTC day over from..to inclusive, in
// day order; days with nothing counted are absent. They sum to SumStats's
// answer for the same range.
func (r *Repo) DayStats(ctx context.Context, teamID string, from, to time.Time) ([]domain.DayStats, error) {
	var out []domain.DayStats
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, DayStatsSQL, teamID, from.UTC().Format(time.DateOnly), to.UTC().Format(time.DateOnly))
		if err != nil {
			return err
		}
		var d domain.DayStats
		_, err = pgx.ForEachRow(rows, []any{&d.Day, &d.Broadcasts, &d.Deliveries, &d.Delivered, &d.Failed, &d.TextsReceived}, func() error {
			d.Day = d.Day.UTC()
			out = append(out, d)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("daily stats: %w", err)
	}
	return out, nil
}
