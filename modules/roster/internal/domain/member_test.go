package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
)

// requireCode asserts err is a fault with kind and code.
func requireCode(t *testing.T, err error, kind fault.Kind, code string) {
	t.Helper()
	f, ok := fault.As(err)
	require.True(t, ok, "a fault: %v", err)
	require.Equal(t, kind, f.Kind)
	require.Equal(t, code, f.Code)
}

func TestNewMember(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	yes := true

	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		m, err := domain.NewMember("mem_1", "team_1", domain.MemberInput{Name: "  Ann  Lee ", Phone: "(202) 555-0101"}, false, now)
		require.NoError(t, err)
		require.Equal(t, domain.Member{ID: "mem_1", TeamID: "team_1", Name: "Ann  Lee", Phone: "+12025550101", Role: rosterapi.RoleAthlete,
			Status: domain.StatusActive, CreatedAt: now, UpdatedAt: now}, *m)
		require.True(t, m.Joined())
	})

	t.Run("the API gives no dashboard attributes", func(t *testing.T) {
		t.Parallel()
		m, err := domain.NewMember("mem_1", "team_1", domain.MemberInput{Name: "Ann", Phone: "2025550101", Role: "guardian",
			Status: domain.StatusPending, DashboardLogin: true, CanSendBroadcasts: &yes}, false, now)
		require.NoError(t, err)
		require.Equal(t, domain.StatusActive, m.Status)
		require.False(t, m.DashboardLogin)
		require.False(t, m.CanSendBroadcasts)
		_, err = domain.NewMember("mem_1", "team_1", domain.MemberInput{Name: "Ann", Phone: "2025550101", Role: "head_coach"}, false, now)
		requireCode(t, err, fault.Invalid, domain.CodeRoleNotAllowed)
	})

	t.Run("the dashboard gives staff, status and permissions", func(t *testing.T) {
		t.Parallel()
		m, err := domain.NewMember("mem_1", "team_1", domain.MemberInput{Name: "Coach", Phone: "2025550101", Role: "head_coach"}, true, now)
		require.NoError(t, err)
		require.True(t, m.CanSendBroadcasts, "staff may send broadcasts unless told otherwise")
		require.True(t, m.Protected())
		require.True(t, m.KeyOwner())

		no := false
		m, err = domain.NewMember("mem_1", "team_1", domain.MemberInput{Name: "Coach", Phone: "2025550101", Role: "head_coach",
			Status: domain.StatusPending, DashboardLogin: true, CanSendBroadcasts: &no}, true, now)
		require.NoError(t, err)
		require.Equal(t, domain.StatusPending, m.Status)
		require.False(t, m.Joined())
		require.True(t, m.DashboardLogin)
		require.False(t, m.KeyOwner(), "a head coach without broadcast permission may not own keys")

		m, err = domain.NewMember("mem_1", "team_1", domain.MemberInput{Name: "Pat", Phone: "2025550101", DashboardLogin: true}, true, now)
		require.NoError(t, err)
		require.False(t, m.CanSendBroadcasts)
		require.True(t, m.Protected(), "a login protects an athlete")

		_, err = domain.NewMember("mem_1", "team_1", domain.MemberInput{Name: "Pat", Phone: "2025550101", Status: domain.StatusOptedOut}, true, now)
		requireCode(t, err, fault.Invalid, fault.CodeInvalidRequest)
	})

	t.Run("errors in the order a single add reports them", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name string
			in   domain.MemberInput
			code string
		}{
			{"name first", domain.MemberInput{Name: " ", Phone: "x", Email: "x", Role: "x"}, fault.CodeInvalidRequest},
			{"then phone", domain.MemberInput{Name: "Ann", Phone: "555", Email: "x", Role: "x"}, domain.CodeInvalidPhone},
			{"then email", domain.MemberInput{Name: "Ann", Phone: "2025550101", Email: "x", Role: "x"}, domain.CodeInvalidEmail},
			{"then role", domain.MemberInput{Name: "Ann", Phone: "2025550101", Role: "x"}, domain.CodeInvalidRole},
		} {
			_, err := domain.NewMember("mem_1", "team_1", tc.in, true, now)
			requireCode(t, err, fault.Invalid, tc.code)
		}
	})
}

func TestMemberTransitions(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)
	member := func(status string, role rosterapi.Role) *domain.Member {
		return &domain.Member{ID: "mem_1", Phone: "+12025550101", Role: role, Status: status, CreatedAt: now, UpdatedAt: now}
	}

	t.Run("approve", func(t *testing.T) {
		t.Parallel()
		m := member(domain.StatusPending, rosterapi.RoleAthlete)
		require.NoError(t, m.Approve(later))
		require.Equal(t, domain.StatusActive, m.Status)
		require.Equal(t, later, m.UpdatedAt)
		requireCode(t, m.Approve(later), fault.Conflict, fault.CodeConflict)
		requireCode(t, member(domain.StatusOptedOut, rosterapi.RoleAthlete).Approve(later), fault.Conflict, fault.CodeConflict)
	})

	t.Run("an opted-out member keeps their number", func(t *testing.T) {
		t.Parallel()
		out := member(domain.StatusOptedOut, rosterapi.RoleAthlete)
		requireCode(t, out.MayChangePhoneTo("+12025550102"), fault.Conflict, domain.CodeOptedOutMember)
		require.NoError(t, out.MayChangePhoneTo("+12025550101"), "the same number is no change")
		require.NoError(t, member(domain.StatusActive, rosterapi.RoleAthlete).MayChangePhoneTo("+12025550102"))
	})

	t.Run("remove", func(t *testing.T) {
		t.Parallel()
		active := member(domain.StatusActive, rosterapi.RoleGuardian)
		kept, err := active.Remove(later)
		require.NoError(t, err)
		require.False(t, kept, "an active member is deleted")
		require.Nil(t, active.DeletedAt)

		out := member(domain.StatusOptedOut, rosterapi.RoleAthlete)
		kept, err = out.Remove(later)
		require.NoError(t, err)
		require.True(t, kept, "an opted-out member is kept on record so the opt-out stays")
		require.Equal(t, &later, out.DeletedAt)
		require.Equal(t, later, out.UpdatedAt)

		staff := member(domain.StatusActive, rosterapi.RoleCoach)
		_, err = staff.Remove(later)
		requireCode(t, err, fault.Forbidden, domain.CodeStaffMemberProtected)
		require.Nil(t, staff.DeletedAt)
	})
}
