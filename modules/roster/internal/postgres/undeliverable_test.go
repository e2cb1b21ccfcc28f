package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/phone"
)

func undeliverableSetup(t *testing.T) (*service.Directory, *postgres.Repo, *db.DB, func(teamID, phone string) (int, bool)) {
	t.Helper()
	d := server.Migrated(t, postgres.Migrations())
	repo := postgres.NewRepo(d)
	streak := func(teamID, phone string) (int, bool) {
		var n int
		var since *time.Time
		err := d.Pool.QueryRow(context.Background(), `SELECT failures, since FROM roster_undeliverable WHERE team_id = $1 AND phone = $2`, teamID, phone).Scan(&n, &since)
		if err != nil {
			return 0, false
		}
		return n, since != nil
	}
	return directory(repo), repo, d, streak
}

var at0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func fail(team, num string, n int) rosterapi.NumberOutcome {
	return rosterapi.NumberOutcome{TeamID: team, Phone: phone.Number(num), Failures: n, LastCode: "30006", At: at0}
}

// TestNoteOutcomesMarksAtThreshold: the streak grows across calls, the
// number is marked (and reported once) when it reaches the threshold, per
// team; a delivery resets it, and a reset and failures in one call leave
// just those failures.
func TestNoteOutcomesMarksAtThreshold(t *testing.T) {
	t.Parallel()
	dir, repo, _, streak := undeliverableSetup(t)
	ctx := context.Background()
	const p = "+12025550901"

	marked, err := dir.NoteOutcomes(ctx, []rosterapi.NumberOutcome{fail("team_a", p, 1), fail("team_b", p, 1)}, 2)
	require.NoError(t, err)
	require.Empty(t, marked)
	n, isMarked := streak("team_a", p)
	require.Equal(t, 1, n)
	require.False(t, isMarked)

	marked, err = dir.NoteOutcomes(ctx, []rosterapi.NumberOutcome{fail("team_a", p, 1)}, 2)
	require.NoError(t, err)
	require.Equal(t, []rosterapi.TeamPhone{{TeamID: "team_a", Phone: p}}, marked)
	_, isMarked = streak("team_a", p)
	require.True(t, isMarked)
	_, isMarked = streak("team_b", p)
	require.False(t, isMarked, "the mark is per team")

	marked, err = dir.NoteOutcomes(ctx, []rosterapi.NumberOutcome{fail("team_a", p, 1)}, 2)
	require.NoError(t, err)
	require.Empty(t, marked, "marked already: not reported again")
	n, _ = streak("team_a", p)
	require.Equal(t, 3, n)

	// A delivery resets; the same call's later failure counts from zero.
	_, err = dir.NoteOutcomes(ctx, []rosterapi.NumberOutcome{{TeamID: "team_a", Phone: p, Reset: true, Failures: 1, LastCode: "30006", At: at0}}, 2)
	require.NoError(t, err)
	n, isMarked = streak("team_a", p)
	require.Equal(t, 1, n)
	require.False(t, isMarked)
	// A delivery alone drops the row.
	_, err = dir.NoteOutcomes(ctx, []rosterapi.NumberOutcome{{TeamID: "team_a", Phone: p, Reset: true, At: at0}}, 2)
	require.NoError(t, err)
	_, ok := streak("team_a", p)
	require.False(t, ok)

	// Two outcomes of one number in one call fold into one row (no "affect row twice").
	marked, err = dir.NoteOutcomes(ctx, []rosterapi.NumberOutcome{fail("team_c", p, 1), fail("team_c", p, 1)}, 2)
	require.NoError(t, err)
	require.Equal(t, []rosterapi.TeamPhone{{TeamID: "team_c", Phone: p}}, marked)

	// Clearing reports whether the number was marked.
	was, err := repo.ClearUndeliverable(ctx, "team_c", p)
	require.NoError(t, err)
	require.True(t, was)
	was, err = repo.ClearUndeliverable(ctx, "team_c", p)
	require.NoError(t, err)
	require.False(t, was)
}

// TestAudienceCarriesTheMark: audiences flag recipients whose number is
// marked, on every entry with it, and only on that team.
func TestAudienceCarriesTheMark(t *testing.T) {
	t.Parallel()
	dir, repo, d, _ := undeliverableSetup(t)
	ctx := context.Background()
	_, err := dir.NoteOutcomes(ctx, []rosterapi.NumberOutcome{fail("team_aud", "+12025550911", 2), fail("team_other", "+12025550912", 2)}, 2)
	require.NoError(t, err)
	rs := audience(t, d, repo, "team_aud")
	require.Len(t, rs, 3)
	for _, r := range rs {
		require.Equal(t, r.Phone == "+12025550911", r.Undeliverable, r.MemberID)
	}
}

func audience(t *testing.T, d *db.DB, repo *postgres.Repo, teamID string) []rosterapi.Recipient {
	t.Helper()
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `INSERT INTO roster_teams (id, name, code, time_zone, created_at) VALUES ($1, 'Aud', $1, 'UTC', now())`, teamID)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `INSERT INTO roster_members (id, team_id, name, phone, role, status, created_at, updated_at) VALUES
  ('mem_a1', $1, 'A', '+12025550911', 'athlete', 'active', now(), now()),
  ('mem_a2', $1, 'A2', '+12025550911', 'guardian', 'active', now() + interval '1 ms', now()),
  ('mem_a3', $1, 'B', '+12025550912', 'athlete', 'active', now() + interval '2 ms', now())`, teamID)
	require.NoError(t, err)
	rs, err := repo.Audience(ctx, teamID, nil, "")
	require.NoError(t, err)
	return rs
}

// TestNoteOutcomesConcurrently: batches from several transactions at once,
// each naming the same numbers in its own order, neither deadlock nor lose
// a failure.
func TestNoteOutcomesConcurrently(t *testing.T) {
	t.Parallel()
	d := server.Migrated(t, postgres.Migrations())
	dir := directory(postgres.NewRepo(d))
	ctx := context.Background()
	const workers, rounds, phones = 6, 10, 12
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for range rounds {
				var outs []rosterapi.NumberOutcome
				for _, i := range rng.Perm(phones) {
					outs = append(outs, fail("team_conc", fmt.Sprintf("+120255509%02d", i), 1))
				}
				errs <- d.Tx(ctx, func(ctx context.Context) error {
					_, err := dir.NoteOutcomes(ctx, outs, 1000)
					return err
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	var total int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT sum(failures) FROM roster_undeliverable WHERE team_id = 'team_conc'`).Scan(&total))
	require.Equal(t, workers*rounds*phones, total)
}
