package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/webhooks/webhooksapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/phone"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

// Sign-in throttles (DASHBOARD.md: at least 3 codes per identity and 20
// per client address in any 10 minutes before refusing).
var (
	CodesPerIdentity = ratelimit.Policy{{Name: "signin-identity", Limit: 5, Window: 10 * time.Minute}}
	CodesPerAddress  = ratelimit.Policy{{Name: "signin-address", Limit: 30, Window: 10 * time.Minute}}
)

// SignInStore keeps the dashboard's codes, sessions and activity log
// (postgres.Repo), in the transaction carried by ctx.
type SignInStore interface {
	InsertSignInCode(ctx context.Context, c *domain.SignInCode) error
	LatestSignInCode(ctx context.Context, identity string) (*domain.SignInCode, error)
	UpdateSignInCode(ctx context.Context, c *domain.SignInCode) error
	Logins(ctx context.Context, identity string) ([]domain.Login, error)
	InsertSession(ctx context.Context, s *domain.Session) error
	SessionByToken(ctx context.Context, hash []byte, now time.Time) (*domain.Session, error)
	UpdateSession(ctx context.Context, s *domain.Session) error
	DeleteSession(ctx context.Context, id string) error
	InsertActivity(ctx context.Context, a *domain.Activity) error
	ActivityLog(ctx context.Context, teamID string, f domain.ActivityFilter) ([]domain.Activity, error)
	ActivityActions(ctx context.Context, teamID string) ([]string, error)
}

// Limiter counts sign-in requests against a policy (*ratelimit.Limiter).
type Limiter interface {
	Allow(ctx context.Context, bucket string, policy ratelimit.Policy) (ratelimit.Decision, error)
}

// Transactor runs fn in one transaction carried by ctx (*db.DB).
type Transactor interface {
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
}

// SignIn is the dashboard's sign-in: one-time codes by text or e-mail,
// sessions, the team switcher, and the activity log.
type SignIn struct {
	DB      Transactor
	Store   SignInStore
	Limiter Limiter
	// PerAddress is how many codes one client address may ask for in 10
	// minutes (SIGNIN_CODES_PER_ADDRESS); 0: CodesPerAddress's 30.
	PerAddress int
	Texter     messagingapi.Texter
	Mailer     webhooksapi.Mailer
	Clock      clock.Clock
	Log        *slog.Logger
}

// errWrongCode is the one answer to every failed sign-in: a wrong, used,
// expired or dead code, or an identity with no login, look the same.
var errWrongCode = fault.New(fault.Invalid, fault.CodeInvalidRequest, "That code is not right, or it has expired. Check it, or send a new code.")

// RequestCode sends a sign-in code to what was typed in "Phone or
// e-mail". Its answer is the same whether or not the identity has a login
// (no roster enumeration): a code record is made either way, and only a
// login's is sent, by text from its team's number or by e-mail.
func (s *SignIn) RequestCode(ctx context.Context, typed, clientIP string) error {
	ident, err := domain.ParseIdentity(typed)
	if err != nil {
		return err
	}
	perAddress := CodesPerAddress
	if s.PerAddress > 0 {
		perAddress = ratelimit.Policy{{Name: "signin-address", Limit: s.PerAddress, Window: 10 * time.Minute}}
	}
	for bucket, policy := range map[string]ratelimit.Policy{"signin-address:" + clientIP: perAddress, "signin-identity:" + ident.Value: CodesPerIdentity} {
		d, err := s.Limiter.Allow(ctx, bucket, policy)
		if err != nil {
			return err
		}
		if !d.Allowed {
			return fault.New(fault.RateLimited, fault.CodeRateLimited, "Too many codes were asked for. Wait a few minutes, then try again.")
		}
	}
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		now := s.Clock.Now().UTC()
		logins, err := s.Store.Logins(ctx, ident.Value)
		if err != nil {
			return err
		}
		code, rec := domain.NewSignInCode(id.New("sic"), ident.Value, now)
		if err := s.Store.InsertSignInCode(ctx, &rec); err != nil {
			return err
		}
		l, ok := firstLive(logins)
		if !ok {
			return nil
		}
		body := domain.SignInText(l.Team.Name, code)
		if ident.Email {
			return s.Mailer.Mail(ctx, webhooksapi.Mail{TeamID: l.Team.ID, MemberID: l.Member.ID, To: ident.Value,
				Subject: "Your teamtext sign-in code", Body: body})
		}
		if err := s.Texter.SendText(ctx, messagingapi.Text{TeamID: l.Team.ID, To: phone.Number(ident.Value), Body: body}); err != nil {
			return err
		}
		s.Log.Info("dashboard sign-in code sent", "team_id", l.Team.ID, "member_id", l.Member.ID, "to", phone.Mask(ident.Value))
		return nil
	})
}

func firstLive(logins []domain.Login) (domain.Login, bool) {
	for _, l := range logins {
		if l.CanSignIn() {
			return l, true
		}
	}
	return domain.Login{}, false
}

// NewSession is a signed-in session's cookie token and expiry.
type NewSession struct {
	Token   string
	Expires time.Time
}

// Verify signs in with a code: the identity's latest code, tried in
// constant time (a wrong try counts, and the fifth kills it). A right code
// opens a session acting as the person's first team by name; with several
// teams they pick next.
func (s *SignIn) Verify(ctx context.Context, typed, code, token string) (*NewSession, error) {
	ident, err := domain.ParseIdentity(typed)
	if err != nil {
		return nil, err
	}
	var out *NewSession
	wrong := false
	err = s.DB.Tx(ctx, func(ctx context.Context) error {
		now := s.Clock.Now().UTC()
		c, err := s.Store.LatestSignInCode(ctx, ident.Value)
		if errors.Is(err, domain.ErrNotFound) {
			wrong = true
			return nil
		}
		if err != nil {
			return err
		}
		ok := c.Try(code, now)
		if err := s.Store.UpdateSignInCode(ctx, c); err != nil { // the attempt counts, right or wrong
			return err
		}
		logins, err := s.Store.Logins(ctx, ident.Value)
		if err != nil {
			return err
		}
		var live []domain.Login
		for _, l := range logins {
			if l.CanSignIn() {
				live = append(live, l)
			}
		}
		if !ok || len(live) == 0 {
			wrong = true
			return nil
		}
		sess := domain.Session{ID: id.New("ses"), TokenHash: domain.TokenHash(token), Identity: ident.Value, MemberID: live[0].Member.ID,
			Picked: len(live) == 1, CSRF: id.New("csrf"), CreatedAt: now, ExpiresAt: now.Add(domain.SessionTTL)}
		if err := s.Store.InsertSession(ctx, &sess); err != nil {
			return err
		}
		out = &NewSession{Token: token, Expires: sess.ExpiresAt}
		s.Log.Info("dashboard sign-in", "team_id", live[0].Team.ID, "member_id", live[0].Member.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if wrong {
		return nil, errWrongCode
	}
	return out, nil
}

// SessionView is a live session: the entry it acts as and every entry the
// person may switch to.
type SessionView struct {
	Session domain.Session
	Current domain.Login
	Logins  []domain.Login // those that may sign in now, by team name
}

// ErrNoSession is Resolve's answer for a token with no live session.
var ErrNoSession = errors.New("roster: no session")

// Resolve reads a session by its cookie token, with the person's roster
// entries as they are now. A session whose entry may no longer sign in
// (blocked, login removed, off the roster, team disabled or locked) is
// ended here, on its next request.
func (s *SignIn) Resolve(ctx context.Context, token string) (*SessionView, error) {
	now := s.Clock.Now().UTC()
	sess, err := s.Store.SessionByToken(ctx, domain.TokenHash(token), now)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	logins, err := s.Store.Logins(ctx, sess.Identity)
	if err != nil {
		return nil, err
	}
	v := &SessionView{Session: *sess}
	found := false
	for _, l := range logins {
		if !l.CanSignIn() {
			continue
		}
		v.Logins = append(v.Logins, l)
		if l.Member.ID == sess.MemberID {
			v.Current, found = l, true
		}
	}
	if !found {
		if err := s.Store.DeleteSession(ctx, sess.ID); err != nil {
			return nil, err
		}
		s.Log.Info("dashboard session ended: the entry may no longer sign in", "member_id", sess.MemberID)
		return nil, ErrNoSession
	}
	return v, nil
}

// Pick makes a session act as the person's entry on team teamID (404 for
// a team they may not sign in to).
func (s *SignIn) Pick(ctx context.Context, token, teamID string) error {
	v, err := s.Resolve(ctx, token)
	if err != nil {
		return err
	}
	for _, l := range v.Logins {
		if l.Team.ID == teamID {
			v.Session.MemberID, v.Session.Picked = l.Member.ID, true
			return s.Store.UpdateSession(ctx, &v.Session)
		}
	}
	return fault.NotFoundf("team not found")
}

// SignOut ends a session.
func (s *SignIn) SignOut(ctx context.Context, sessionID string) error {
	return s.Store.DeleteSession(ctx, sessionID)
}

// ActivityLog lists the team's dashboard writes, newest first, limit+1 rows.
func (s *SignIn) ActivityLog(ctx context.Context, teamID string, f domain.ActivityFilter) ([]domain.Activity, error) {
	return s.Store.ActivityLog(ctx, teamID, f)
}

// ActivityActions are the actions the team's log holds, for its filter.
func (s *SignIn) ActivityActions(ctx context.Context, teamID string) ([]string, error) {
	return s.Store.ActivityActions(ctx, teamID)
}

// Record writes one dashboard write to the team's activity log, in the
// caller's transaction.
func (s *SignIn) Record(ctx context.Context, teamID, memberID, action, object, clientIP string) error {
	return s.Store.InsertActivity(ctx, &domain.Activity{ID: id.New("act"), TeamID: teamID, MemberID: memberID, Action: action,
		Object: object, ClientIP: clientIP, CreatedAt: s.Clock.Now().UTC()})
}

// Invite tells a new staff member with a login where to sign in: a text
// from the team's number, or an e-mail when they have an address and no
// number can reach them, in the caller's transaction. It is not charged
// to the team's credits (as sign-in codes are not).
func (s *SignIn) Invite(ctx context.Context, team domain.Team, m domain.Member, link string) error {
	body := domain.InviteText(team.Name, m.Name, link)
	if m.Phone == "" && m.Email != "" {
		return s.Mailer.Mail(ctx, webhooksapi.Mail{TeamID: team.ID, MemberID: m.ID, To: m.Email,
			Subject: "You're invited to " + team.Name + " on teamtext", Body: body})
	}
	if err := s.Texter.SendText(ctx, messagingapi.Text{TeamID: team.ID, To: phone.Number(m.Phone), Body: body}); err != nil {
		return fmt.Errorf("invite: %w", err)
	}
	s.Log.Info("dashboard invitation sent", "team_id", team.ID, "member_id", m.ID, "to", phone.Mask(m.Phone))
	return nil
}
