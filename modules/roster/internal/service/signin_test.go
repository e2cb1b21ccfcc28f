package service_test

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/modules/webhooks/webhooksapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

// outbox keeps the codes texted and mailed.
type outbox struct {
	mu    sync.Mutex
	texts []messagingapi.Text
	mails []webhooksapi.Mail
}

func (o *outbox) SendText(_ context.Context, t messagingapi.Text) error {
	return keep(&o.mu, &o.texts, t)
}

func (o *outbox) Mail(_ context.Context, m webhooksapi.Mail) error { return keep(&o.mu, &o.mails, m) }

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

func (o *outbox) lastCode(t *testing.T) string {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	body := ""
	if len(o.texts) > 0 {
		body = o.texts[len(o.texts)-1].Body
	}
	if len(o.mails) > 0 {
		body = o.mails[len(o.mails)-1].Body
	}
	code := sixDigits.FindString(body)
	require.NotEmpty(t, code, "a code in %q", body)
	return code
}

type signInBundle struct {
	*bundle
	signIn *service.SignIn
	out    *outbox
	clock  *clock.Fake
}

// setupSignIn is setup's roster with a head coach on both teams (one
// phone) and a coach with an e-mail on team A.
func setupSignIn(t *testing.T) (context.Context, *signInBundle) {
	t.Helper()
	ctx, b := setup(t)
	clk := clock.NewFake(t0)
	out := &outbox{}
	si := &service.SignIn{DB: b.d, Store: postgres.NewRepo(b.d), Limiter: ratelimit.New(b.d.Pool, clk), Texter: out, Mailer: out,
		Clock: clk, Log: slog.New(slog.DiscardHandler)}
	for _, m := range []service.NewMember{
		{Name: "Hana Coach", Phone: "202-555-0150", Role: "head_coach", DashboardLogin: true},
		{Name: "Kim Coach", Phone: "202-555-0151", Email: "Kim@Example.org", Role: "coach", DashboardLogin: true},
		{Name: "Pat Parent", Phone: "202-555-0152", Role: "guardian"},
	} {
		_, err := b.svc.AddMember(ctx, teamA, m, service.FromDashboard())
		require.NoError(t, err)
	}
	_, err := b.svc.AddMember(ctx, teamB, service.NewMember{Name: "Hana on B", Phone: "2025550150", Role: "team_director", DashboardLogin: true},
		service.FromDashboard())
	require.NoError(t, err)
	return ctx, &signInBundle{bundle: b, signIn: si, out: out, clock: clk}
}

// A code by text signs in; a person on two teams picks one; blocking
// ends the session on its next request.
func TestSignInByText(t *testing.T) {
	t.Parallel()
	ctx, b := setupSignIn(t)

	require.NoError(t, b.signIn.RequestCode(ctx, "(202) 555-0150", "192.0.2.1"))
	require.Len(t, b.out.texts, 1)
	require.Equal(t, phone.Number("+12025550150"), b.out.texts[0].To)
	s, err := b.signIn.Verify(ctx, "202.555.0150", b.out.lastCode(t), "tok-1")
	require.NoError(t, err)
	v, err := b.signIn.Resolve(ctx, s.Token)
	require.NoError(t, err)
	require.Len(t, v.Logins, 2, "on two teams")
	require.False(t, v.Session.Picked)
	require.Equal(t, teamA, v.Current.Team.ID, "the first team by name until one is picked")

	require.NoError(t, b.signIn.Pick(ctx, s.Token, teamB))
	v, err = b.signIn.Resolve(ctx, s.Token)
	require.NoError(t, err)
	require.Equal(t, teamB, v.Current.Team.ID)
	require.True(t, v.Session.Picked)
	require.Equal(t, fault.NotFound, mustFault(t, b.signIn.Pick(ctx, s.Token, "team_elsewhere")).Kind)

	_, err = b.d.Pool.Exec(ctx, `UPDATE roster_members SET is_blocked = true WHERE id = $1`, v.Current.Member.ID)
	require.NoError(t, err)
	_, err = b.signIn.Resolve(ctx, s.Token)
	require.ErrorIs(t, err, service.ErrNoSession, "blocked: signed out on the next request")
	_, err = b.signIn.Resolve(ctx, s.Token)
	require.ErrorIs(t, err, service.ErrNoSession, "and the session is gone")
}

// A known and an unknown identity get the same answer, and nothing is
// sent to the unknown one; a member without a login is unknown here.
func TestSignInDoesNotEnumerate(t *testing.T) {
	t.Parallel()
	ctx, b := setupSignIn(t)
	for _, who := range []string{"2025550199", "2025550152", "nobody@example.org"} {
		require.NoError(t, b.signIn.RequestCode(ctx, who, "192.0.2.1"), who)
		_, err := b.signIn.Verify(ctx, who, "123456", "tok")
		require.Equal(t, "That code is not right, or it has expired. Check it, or send a new code.", mustFault(t, err).Message)
	}
	require.Empty(t, b.out.texts)
	require.Empty(t, b.out.mails)

	require.NoError(t, b.signIn.RequestCode(ctx, "KIM@example.org", "192.0.2.1"))
	require.Len(t, b.out.mails, 1, "an e-mail identity gets its code by e-mail")
	require.Equal(t, "kim@example.org", b.out.mails[0].To)
}

// Five wrong codes kill the code; a new one works.
func TestFiveWrongCodesKillTheCode(t *testing.T) {
	t.Parallel()
	ctx, b := setupSignIn(t)
	require.NoError(t, b.signIn.RequestCode(ctx, "2025550151", "192.0.2.1"))
	code := b.out.lastCode(t)
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	for range domain.CodeAttempts {
		_, err := b.signIn.Verify(ctx, "2025550151", wrong, "tok")
		require.Error(t, err)
	}
	_, err := b.signIn.Verify(ctx, "2025550151", code, "tok")
	require.Error(t, err, "dead after five wrong codes")

	require.NoError(t, b.signIn.RequestCode(ctx, "2025550151", "192.0.2.1"))
	_, err = b.signIn.Verify(ctx, "2025550151", b.out.lastCode(t), "tok")
	require.NoError(t, err)
}

// Codes are throttled per identity (5 in 10 minutes) and per address.
func TestSignInThrottles(t *testing.T) {
	t.Parallel()
	ctx, b := setupSignIn(t)
	for i := range 5 {
		require.NoError(t, b.signIn.RequestCode(ctx, "2025550151", "192.0.2.9"), "code %d", i+1)
	}
	require.Equal(t, fault.RateLimited, mustFault(t, b.signIn.RequestCode(ctx, "2025550151", "192.0.2.10")).Kind)
	b.clock.Advance(11 * time.Minute)
	require.NoError(t, b.signIn.RequestCode(ctx, "2025550151", "192.0.2.10"), "the window moved on")
}

func mustFault(t *testing.T, err error) *fault.Error {
	t.Helper()
	f, ok := fault.As(err)
	require.True(t, ok, "a fault: %v", err)
	return f
}

// The per-address throttle is the operator's (SIGNIN_CODES_PER_ADDRESS):
// that many codes from one address in 10 minutes, whoever they are for.
func TestSignInThrottlePerAddress(t *testing.T) {
	t.Parallel()
	ctx, b := setupSignIn(t)
	b.signIn.PerAddress = 20
	for i := range 20 {
		require.NoError(t, b.signIn.RequestCode(ctx, fmt.Sprintf("20255502%02d", i), "192.0.2.77"), "code %d", i+1)
	}
	require.Equal(t, fault.RateLimited, mustFault(t, b.signIn.RequestCode(ctx, "2025550299", "192.0.2.77")).Kind)
	require.NoError(t, b.signIn.RequestCode(ctx, "2025550299", "192.0.2.78"), "another address")
}
