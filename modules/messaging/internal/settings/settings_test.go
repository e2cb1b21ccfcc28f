package settings

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/fault"
)

type memStore map[string]domain.QuietHoursSetting

func (m memStore) QuietHours(_ context.Context, teamID string) (domain.QuietHoursSetting, error) {
	if s, ok := m[teamID]; ok {
		return s, nil
	}
	return domain.QuietHoursSetting{Start: domain.DefaultQuietStart, End: domain.DefaultQuietEnd}, nil
}

func (m memStore) SetQuietHours(_ context.Context, teamID string, s domain.QuietHoursSetting, _ time.Time) error {
	m[teamID] = s
	return nil
}

func (m memStore) LockSettings(context.Context, string, time.Time) error { return nil }

type noTx struct{}

func (noTx) Tx(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }

// newService is quiet hours over a roster of one team, team_1.
func newService(t *testing.T, def bool) (*Service, memStore) {
	t.Helper()
	st, teams := memStore{}, rostertest.New(clock.Real{})
	require.NoError(t, teams.AddTeam(context.Background(), rosterapi.Team{ID: "team_1", Code: "tigers"}))
	return New(Deps{Tx: noTx{}, Store: st, Teams: teams, Clock: clock.Real{}, Config: config.Config{QuietHoursDefault: def}}), st
}

func TestQuietHoursFollowsTheOperatorUntilTheTeamChooses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, def := range []bool{false, true} {
		s, _ := newService(t, def)
		q, err := s.QuietHours(ctx, "team_1")
		require.NoError(t, err)
		require.Equal(t, domain.DefaultQuietHours(def), q)
		off := false
		got, err := s.SetQuietHours(ctx, "team_1", QuietHoursPatch{Enabled: &off})
		require.NoError(t, err)
		require.Equal(t, Quiet{QuietHours: domain.DefaultQuietHours(false)}, got, "the team's choice, whatever the default")
	}
}

func TestSetQuietHoursPatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, st := newService(t, false)
	str := func(v string) *string { return &v }
	got, err := s.SetQuietHours(ctx, "team_1", QuietHoursPatch{Start: str("22:00")})
	require.NoError(t, err)
	require.Equal(t, Quiet{QuietHours: domain.QuietHours{Start: 22 * 60, End: 8 * 60}, EnabledDefault: true}, got, "enabled still follows the default")
	got, err = s.SetQuietHours(ctx, "team_1", QuietHoursPatch{End: str("07:30")})
	require.NoError(t, err)
	require.Equal(t, "22:00–07:30", got.Start.String()+"–"+got.End.String())

	for _, p := range []QuietHoursPatch{{Start: str("25:00")}, {End: str("7:30")}, {Start: str("07:30")}, {Start: str("12:00"), End: str("12:00")}} {
		_, err := s.SetQuietHours(ctx, "team_1", p)
		f, ok := fault.As(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, fault.Invalid, f.Kind)
		require.Contains(t, f.Message, "quiet_hours.")
	}
	require.Equal(t, domain.Clock(22*60), st["team_1"].Start, "a refusal changes nothing")
	require.Equal(t, domain.Clock(7*60+30), st["team_1"].End)

	_, err = s.Quiet(ctx, "team_nope")
	require.ErrorIs(t, err, fault.NotFoundf("team not found"))
	_, err = s.SetQuietHours(ctx, "team_nope", QuietHoursPatch{Start: str("22:00")})
	require.ErrorIs(t, err, fault.NotFoundf("team not found"))
}
