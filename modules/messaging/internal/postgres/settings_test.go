package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/db"
)

// TestQuietHoursRoundTrip: a team without a row has the default window and
// no choice of its own; a choice survives; the HELP reply and the quiet
// hours are kept apart in the one row; the operator's default is NULL.
func TestQuietHoursRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	r := postgres.NewRepo(d, nil)
	got, err := r.QuietHours(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, domain.QuietHoursSetting{Start: domain.DefaultQuietStart, End: domain.DefaultQuietEnd}, got)

	require.NoError(t, r.SetHelpText(ctx, "team_1", "Tigers: texts. Reply STOP to opt out.", at))
	got, err = r.QuietHours(ctx, "team_1")
	require.NoError(t, err)
	require.Nil(t, got.Enabled, "a HELP reply is not a quiet-hours choice")
	require.Equal(t, domain.DefaultQuietStart, got.Start)

	on := true
	inTx(t, d, func(ctx context.Context) error {
		if err := r.LockSettings(ctx, "team_1", at); err != nil {
			return err
		}
		return r.SetQuietHours(ctx, "team_1", domain.QuietHoursSetting{Enabled: &on, Start: 13 * 60, End: 14*60 + 30}, at)
	})
	got, err = r.QuietHours(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, domain.QuietHoursSetting{Enabled: &on, Start: 780, End: 870}, got)
	text, err := r.HelpText(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, "Tigers: texts. Reply STOP to opt out.", text, "the HELP reply is kept")

	require.NoError(t, r.SetQuietHours(ctx, "team_1", domain.QuietHoursSetting{Start: 1, End: 2}, at))
	got, err = r.QuietHours(ctx, "team_1")
	require.NoError(t, err)
	require.Nil(t, got.Enabled, "back to the operator's default")

	inTx(t, d, func(ctx context.Context) error { return r.LockSettings(ctx, "team_2", at) })
	got, err = r.QuietHours(ctx, "team_2")
	require.NoError(t, err)
	require.Equal(t, domain.QuietHoursSetting{Start: domain.DefaultQuietStart, End: domain.DefaultQuietEnd}, got, "a locked-in row is the defaults")
}
