package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

// TestDayStats: the dashboard's per-day counters sum, over any range, to
// SumStats's totals for it (GET /analytics), failed deliveries included;
// days with nothing counted are absent and other teams' rows never show.
// Its generic plan reads the (team_id, day, shard) primary key's range of a
// team with a year of days among many teams, as SumStats does.
func TestDayStats(t *testing.T) {
	t.Parallel()
	d := srv.Migrated(t, postgres.Migrations())
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `
INSERT INTO messaging_daily_stats (team_id, day, shard, broadcasts, deliveries, delivered, failed, texts_received)
  SELECT 'team_' || k, date '2026-01-01' + i, s, 1, 10 + i % 7, 8 + i % 3, i % 2, i % 5
  FROM generate_series(1, 200) k, generate_series(0, 364) i, generate_series(0, 3) s
  WHERE i % 11 <> 0;
ANALYZE messaging_daily_stats;`)
	require.NoError(t, err)
	repo := postgres.NewRepo(d, nil)
	day := func(s string) time.Time {
		at, err := time.Parse(time.DateOnly, s)
		require.NoError(t, err)
		return at
	}

	for _, r := range [][2]string{{"2026-01-01", "2026-12-31"}, {"2026-03-01", "2026-03-31"}, {"2026-01-12", "2026-01-12"}, {"2027-01-01", "2027-01-31"}} {
		from, to := day(r[0]), day(r[1])
		days, err := repo.DayStats(ctx, "team_7", from, to)
		require.NoError(t, err)
		sum, err := repo.SumStats(ctx, "team_7", from, to)
		require.NoError(t, err)
		var got domain.DailyStats
		for i, ds := range days {
			require.False(t, ds.Day.Before(from) || ds.Day.After(to), ds.Day)
			require.Equal(t, time.UTC, ds.Day.Location())
			if i > 0 {
				require.True(t, ds.Day.After(days[i-1].Day), "in day order")
			}
			require.EqualValues(t, 4, ds.Broadcasts, "the day's four shards summed")
			got.Broadcasts += ds.Broadcasts
			got.Deliveries += ds.Deliveries
			got.Delivered += ds.Delivered
			got.Failed += ds.Failed
			got.TextsReceived += ds.TextsReceived
		}
		require.Equal(t, sum, got, "%v: the days sum to the totals", r)
	}
	days, err := repo.DayStats(ctx, "team_7", day("2026-01-01"), day("2026-01-31"))
	require.NoError(t, err)
	require.Len(t, days, 28, "days 0, 11 and 22 of the year have no row")
	require.Equal(t, day("2026-01-02"), days[0].Day)
	require.Equal(t, domain.DailyStats{Broadcasts: 4, Deliveries: 4 * 11, Delivered: 4 * 9, Failed: 4, TextsReceived: 4}, days[0].DailyStats)
	days, err = repo.DayStats(ctx, "team_nope", day("2026-01-01"), day("2026-12-31"))
	require.NoError(t, err)
	require.Empty(t, days)

	text := dbtest.GenericPlan(t, d, `PREPARE day_stats(text, text, text) AS `+postgres.DayStatsSQL,
		`EXECUTE day_stats('team_7', '2026-01-01', '2026-12-31')`)
	require.NotContains(t, text, "Seq Scan", text)
	require.Contains(t, text, "messaging_daily_stats_pkey", text)
}
