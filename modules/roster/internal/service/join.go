// Joining a team by text (sign-up conversations) and on the web (the
// public /join/{team_code} page with a code texted to the phone).
// Both add the member, their consent record (source keyword or
// web_signup, with the evidence) and the consent history row in one
// transaction, pending or active by the team's join_approval_required, and
// publish member.joined only for an active member (approval publishes it
// later).

package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/phone"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

// JoinStore is what joining reads and writes (postgres.Repo), in the
// transaction carried by ctx.
type JoinStore interface {
	OpenConversations(ctx context.Context, teams, phones []string) ([]domain.Conversation, error)
	InsertConversation(ctx context.Context, c *domain.Conversation) (bool, error)
	UpdateConversation(ctx context.Context, c *domain.Conversation) error
	StopConversation(ctx context.Context, teamID, phone string, at time.Time) error
	InsertJoinCode(ctx context.Context, c *domain.JoinCode) error
	LatestJoinCode(ctx context.Context, teamID, phone string) (*domain.JoinCode, error)
	UpdateJoinCode(ctx context.Context, c *domain.JoinCode) error
	TeamByCode(ctx context.Context, code string) (*domain.Team, error)
}

var _ rosterapi.Joining = (*Service)(nil)

type teamPhone = rosterapi.TeamPhone

// Join implements rosterapi.Joining: the sign-up-by-text step of an inbound
// batch, in its transaction. One statement reads the open conversations of
// the batch's numbers, one the opt-outs of the numbers that texted a join
// keyword (only when one did); then each text that is a step of a sign-up
// is acted on, in order:
//
//   - a join keyword from a number on the roster: "you're already on the
//     roster";
//   - from an opted-out number: "text START first", nothing else;
//   - from anyone else: a conversation opens (or the open one takes the
//     new keyword's role) and the answer asks for the name;
//   - any other text from a number with an open conversation is the name:
//     an unusable one is asked again; a usable one adds the member;
//   - a conversation older than domain.JoinTTL has expired: its number's
//     next text is not a step (it goes on to the inbox).
func (s *Service) Join(ctx context.Context, texts []rosterapi.JoinText) ([]rosterapi.JoinAnswer, error) {
	out := make([]rosterapi.JoinAnswer, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		now := s.clock.Now().UTC()
		var teams, phones, kwTeams, kwPhones []string
		seen := map[teamPhone]bool{}
		for _, t := range texts {
			p := teamPhone{TeamID: t.Team.ID, Phone: t.Phone}
			if !seen[p] {
				seen[p] = true
				teams, phones = append(teams, p.TeamID), append(phones, string(p.Phone))
			}
			if _, _, ok := domain.MatchJoinKeyword(t.Body, t.Team.Code); ok {
				kwTeams, kwPhones = append(kwTeams, p.TeamID), append(kwPhones, string(p.Phone))
			}
		}
		convs, err := s.st.Joins.OpenConversations(ctx, teams, phones)
		if err != nil {
			return err
		}
		open := make(map[teamPhone]*domain.Conversation, len(convs))
		for i := range convs {
			open[teamPhone{TeamID: convs[i].TeamID, Phone: phone.Number(convs[i].Phone)}] = &convs[i]
		}
		opted := map[teamPhone]bool{}
		if len(kwTeams) > 0 {
			pairs, err := s.st.OptOuts.OptedOutAmong(ctx, kwTeams, kwPhones)
			if err != nil {
				return err
			}
			for _, p := range pairs {
				opted[teamPhone{TeamID: p[0], Phone: phone.Number(p[1])}] = true
			}
		}
		listed := map[teamPhone]bool{} // joined in this batch
		for i, t := range texts {
			p := teamPhone{TeamID: t.Team.ID, Phone: t.Phone}
			c := open[p]
			if c != nil && c.Expired(now) {
				if err := s.closeConversation(ctx, c, domain.JoinExpired, now); err != nil {
					return err
				}
				delete(open, p)
				c = nil
			}
			role, kw, isKeyword := domain.MatchJoinKeyword(t.Body, t.Team.Code)
			if isKeyword {
				a, err := s.joinKeyword(ctx, t, p, c, role, kw, t.MemberID != "" || listed[p], opted[p], now)
				if err != nil {
					return err
				}
				if a.opened != nil {
					open[p] = a.opened
				} else if a.closed {
					delete(open, p)
				}
				out[i] = a.JoinAnswer
				continue
			}
			if c == nil {
				continue // not a step of a sign-up
			}
			out[i].Claimed = true
			name, ok := domain.JoinName(t.Body)
			if !ok {
				out[i].Reply = domain.JoinNameAgain(t.Team.Name)
				continue
			}
			reply, err := s.joinByText(ctx, t, c, name, now)
			if err != nil {
				return err
			}
			delete(open, p)
			listed[p] = true
			out[i].Reply = reply
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// keywordAnswer is joinKeyword's outcome: the answer, and the conversation
// it opened or whether it closed the open one.
type keywordAnswer struct {
	rosterapi.JoinAnswer
	opened *domain.Conversation
	closed bool
}

// joinKeyword acts on a join keyword text (see Join).
func (s *Service) joinKeyword(ctx context.Context, t rosterapi.JoinText, p teamPhone, c *domain.Conversation, role rosterapi.Role, kw string,
	listed, opted bool, now time.Time) (keywordAnswer, error) {
	a := keywordAnswer{JoinAnswer: rosterapi.JoinAnswer{Claimed: true}}
	switch {
	case opted: // on the roster or not, START comes first
		a.Reply = domain.JoinOptedOut(t.Team.Name)
		return a, nil
	case listed:
		a.Reply = domain.JoinAlreadyListed(t.Team.Name)
		if c != nil {
			a.closed = true
			return a, s.closeConversation(ctx, c, domain.JoinEnded, now)
		}
		return a, nil
	case c != nil: // a keyword again: the latest says the role
		c.Role, c.Keyword, c.UpdatedAt = role, kw, now
		a.Reply = domain.JoinAskName(t.Team.Name, role)
		return a, s.st.Joins.UpdateConversation(ctx, c)
	}
	if _, err := domain.ValidPhone("phone", string(p.Phone)); err != nil {
		return keywordAnswer{}, nil // a short code or a foreign sender cannot join: not a step
	}
	c = domain.NewConversation(id.New("jcv"), p.TeamID, string(p.Phone), kw, t.MessageID, role, now)
	fresh, err := s.st.Joins.InsertConversation(ctx, c)
	if err != nil {
		return a, err
	}
	if !fresh { // this text opened one already
		return a, nil
	}
	a.opened = c
	a.Reply = domain.JoinAskName(t.Team.Name, role)
	s.log.Info("sign-up by text started", "team_id", p.TeamID, "from", phone.Mask(string(p.Phone)), "keyword", kw)
	return a, nil
}

func (s *Service) closeConversation(ctx context.Context, c *domain.Conversation, state string, now time.Time) error {
	if err := c.Close(state, now); err != nil {
		return err
	}
	return s.st.Joins.UpdateConversation(ctx, c)
}

// joinByText adds the member a conversation's name text names, and closes
// the conversation; it answers the text.
func (s *Service) joinByText(ctx context.Context, t rosterapi.JoinText, c *domain.Conversation, name string, now time.Time) (string, error) {
	consent := domain.Consent{Source: domain.ConsentKeyword, At: t.At.UTC().Truncate(time.Microsecond),
		Evidence: domain.JoinKeywordEvidence(c, string(t.Team.Number), t.MessageID, t.Body)}
	if consent.At.IsZero() {
		consent.At = now.Truncate(time.Microsecond)
	}
	m, err := s.addJoiner(ctx, t.Team.ID, string(t.Phone), name, c.Role, t.Team.JoinApprovalRequired, consent, domain.ChannelSMS, t.MessageID)
	if f, ok := fault.As(err); ok && f.Kind != fault.Internal {
		// Already listed under this name (or opted out meanwhile): the
		// conversation ends without a member.
		if err := s.closeConversation(ctx, c, domain.JoinEnded, now); err != nil {
			return "", err
		}
		if f.Code == domain.CodeOptedOut {
			return domain.JoinOptedOut(t.Team.Name), nil
		}
		return domain.JoinAlreadyListed(t.Team.Name), nil
	}
	if err != nil {
		return "", err
	}
	if err := c.Joined(t.MessageID, m.ID, now); err != nil {
		return "", err
	}
	if err := s.st.Joins.UpdateConversation(ctx, c); err != nil {
		return "", err
	}
	s.log.Info("joined by text", "team_id", t.Team.ID, "member_id", m.ID, "status", m.Status)
	return domain.JoinWelcome(t.Team.Name, m.Name, m.Status == domain.StatusPending), nil
}

// addJoiner adds someone who joined by text or on the web, in the caller's
// transaction: the member (pending when approvalRequired), their consent
// and its history row, and member.joined when active. Refusals (the
// number opted out, the same phone and name listed) are faults, returned
// before anything is written.
func (s *Service) addJoiner(ctx context.Context, teamID, ph, name string, role rosterapi.Role, approvalRequired bool, consent domain.Consent,
	channel, messageID string) (*domain.Member, error) {
	now := s.clock.Now().UTC()
	m, err := domain.NewMember(id.New("mem"), teamID, domain.MemberInput{Name: name, Phone: ph, Role: string(role),
		Status: domain.JoinStatus(approvalRequired)}, true, now)
	if err != nil {
		return nil, err
	}
	setConsent(m, consent)
	if err := s.checkNewEntry(ctx, teamID, m.Phone, m.Name, ""); err != nil {
		return nil, err
	}
	if err := s.st.Members.InsertMember(ctx, m); err != nil {
		return nil, err
	}
	ev := consentGiven(m, channel, consent, now)
	ev.MessageID = optional(messageID)
	if err := s.st.Consent.InsertConsentEvents(ctx, []domain.ConsentEvent{ev}); err != nil {
		return nil, err
	}
	if m.Joined() {
		if err := s.publishMember(ctx, events.MemberJoined, m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// stopJoining ends a number's open sign-up conversation (STOP), in the
// caller's transaction.
func (s *Service) stopJoining(ctx context.Context, teamID, ph string) error {
	return s.st.Joins.StopConversation(ctx, teamID, ph, s.clock.Now().UTC())
}

// Web sign-up throttles: codes per phone and per client address in any 10
// minutes (per address: SIGNIN_CODES_PER_ADDRESS, as sign-in's).
var (
	JoinCodesPerPhone   = ratelimit.Policy{{Name: "join-phone", Limit: 3, Window: 10 * time.Minute}}
	JoinCodesPerAddress = ratelimit.Policy{{Name: "join-address", Limit: 30, Window: 10 * time.Minute}}
)

// WebJoin is the public sign-up page's use cases (GET /join/{team_code}).
type WebJoin struct {
	Roster  *Service
	Limiter Limiter
	Texter  messagingapi.Texter
	// PerAddress is how many codes one client address may ask for in 10
	// minutes (SIGNIN_CODES_PER_ADDRESS); 0: JoinCodesPerAddress's 30.
	PerAddress int
	Clock      clock.Clock
	Log        *slog.Logger
}

// errNoTeam answers a sign-up link of no team (or of a team that is
// disabled or locked).
var errNoTeam = fault.NotFoundf("There is no team with this sign-up link. Check the link you were given.")

// errWrongJoinCode is the one answer to every failed confirmation: a
// wrong, used, expired or dead code, or a phone that asked for none.
var errWrongJoinCode = fault.New(fault.Invalid, fault.CodeInvalidRequest, "That code is not right, or it has expired. Check it, or sign up again for a new code.")

// Team is the sign-up page's team, by its code (404 for no team, or a
// disabled or locked one).
func (w *WebJoin) Team(ctx context.Context, code string) (*domain.Team, error) {
	t, err := w.Roster.st.Joins.TeamByCode(ctx, code)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, errNoTeam
	}
	if err != nil {
		return nil, err
	}
	if t.Disabled || t.Locked || t.Number == "" {
		return nil, errNoTeam
	}
	return t, nil
}

// SignUp is the form's "Sign up": name, phone, role (athlete or guardian)
// and the consent box. It checks them, counts the request against the
// phone's and the client address's limits, and answers the same whatever
// the roster holds: a number not on the roster gets a 6-digit code by text
// (from the team's number, not charged), one on the roster a text saying
// so, an opted-out one nothing. It returns the phone in E.164.
func (w *WebJoin) SignUp(ctx context.Context, teamCode, name, rawPhone, rawRole string, consented bool, clientIP string) (string, error) {
	t, err := w.Team(ctx, teamCode)
	if err != nil {
		return "", err
	}
	if strings.IndexByte(name, 0) >= 0 || !utf8.ValidString(name) { // Postgres cannot store it: refused before it gets there
		return "", fault.Invalidf("Enter your name (1 to 100 characters).")
	}
	if name, err = domain.ValidName("name", name); err != nil {
		return "", fault.Invalidf("Enter your name (1 to 100 characters).")
	}
	ph, err := domain.ValidPhone("phone", rawPhone)
	if err != nil {
		return "", fault.Invalidf("Enter a US mobile number, such as 202-555-0101.")
	}
	role, err := domain.WebJoinRole(rawRole)
	if err != nil {
		return "", err
	}
	if !consented {
		return "", fault.Invalidf("Tick the box to agree to the team's texts.")
	}
	perAddress := JoinCodesPerAddress
	if w.PerAddress > 0 {
		perAddress = ratelimit.Policy{{Name: "join-address", Limit: w.PerAddress, Window: 10 * time.Minute}}
	}
	for _, b := range []struct {
		bucket string
		policy ratelimit.Policy
	}{{"join-address:" + clientIP, perAddress}, {"join-phone:" + t.ID + ":" + ph, JoinCodesPerPhone}} {
		d, err := w.Limiter.Allow(ctx, b.bucket, b.policy)
		if err != nil {
			return "", err
		}
		if !d.Allowed {
			return "", fault.New(fault.RateLimited, fault.CodeRateLimited, "Too many sign-ups were asked for. Wait a few minutes, then try again.")
		}
	}
	err = w.Roster.db.Tx(ctx, func(ctx context.Context) error {
		now := w.Clock.Now().UTC()
		listed, err := w.Roster.st.Members.MembersByPhone(ctx, t.ID, ph)
		if err != nil {
			return err
		}
		if len(listed) > 0 {
			w.Log.Info("web sign-up of a number on the roster", "team_id", t.ID, "to", phone.Mask(ph))
			return w.Texter.SendText(ctx, messagingapi.Text{TeamID: t.ID, To: phone.Number(ph), Body: domain.JoinAlreadyListed(t.Name)})
		}
		code, rec := domain.NewJoinCode(id.New("jcd"), t.ID, ph, name, role, clientIP, now)
		if err := w.Roster.st.Joins.InsertJoinCode(ctx, &rec); err != nil {
			return err
		}
		// An opted-out number is not texted (SendText skips it): it must
		// text START first.
		return w.Texter.SendText(ctx, messagingapi.Text{TeamID: t.ID, To: phone.Number(ph), Body: domain.JoinCodeText(t.Name, code)})
	})
	if err != nil {
		return "", err
	}
	return ph, nil
}

// Confirm is the code page's "Confirm": the phone's latest code, tried in
// constant time (a wrong try counts; the fifth kills it). A right one adds
// the member with consent source web_signup, pending or active by the
// team's join_approval_required. It reports whether the member is pending.
func (w *WebJoin) Confirm(ctx context.Context, teamCode, rawPhone, code string) (pending bool, err error) {
	t, err := w.Team(ctx, teamCode)
	if err != nil {
		return false, err
	}
	ph, err := domain.ValidPhone("phone", rawPhone)
	if err != nil {
		return false, errWrongJoinCode
	}
	wrong := false
	err = w.Roster.db.Tx(ctx, func(ctx context.Context) error {
		now := w.Clock.Now().UTC()
		c, err := w.Roster.st.Joins.LatestJoinCode(ctx, t.ID, ph)
		if errors.Is(err, domain.ErrNotFound) {
			wrong = true
			return nil
		}
		if err != nil {
			return err
		}
		ok := c.Try(code, now)
		if err := w.Roster.st.Joins.UpdateJoinCode(ctx, c); err != nil { // the attempt counts, right or wrong
			return err
		}
		if !ok {
			wrong = true
			return nil
		}
		consent := domain.Consent{Source: domain.ConsentWebSignup, At: c.CreatedAt.UTC().Truncate(time.Microsecond),
			Evidence: domain.WebJoinEvidence(c, t.Code, c.CreatedAt)}
		m, err := w.Roster.addJoiner(ctx, t.ID, ph, c.Name, c.Role, t.JoinApprovalRequired, consent, domain.ChannelWeb, "")
		if f, ok := fault.As(err); ok && f.Code == domain.CodeOptedOut {
			return fault.New(fault.Conflict, domain.CodeOptedOut, "This number opted out of the team's texts. Text START to "+t.Number+" first, then sign up again.")
		}
		if err != nil {
			return err
		}
		pending = m.Status == domain.StatusPending
		w.Log.Info("joined on the web", "team_id", t.ID, "member_id", m.ID, "status", m.Status)
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("web sign-up: %w", err)
	}
	if wrong {
		return false, errWrongJoinCode
	}
	return pending, nil
}
