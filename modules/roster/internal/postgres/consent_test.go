package postgres_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
)

// TestConsentMigrationReruns: the consent migration can be applied again
// over itself (a replay) without error or change.
func TestConsentMigrationReruns(t *testing.T) {
	t.Parallel()
	d := server.Migrated(t, postgres.Migrations())
	sql, err := os.ReadFile("migrations/20261124184500_roster_consent.tx.up.sql")
	require.NoError(t, err)
	_, err = d.Pool.Exec(context.Background(), string(sql))
	require.NoError(t, err)
}

// TestConsentHistory: rows written by INSERT (a few) and COPY (many), in a
// transaction, read back per team and number, oldest first by when they
// happened, then in writing order, paged with limit+1.
func TestConsentHistory(t *testing.T) {
	t.Parallel()
	d := server.Migrated(t, postgres.Migrations())
	repo := postgres.NewRepo(d)
	ctx := context.Background()
	base := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	row := func(i int, team, phone string, at time.Time) domain.ConsentEvent {
		return domain.ConsentEvent{ID: fmt.Sprintf("cev_%s_%03d", team, i), TeamID: team, Phone: phone, Kind: "opt_out", Channel: "api",
			At: at, RecordedAt: base}
	}
	// One at a time: the same instant, kept in writing order; one earlier.
	few := []domain.ConsentEvent{row(1, "t1", "+12025550101", base), row(2, "t1", "+12025550101", base), row(3, "t1", "+12025550101", base.Add(-time.Hour))}
	member, evidence := "mem_1", "Stop."
	few[0].MemberID, few[0].Evidence = &member, &evidence
	require.NoError(t, d.Tx(ctx, func(ctx context.Context) error { return repo.InsertConsentEvents(ctx, few) }))
	// Many: COPY, on the caller's transaction (rolled back here: nothing stays).
	var many []domain.ConsentEvent
	for i := range 20 {
		many = append(many, row(100+i, "t1", "+12025550102", base.Add(time.Duration(i)*time.Second)))
	}
	err := d.Tx(ctx, func(ctx context.Context) error {
		if err := repo.InsertConsentEvents(ctx, many); err != nil {
			return err
		}
		return fmt.Errorf("roll back")
	})
	require.EqualError(t, err, "roll back")
	h, err := repo.ConsentHistory(ctx, "t1", "+12025550102", -1, 0)
	require.NoError(t, err)
	require.Empty(t, h, "COPY joined the transaction")
	require.NoError(t, d.Tx(ctx, func(ctx context.Context) error { return repo.InsertConsentEvents(ctx, many) }))
	require.NoError(t, d.Tx(ctx, func(ctx context.Context) error {
		return repo.InsertConsentEvents(ctx, []domain.ConsentEvent{row(9, "t2", "+12025550101", base)})
	}))

	h, err = repo.ConsentHistory(ctx, "t1", "+12025550101", -1, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"cev_t1_003", "cev_t1_001", "cev_t1_002"}, ids(h), "by time, then writing order; the other team's row apart")
	require.Equal(t, "mem_1", *h[1].MemberID)
	require.Equal(t, "Stop.", *h[1].Evidence)
	require.Nil(t, h[2].MemberID)
	require.True(t, base.Equal(h[1].At))

	page, err := repo.ConsentHistory(ctx, "t1", "+12025550102", 5, 15)
	require.NoError(t, err)
	require.Equal(t, []string{"cev_t1_115", "cev_t1_116", "cev_t1_117", "cev_t1_118", "cev_t1_119"}, ids(page), "the last page: no extra row")
	page, err = repo.ConsentHistory(ctx, "t1", "+12025550102", 5, 0)
	require.NoError(t, err)
	require.Len(t, page, 6, "limit+1 tells another page exists")
}

func ids(evs []domain.ConsentEvent) []string {
	out := make([]string, len(evs))
	for i := range evs {
		out[i] = evs[i].ID
	}
	return out
}
