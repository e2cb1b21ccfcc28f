package postgres

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
)

// ClearStreaks deletes the streaks (and marks) of pairs, locking the rows
// in (team, phone) order.
func (r *Repo) ClearStreaks(ctx context.Context, teams, phones []string) error {
	if len(teams) == 0 {
		return nil
	}
	_, err := r.db.SQL(ctx).ExecContext(ctx, `DELETE FROM roster_undeliverable WHERE (team_id, phone) IN (
  SELECT u.team_id, u.phone FROM roster_undeliverable u
  JOIN unnest($1::text[], $2::text[]) AS v(team_id, phone) ON u.team_id = v.team_id AND u.phone = v.phone
  ORDER BY u.team_id, u.phone FOR UPDATE OF u)`, teams, phones)
	if err != nil {
		return fmt.Errorf("clear %d delivery streaks: %w", len(teams), err)
	}
	return nil
}

// NoteFailures adds permanent failures to the numbers' streaks, in one
// statement that writes the rows in (team, phone) order; a streak that
// reaches markAfter gets its since (kept once set). It returns the rows
// as written.
func (r *Repo) NoteFailures(ctx context.Context, fs []domain.Failure, markAfter int) ([]domain.Streak, error) {
	if len(fs) == 0 {
		return nil, nil
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].TeamID != fs[j].TeamID {
			return fs[i].TeamID < fs[j].TeamID
		}
		return fs[i].Phone < fs[j].Phone
	})
	n := len(fs)
	teams, phones, codes, counts, ats := make([]string, n), make([]string, n), make([]string, n), make([]int32, n), make([]time.Time, n)
	for i, f := range fs {
		teams[i], phones[i], codes[i], counts[i], ats[i] = f.TeamID, f.Phone, f.LastCode, int32(f.Failures), f.At.UTC()
	}
	rows, err := r.db.SQL(ctx).QueryContext(ctx, `INSERT INTO roster_undeliverable AS u (team_id, phone, failures, last_code, last_failed_at, since)
SELECT v.team_id, v.phone, v.n, v.code, v.at, CASE WHEN v.n >= $6 THEN v.at END
FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::timestamptz[]) WITH ORDINALITY AS v(team_id, phone, n, code, at, i)
ORDER BY v.i
ON CONFLICT (team_id, phone) DO UPDATE SET failures = u.failures + excluded.failures, last_code = excluded.last_code,
  last_failed_at = GREATEST(u.last_failed_at, excluded.last_failed_at),
  since = COALESCE(u.since, CASE WHEN u.failures + excluded.failures >= $6 THEN excluded.last_failed_at END)
RETURNING u.team_id, u.phone, u.failures, u.since`, teams, phones, counts, codes, ats, markAfter)
	if err != nil {
		return nil, fmt.Errorf("note %d delivery failures: %w", n, err)
	}
	defer rows.Close()
	var out []domain.Streak
	for rows.Next() {
		var m domain.Streak
		if err := rows.Scan(&m.TeamID, &m.Phone, &m.Failures, &m.Since); err != nil {
			return nil, fmt.Errorf("note delivery failures: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("note delivery failures: %w", err)
	}
	return out, nil
}

// ClearUndeliverable deletes one number's streak; it reports whether the
// number was marked undeliverable.
func (r *Repo) ClearUndeliverable(ctx context.Context, teamID, phone string) (bool, error) {
	var since *time.Time
	rows, err := r.db.SQL(ctx).QueryContext(ctx, `DELETE FROM roster_undeliverable WHERE team_id = $1 AND phone = $2 RETURNING since`, teamID, phone)
	if err != nil {
		return false, fmt.Errorf("clear undeliverable: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&since); err != nil {
			return false, fmt.Errorf("clear undeliverable: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("clear undeliverable: %w", err)
	}
	return since != nil, nil
}

// UndeliverableSince returns, for those of phones marked undeliverable on
// the team, since when.
func (r *Repo) UndeliverableSince(ctx context.Context, teamID string, phones []string) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	if len(phones) == 0 {
		return out, nil
	}
	rows, err := r.db.SQL(ctx).QueryContext(ctx, `SELECT phone, since FROM roster_undeliverable
WHERE team_id = $1 AND phone = ANY($2::text[]) AND since IS NOT NULL`, teamID, phones)
	if err != nil {
		return nil, fmt.Errorf("undeliverable numbers: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		var at time.Time
		if err := rows.Scan(&p, &at); err != nil {
			return nil, fmt.Errorf("undeliverable numbers: %w", err)
		}
		out[p] = at
	}
	return out, rows.Err()
}
