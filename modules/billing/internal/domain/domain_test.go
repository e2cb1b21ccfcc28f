package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
)

var at = time.Date(2026, 11, 30, 23, 30, 0, 0, time.FixedZone("UTC-1", -3600)) // already December in UTC

func ptr[T any](v T) *T { return &v }

func TestOpen(t *testing.T) {
	t.Parallel()
	a := domain.Open("team_1", billingapi.Settings{Plan: billingapi.PlanTeam, CardOnFile: true, Trial: true, TrialCredits: 50}, at)
	require.Equal(t, domain.Account{TeamID: "team_1", Plan: billingapi.PlanTeam, CardOnFile: true, PaymentState: billingapi.PaymentOK,
		Trial: true, TrialCredits: 50, CreatedAt: at.UTC(), UpdatedAt: at.UTC()}, a)
	require.Equal(t, time.UTC, a.CreatedAt.Location())
}

func TestApply(t *testing.T) {
	t.Parallel()
	base := domain.Open("team_1", billingapi.Settings{Plan: billingapi.PlanFree}, at.Add(-time.Hour))

	t.Run("nil fields are left alone", func(t *testing.T) {
		t.Parallel()
		a := base
		require.False(t, a.Apply(billingapi.Patch{}, at))
		want := base
		want.UpdatedAt = at.UTC()
		require.Equal(t, want, a)
	})
	t.Run("every field", func(t *testing.T) {
		t.Parallel()
		a := base
		a.Apply(billingapi.Patch{Plan: ptr(billingapi.PlanBusiness), CardOnFile: ptr(true), PaymentState: ptr(billingapi.PaymentOverdue),
			Trial: ptr(true), TrialCredits: ptr(7)}, at)
		require.Equal(t, billingapi.PlanBusiness, a.Plan)
		require.True(t, a.CardOnFile)
		require.Equal(t, billingapi.PaymentOverdue, a.PaymentState)
		require.True(t, a.Trial)
		require.Equal(t, 7, a.TrialCredits)
		require.Equal(t, base.CreatedAt, a.CreatedAt)
	})
	t.Run("only overdue to ok is a recovery", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct {
			from, to  string
			recovered bool
		}{
			{billingapi.PaymentOverdue, billingapi.PaymentOK, true},
			{billingapi.PaymentOK, billingapi.PaymentOK, false},
			{billingapi.PaymentOK, billingapi.PaymentOverdue, false},
			{billingapi.PaymentOverdue, billingapi.PaymentOverdue, false},
		} {
			a := base
			a.PaymentState = c.from
			require.Equal(t, c.recovered, a.Apply(billingapi.Patch{PaymentState: ptr(c.to)}, at), "%s → %s", c.from, c.to)
			require.Equal(t, c.to, a.PaymentState)
		}
	})
}

func TestCharge(t *testing.T) {
	t.Parallel()
	trial := domain.Open("team_1", billingapi.Settings{Plan: billingapi.PlanTeam, Trial: true, TrialCredits: 10}, at)
	paid := domain.Open("team_2", billingapi.Settings{Plan: billingapi.PlanFree}, at)

	e, err := trial.Charge("msg_1", 4, 6, at)
	require.NoError(t, err, "exactly what remains")
	require.Equal(t, domain.CreditEntry{TeamID: "team_1", Period: "2026-12", Ref: "msg_1", Credits: 4, Trial: true, CreatedAt: at.UTC()}, e)

	_, err = trial.Charge("msg_2", 5, 6, at)
	f, ok := fault.As(err)
	require.True(t, ok)
	require.Equal(t, fault.PaymentRequired, f.Kind)
	require.Equal(t, billingapi.CodeTrialLimit, f.Code)
	require.Equal(t, "this send needs 5 credits; 4 trial credits remain", f.Message)

	_, err = trial.Charge("msg_3", 1, 12, at)
	f, ok = fault.As(err)
	require.True(t, ok)
	require.Equal(t, "this send needs 1 credits; 0 trial credits remain", f.Message, "never a negative remainder")

	e, err = paid.Charge("msg_4", 100000, 0, at)
	require.NoError(t, err, "a paid plan goes over its allowance: overage is reported, not refused")
	require.False(t, e.Trial)
	require.Equal(t, 100000, e.Credits)
}

func TestIncludedAndPeriod(t *testing.T) {
	t.Parallel()
	for plan, n := range map[billingapi.Plan]int{
		billingapi.PlanFree: 100, billingapi.PlanTeam: 1000, "team_season": 1000, billingapi.PlanTeamPlus: 5000,
		"team_plus_season": 5000, billingapi.PlanOrganization: 25000, billingapi.PlanBusiness: 100000, "business_season": 100000,
		"gold": 0,
	} {
		require.Equal(t, n, domain.Included(plan), plan)
	}
	require.Equal(t, "2026-12", domain.Period(at), "the UTC calendar month")
	require.Equal(t, "2026-11", domain.Period(at.Add(-time.Hour)))
}

func TestStanding(t *testing.T) {
	t.Parallel()
	a := domain.Open("team_1", billingapi.Settings{Plan: "organization_season", CardOnFile: true, Trial: true, TrialCredits: 3}, at)
	a.PaymentState = billingapi.PaymentOverdue
	s := a.Standing()
	require.Equal(t, billingapi.Standing{TeamID: "team_1", Plan: "organization_season", CardOnFile: true,
		PaymentState: billingapi.PaymentOverdue, Trial: true, TrialCredits: 3, CreditsIncluded: 25000}, s)
	require.Equal(t, billingapi.Account{Standing: billingapi.Standing{TeamID: "team_1", Plan: "organization_season", CardOnFile: true,
		PaymentState: billingapi.PaymentOverdue, Trial: true, TrialCredits: 3, CreditsIncluded: 25000}}, s.Account())
}
