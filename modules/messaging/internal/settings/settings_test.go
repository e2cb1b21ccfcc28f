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

type memStore struct {
	quiet    map[string]domain.QuietHoursSetting
	failover map[string]bool
}

func (m memStore) QuietHours(_ context.Context, teamID string) (domain.QuietHoursSetting, error) {
	if s, ok := m.quiet[teamID]; ok {
		return s, nil
	}
	return domain.QuietHoursSetting{Start: domain.DefaultQuietStart, End: domain.DefaultQuietEnd}, nil
}

func (m memStore) SetQuietHours(_ context.Context, teamID string, s domain.QuietHoursSetting, _ time.Time) error {
	m.quiet[teamID] = s
	return nil
}

func (m memStore) CarrierFailover(_ context.Context, teamID string) (bool, error) {
	return m.failover[teamID], nil
}

func (m memStore) SetCarrierFailover(_ context.Context, teamID string, on bool, _ time.Time) error {
	m.failover[teamID] = on
	return nil
}

func (m memStore) LockSettings(context.Context, string, time.Time) error { return nil }

type noTx struct{}

func (noTx) Tx(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }

// newService is quiet hours over a roster of one team, team_1.
func newService(t *testing.T, def bool) (*Service, memStore) {
	t.Helper()
	st, teams := memStore{quiet: map[string]domain.QuietHoursSetting{}, failover: map[string]bool{}}, rostertest.New(clock.Real{})
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
	require.Equal(t, domain.Clock(22*60), st.quiet["team_1"].Start, "a refusal changes nothing")
	require.Equal(t, domain.Clock(7*60+30), st.quiet["team_1"].End)

	_, err = s.Quiet(ctx, "team_nope")
	require.ErrorIs(t, err, fault.NotFoundf("team not found"))
	_, err = s.SetQuietHours(ctx, "team_nope", QuietHoursPatch{Start: str("22:00")})
	require.ErrorIs(t, err, fault.NotFoundf("team not found"))
}

func TestCarrierFailoverIsOffUntilTurnedOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, st := newService(t, false)
	on, err := s.CarrierFailover(ctx, "team_1")
	require.NoError(t, err)
	require.False(t, on, "off by default")
	require.NoError(t, s.SetCarrierFailover(ctx, "team_1", true))
	on, err = s.CarrierFailover(ctx, "team_1")
	require.NoError(t, err)
	require.True(t, on)
	require.True(t, st.failover["team_1"])
	require.ErrorIs(t, s.SetCarrierFailover(ctx, "team_nope", true), fault.NotFoundf("team not found"))
	_, err = s.CarrierFailover(ctx, "team_nope")
	require.ErrorIs(t, err, fault.NotFoundf("team not found"))
	require.NotContains(t, st.failover, "team_nope", "an unknown team writes nothing")
}
