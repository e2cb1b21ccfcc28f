package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// TestMemberTimeZones: a member's own time zone is written and read back by
// every path that writes or reads members (insert, update, COPY, pages,
// lookups by phone), and rosterapi.Zones answers, per phone of one team, the
// oldest live entry's zone that is set; entries removed, unset, of another
// team or of phones not asked are left out, in one statement.
func TestMemberTimeZones(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := server.Migrated(t, postgres.Migrations())
	repo := postgres.NewRepo(d)
	var zones rosterapi.Zones = directory(repo)
	at := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	_, err := d.Pool.Exec(ctx, `INSERT INTO roster_teams (id, name, code, number, time_zone, created_at) VALUES
  ('team_tz', 'TZ', 'tz', '+12025550110', 'America/New_York', $1), ('team_tz2', 'TZ2', 'tz2', '+12025550120', 'UTC', $1)`, at)
	require.NoError(t, err)

	const p, q, r, s, u = "+12025550911", "+12025550912", "+12025550913", "+12025550914", "+12025550915"
	member := func(id, team, phone, zone string, created time.Time) *domain.Member {
		return &domain.Member{ID: id, TeamID: team, Name: id, Phone: phone, Role: rosterapi.RoleGuardian, Status: domain.StatusActive,
			TimeZone: zone, CreatedAt: created, UpdatedAt: created}
	}
	// p: the oldest entry is unset, the next two differ: the older set one wins.
	require.NoError(t, repo.InsertMember(ctx, member("mem_p1", "team_tz", p, "", at.Add(-3*time.Hour))))
	require.NoError(t, repo.InsertMember(ctx, member("mem_p3", "team_tz", p, "America/Denver", at)))
	require.NoError(t, repo.InsertMember(ctx, member("mem_p2", "team_tz", p, "America/Chicago", at.Add(-time.Hour))))
	// q: set only on a removed entry.
	removed := member("mem_q1", "team_tz", q, "Pacific/Honolulu", at)
	removed.DeletedAt = &at
	require.NoError(t, repo.InsertMember(ctx, removed))
	// r: none set. s: set on another team only. u: set, but not asked.
	require.NoError(t, repo.InsertMember(ctx, member("mem_r1", "team_tz", r, "", at)))
	require.NoError(t, repo.InsertMember(ctx, member("mem_s1", "team_tz2", s, "Europe/Paris", at)))
	require.NoError(t, repo.InsertMember(ctx, member("mem_u1", "team_tz", u, "UTC", at)))

	got, err := zones.TimeZones(ctx, "team_tz", []phone.Number{p, q, r, s, p, "+12025550999"})
	require.NoError(t, err)
	require.Equal(t, map[phone.Number]string{p: "America/Chicago"}, got)
	got, err = zones.TimeZones(ctx, "team_tz2", []phone.Number{s, u})
	require.NoError(t, err)
	require.Equal(t, map[phone.Number]string{s: "Europe/Paris"}, got)
	got, err = zones.TimeZones(ctx, "team_tz", nil)
	require.NoError(t, err)
	require.Empty(t, got)

	// Update: set r's, clear p2's (p falls to the next set entry).
	_, err = repo.UpdateMember(ctx, "team_tz", "mem_r1", func(m *domain.Member) error { m.TimeZone = "America/Anchorage"; return nil })
	require.NoError(t, err)
	_, err = repo.UpdateMember(ctx, "team_tz", "mem_p2", func(m *domain.Member) error { m.TimeZone = ""; return nil })
	require.NoError(t, err)
	got, err = zones.TimeZones(ctx, "team_tz", []phone.Number{p, r})
	require.NoError(t, err)
	require.Equal(t, map[phone.Number]string{p: "America/Denver", r: "America/Anchorage"}, got)

	// COPY (imports) writes it too.
	const c1, c2 = "+12025550921", "+12025550922"
	err = d.Tx(ctx, func(ctx context.Context) error {
		return repo.CopyMembers(ctx, "team_tz", []domain.Member{*member("mem_c1", "team_tz", c1, "America/Phoenix", at), *member("mem_c2", "team_tz", c2, "", at)}, nil, nil)
	})
	require.NoError(t, err)
	got, err = zones.TimeZones(ctx, "team_tz", []phone.Number{c1, c2})
	require.NoError(t, err)
	require.Equal(t, map[phone.Number]string{c1: "America/Phoenix"}, got)

	// Every read of members carries it.
	m, err := repo.Member(ctx, "team_tz", "mem_c1")
	require.NoError(t, err)
	require.Equal(t, "America/Phoenix", m.TimeZone)
	ms, err := repo.MembersByPhone(ctx, "team_tz", r)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Equal(t, "America/Anchorage", ms[0].TimeZone)
	ms, err = repo.MembersByTeamPhones(ctx, []string{"team_tz"}, []string{c1})
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Equal(t, "America/Phoenix", ms[0].TimeZone)
	page, _, _, err := repo.MemberPage(ctx, "team_tz", domain.MemberFilter{Phone: p, Limit: 10})
	require.NoError(t, err)
	byID := map[string]string{}
	for _, m := range page {
		byID[m.ID] = m.TimeZone
	}
	require.Equal(t, map[string]string{"mem_p1": "", "mem_p2": "", "mem_p3": "America/Denver"}, byID)
}
