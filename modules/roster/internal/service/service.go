// Package service holds the roster's use cases. Each runs in one
// transaction: its writes, the events it publishes and the signals it sends
// commit or roll back together.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/auth"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/ratelimit"
)

// Service is the roster's application layer.
type Service struct {
	db        *db.DB
	st        Stores
	billing   billingapi.Accounts
	events    events.Publisher
	jobs      JobInserter // the statistics refresh after a large import
	clock     clock.Clock
	log       *slog.Logger
	listeners []rosterapi.KeyRevokedListener
	inactive  []rosterapi.OwnerInactiveListener
	// keyAuthSQL is the gate's one statement, built by the store once.
	keyAuthSQL string
	apiPlans   []string // billingapi.APIPlans, for keyAuthSQL
}

// New builds the service.
func New(d *db.DB, st Stores, billing billingapi.Accounts, pub events.Publisher, jobs JobInserter, clk clock.Clock, log *slog.Logger,
	listeners []rosterapi.KeyRevokedListener, inactive []rosterapi.OwnerInactiveListener) *Service {
	return &Service{db: d, st: st, billing: billing, events: pub, jobs: jobs, clock: clk, log: log, listeners: listeners, inactive: inactive,
		keyAuthSQL: st.Teams.KeyAuthSQL(billing.AccessSQL("k.team_id")), apiPlans: billingapi.APIPlans()}
}

var (
	errTeamNotFound   = fault.NotFoundf("team not found")
	errMemberNotFound = fault.NotFoundf("member not found")
	errKeyNotFound    = fault.NotFoundf("API key not found")
)

func mapNotFound(err error, nf *fault.Error) error {
	if errors.Is(err, domain.ErrNotFound) {
		return nf
	}
	return err
}

// TeamView is a team with its billing facts, as GET /team and the admin show it.
type TeamView struct {
	Team    domain.Team
	Account billingapi.Account
}

// NewTeam is the admin's team creation input.
type NewTeam struct {
	Name, Code, Number, TimeZone string
	Plan                         billingapi.Plan
	CardOnFile, ApprovalRequired bool
	Trial                        bool
	TrialCredits                 int
	// JoinApprovalRequired: joiners wait for approval; nil: true.
	JoinApprovalRequired *bool
}

// CreateTeam creates a team and opens its billing account.
func (s *Service) CreateTeam(ctx context.Context, in NewTeam) (*TeamView, error) {
	t := &domain.Team{ID: id.New("team"), ApprovalRequired: in.ApprovalRequired, JoinApprovalRequired: true, CreatedAt: s.clock.Now().UTC()}
	setBool(&t.JoinApprovalRequired, in.JoinApprovalRequired)
	var err error
	if t.Name, err = domain.ValidName("name", in.Name); err != nil {
		return nil, err
	}
	if t.Code, err = domain.ValidCode(in.Code); err != nil {
		return nil, err
	}
	if in.Number != "" {
		if t.Number, err = domain.ValidPhone("number", in.Number); err != nil {
			return nil, err
		}
	}
	if t.TimeZone, err = domain.ValidTeamTimeZone(in.TimeZone); err != nil {
		return nil, err
	}
	if !in.Plan.Valid() {
		return nil, fault.Invalidf("plan %q is not a known plan", in.Plan)
	}
	if in.TrialCredits < 0 {
		return nil, fault.Invalidf("trial_credits must not be negative")
	}
	err = s.db.Tx(ctx, func(ctx context.Context) error {
		if err := s.st.Teams.InsertTeam(ctx, t); err != nil {
			return uniqueTeam(err)
		}
		return s.billing.Open(ctx, t.ID, billingapi.Settings{Plan: in.Plan, CardOnFile: in.CardOnFile, Trial: in.Trial, TrialCredits: in.TrialCredits})
	})
	if err != nil {
		return nil, err
	}
	return s.TeamView(ctx, t.ID)
}

func uniqueTeam(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "roster_teams_code_key"):
		return fault.New(fault.Conflict, fault.CodeConflict, "a team with this code already exists")
	case strings.Contains(msg, "roster_teams_number"):
		return fault.New(fault.Conflict, fault.CodeConflict, "another team already uses this number")
	}
	return err
}

// TeamView loads a team with its account.
func (s *Service) TeamView(ctx context.Context, teamID string) (*TeamView, error) {
	t, err := s.st.Teams.Team(ctx, teamID)
	if err != nil {
		return nil, mapNotFound(err, errTeamNotFound)
	}
	acc, err := s.billing.Get(ctx, teamID)
	if err != nil {
		return nil, fmt.Errorf("team %s account: %w", teamID, err)
	}
	return &TeamView{Team: *t, Account: acc}, nil
}

// TeamViewOf is GET /team's view from what the gate read (the principal's
// team and account) and this period's credits: one statement.
func (s *Service) TeamViewOf(ctx context.Context, p auth.Principal) (*TeamView, error) {
	acc, err := s.billing.WithCredits(ctx, billingapi.Standing{TeamID: p.TeamID, Plan: billingapi.Plan(p.Account.Plan),
		CardOnFile: p.Account.CardOnFile, PaymentState: p.Account.PaymentState, Trial: p.Account.Trial, TrialCredits: p.Account.TrialCredits}.Account())
	if err != nil {
		return nil, fmt.Errorf("team %s account: %w", p.TeamID, err)
	}
	t := domain.Team{ID: p.TeamID, Name: p.Team.Name, Code: p.TeamCode, Number: p.Team.Number, TimeZone: p.Team.TimeZone}
	return &TeamView{Team: t, Account: acc}, nil
}

// TeamPatch is the admin's team change; nil fields are left alone.
type TeamPatch struct {
	Name                 *string
	ApprovalRequired     *bool
	JoinApprovalRequired *bool
	Disabled             *bool
	Locked               *bool
	Billing              billingapi.Patch
}

// PatchTeam changes a team and its account in one transaction.
func (s *Service) PatchTeam(ctx context.Context, teamID string, p TeamPatch) (*TeamView, error) {
	if p.Billing.Plan != nil && !p.Billing.Plan.Valid() {
		return nil, fault.Invalidf("plan %q is not a known plan", *p.Billing.Plan)
	}
	if ps := p.Billing.PaymentState; ps != nil && *ps != billingapi.PaymentOK && *ps != billingapi.PaymentOverdue {
		return nil, fault.Invalidf("payment_state must be ok or overdue")
	}
	if tc := p.Billing.TrialCredits; tc != nil && *tc < 0 {
		return nil, fault.Invalidf("trial_credits must not be negative")
	}
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		t, err := s.st.Teams.Team(ctx, teamID)
		if err != nil {
			return mapNotFound(err, errTeamNotFound)
		}
		if p.Name != nil {
			if t.Name, err = domain.ValidName("name", *p.Name); err != nil {
				return err
			}
		}
		setBool(&t.ApprovalRequired, p.ApprovalRequired)
		setBool(&t.JoinApprovalRequired, p.JoinApprovalRequired)
		setBool(&t.Disabled, p.Disabled)
		setBool(&t.Locked, p.Locked)
		if err := s.st.Teams.UpdateTeam(ctx, t); err != nil {
			return err
		}
		return s.billing.Update(ctx, teamID, p.Billing)
	})
	if err != nil {
		return nil, err
	}
	return s.TeamView(ctx, teamID)
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

// NewMember is the input for adding someone to a roster.
type NewMember struct {
	Name, Phone, Email, Role string
	TimeZone                 string // the member's own IANA time zone; "": unset
	Status                   string // dashboard only: pending or active (default active)
	DashboardLogin           bool
	CanSendBroadcasts        *bool    // dashboard only; default: true for staff
	GroupIDs                 []string // groups of the team to join

	// Consent is the consent record given; its defaults come from the
	// Origin (source api, dashboard or import).
	Consent domain.ConsentInput
}

// Origin is where an add comes from. It sets what the add may carry and
// its defaults: the public API (POST /members) may give neither staff roles
// nor dashboard attributes; the dashboard and a roster import may.
type Origin struct {
	// Dashboard: staff roles, status, dashboard_login and
	// can_send_broadcasts may be given, and the team is checked to exist
	// (an API key's team always does).
	Dashboard bool
	// Source is the consent record's source when none is given; Channel is
	// the consent history's channel.
	Source, Channel string
}

// FromAPI is an add through the public API.
func FromAPI() Origin { return Origin{Source: domain.ConsentAPI, Channel: domain.ChannelAPI} }

// FromDashboard is an add through the admin API (the dashboard).
func FromDashboard() Origin {
	return Origin{Dashboard: true, Source: domain.ConsentDashboard, Channel: domain.ChannelAdmin}
}

// fromImport is a roster import's row: a dashboard add, consent import.
func fromImport() Origin {
	return Origin{Dashboard: true, Source: domain.ConsentImport, Channel: domain.ChannelImport}
}

// AddMember adds someone to a roster (POST /members, the dashboard's add):
// validate, apply the add rules, insert, keep the consent given, join the
// groups and publish member.joined for an active member, in one
// transaction. It answers the member with their groups (sorted) and their
// number's undeliverable mark.
func (s *Service) AddMember(ctx context.Context, teamID string, in NewMember, o Origin) (*MemberView, error) {
	var out *MemberView
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		m, groups, err := s.addMember(ctx, teamID, in, o)
		if err != nil {
			return err
		}
		if groups == nil {
			groups = []string{}
		}
		vs := []MemberView{{Member: *m, GroupIDs: groups}}
		if err := s.withUndeliverable(ctx, teamID, vs); err != nil { // a number marked on another entry is on this one too
			return err
		}
		out = &vs[0]
		return nil
	})
	return out, err
}

// addMember is AddMember without the view: the member as stored and the
// groups joined. A roster import's row calls it in its own transaction.
func (s *Service) addMember(ctx context.Context, teamID string, in NewMember, o Origin) (*domain.Member, []string, error) {
	now := s.clock.Now().UTC()
	m, err := domain.NewMember(id.New("mem"), teamID, domain.MemberInput{Name: in.Name, Phone: in.Phone, Email: in.Email, Role: in.Role, TimeZone: in.TimeZone,
		Status: in.Status, DashboardLogin: in.DashboardLogin, CanSendBroadcasts: in.CanSendBroadcasts}, o.Dashboard, now)
	if err != nil {
		return nil, nil, err
	}
	consent, err := domain.ValidConsent(in.Consent, o.Source, now)
	if err != nil {
		return nil, nil, err
	}
	setConsent(m, consent)
	var groups []string
	err = s.db.Tx(ctx, func(ctx context.Context) error {
		if o.Dashboard {
			if _, err := s.st.Teams.Team(ctx, teamID); err != nil {
				return mapNotFound(err, errTeamNotFound)
			}
		}
		if len(in.GroupIDs) > 0 { // none named: no statements for them
			var err error
			if groups, err = s.checkGroups(ctx, teamID, in.GroupIDs); err != nil {
				return err
			}
		}
		if err := s.checkNewEntry(ctx, teamID, m.Phone, m.Name, ""); err != nil {
			return err
		}
		if err := s.st.Members.InsertMember(ctx, m); err != nil {
			return err
		}
		if err := s.st.Consent.InsertConsentEvents(ctx, []domain.ConsentEvent{consentGiven(m, o.Channel, consent, now)}); err != nil {
			return err
		}
		if len(groups) > 0 {
			if err := s.st.Members.SetGroups(ctx, teamID, m.ID, groups); err != nil {
				return err
			}
		}
		if m.Joined() {
			return s.publishMember(ctx, events.MemberJoined, m)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return m, groups, nil
}

// MemberPatch is the dashboard's change to a member.
type MemberPatch struct {
	Role              *string
	DashboardLogin    *bool
	CanSendBroadcasts *bool
	IsBlocked         *bool
	TimeZone          *string // the member's own IANA time zone; "" clears it
}

// PatchMember changes dashboard-only attributes. When the member stops
// being able to own keys (no longer head coach or team director, or loses
// broadcast permission) their keys are revoked for good, and listeners hear
// of it in the same transaction.
func (s *Service) PatchMember(ctx context.Context, teamID, memberID string, p MemberPatch) (*domain.Member, error) {
	var out *domain.Member
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		wasOwner := false
		m, err := s.st.Members.UpdateMember(ctx, teamID, memberID, func(m *domain.Member) error {
			wasOwner = m.KeyOwner()
			if p.Role != nil {
				var err error
				if m.Role, err = domain.ValidRole(*p.Role, true); err != nil {
					return err
				}
			}
			setBool(&m.DashboardLogin, p.DashboardLogin)
			setBool(&m.CanSendBroadcasts, p.CanSendBroadcasts)
			setBool(&m.IsBlocked, p.IsBlocked)
			if p.TimeZone != nil {
				var err error
				if m.TimeZone, err = domain.ValidTimeZone("time_zone", *p.TimeZone); err != nil {
					return err
				}
			}
			m.UpdatedAt = s.clock.Now().UTC()
			return nil
		})
		if err != nil {
			return mapNotFound(err, errMemberNotFound)
		}
		if wasOwner && !m.KeyOwner() {
			reason := "creator_role_changed"
			if m.Role.CanOwnKeys() {
				reason = "creator_lost_broadcast_permission"
			}
			if err := s.revokeMemberKeys(ctx, m, reason); err != nil {
				return err
			}
			for _, l := range s.inactive {
				if err := l.OnOwnerInactive(ctx, rosterapi.OwnerInactive{TeamID: m.TeamID, MemberID: m.ID, Reason: reason}); err != nil {
					return fmt.Errorf("owner inactive listener: %w", err)
				}
			}
		}
		out = m
		return nil
	})
	return out, err
}

func (s *Service) revokeMemberKeys(ctx context.Context, m *domain.Member, reason string) error {
	keys, err := s.st.Teams.RevokeMemberKeys(ctx, m.TeamID, m.ID, reason, s.clock.Now().UTC())
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.notifyRevoked(ctx, rosterapi.KeyRevoked{TeamID: k.TeamID, KeyID: k.ID, MemberID: k.MemberID, Reason: reason}); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) notifyRevoked(ctx context.Context, ev rosterapi.KeyRevoked) error {
	for _, l := range s.listeners {
		if err := l.OnKeyRevoked(ctx, ev); err != nil {
			return fmt.Errorf("key revoked listener: %w", err)
		}
	}
	return nil
}

// ApproveMember lets a pending member join (member.joined).
func (s *Service) ApproveMember(ctx context.Context, teamID, memberID string) (*domain.Member, error) {
	var out *domain.Member
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		m, err := s.st.Members.UpdateMember(ctx, teamID, memberID, func(m *domain.Member) error {
			return m.Approve(s.clock.Now().UTC())
		})
		if err != nil {
			return mapNotFound(err, errMemberNotFound)
		}
		out = m
		return s.publishMember(ctx, events.MemberJoined, m)
	})
	return out, err
}

func (s *Service) publishMember(ctx context.Context, typ string, m *domain.Member) error {
	return s.events.Publish(ctx, memberEvent(typ, m))
}

// memberEvent is a member.* event with the spec's member payload.
func memberEvent(typ string, m *domain.Member) events.Event {
	return memberEventAt(typ, m, m.CreatedAt.UTC().Format(time.RFC3339Nano))
}

// memberEventAt is memberEvent with m's created_at already rendered
// (m.CreatedAt.UTC().Format(time.RFC3339Nano)): an import chunk's members
// share one.
func memberEventAt(typ string, m *domain.Member, createdAt string) events.Event {
	return events.Event{TeamID: m.TeamID, Type: typ, Data: map[string]any{"member": rosterapi.MemberObject{
		ID: m.ID, Name: m.Name, Phone: m.Phone, Email: m.Email, Role: string(m.Role), Status: m.Status,
		IsBlocked: m.IsBlocked, CreatedAt: createdAt,
	}}}
}

// CreatedKey is a new key with its value, shown once.
type CreatedKey struct {
	Key   domain.APIKey
	Value string
}

// CreateKey makes an API key acting for memberID, who must be an active
// head coach or team director with broadcast permission.
func (s *Service) CreateKey(ctx context.Context, teamID, memberID, name string) (*CreatedKey, error) {
	name, err := domain.ValidName("name", name)
	if err != nil {
		return nil, err
	}
	value, lookup, hash, err := auth.NewKey()
	if err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	k := domain.APIKey{ID: id.New("key"), TeamID: teamID, MemberID: memberID, Name: name, Lookup: lookup, Hash: hash, CreatedAt: s.clock.Now().UTC()}
	err = s.db.Tx(ctx, func(ctx context.Context) error {
		m, err := s.st.Members.Member(ctx, teamID, memberID)
		if err != nil {
			return mapNotFound(err, errMemberNotFound)
		}
		if !m.KeyOwner() || m.Status != domain.StatusActive {
			return fault.New(fault.Forbidden, fault.CodeForbidden, "only an active head coach or team director who may send broadcasts can create API keys")
		}
		return s.st.Teams.InsertKey(ctx, &k)
	})
	if err != nil {
		return nil, err
	}
	return &CreatedKey{Key: k, Value: value}, nil
}

// Keys lists a team's keys (never their values), limit+1 rows.
func (s *Service) Keys(ctx context.Context, teamID string, limit, offset int) ([]domain.APIKey, error) {
	if _, err := s.st.Teams.Team(ctx, teamID); err != nil {
		return nil, mapNotFound(err, errTeamNotFound)
	}
	return s.st.Teams.Keys(ctx, teamID, limit, offset)
}

// RevokeKey revokes a key in the dashboard, on any plan. Revoking a revoked
// key is a no-op that answers the key as it is.
func (s *Service) RevokeKey(ctx context.Context, teamID, keyID string) (*domain.APIKey, error) {
	var out *domain.APIKey
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		k, err := s.st.Teams.Key(ctx, teamID, keyID)
		if err != nil {
			return mapNotFound(err, errKeyNotFound)
		}
		out = k
		if k.RevokedAt != nil {
			return nil
		}
		now := s.clock.Now().UTC()
		k.RevokedAt, k.RevokedReason = &now, "revoked"
		if err := s.st.Teams.RevokeKey(ctx, k); err != nil {
			return err
		}
		return s.notifyRevoked(ctx, rosterapi.KeyRevoked{TeamID: teamID, KeyID: k.ID, MemberID: k.MemberID, Reason: "revoked"})
	})
	return out, err
}

// dummyHash keeps the unknown-key path doing the same comparison work.
var dummyHash = auth.Hash(auth.KeyPrefix + strings.Repeat("0", 40))

// Authenticate implements auth.Authenticator: the key must exist, match its
// hash and not be revoked; its creator must not be blocked, and its team
// must be neither disabled nor locked. The statement that reads the key
// also checks adm's limit when the key may act (KeyAuthSQL); the checks
// here, in the spec's order, say why it may not.
func (s *Service) Authenticate(ctx context.Context, key string, adm auth.Admission) (auth.Principal, *ratelimit.Decision, error) {
	hash := auth.Hash(key) // the statement's spending condition and the comparison below
	q := domain.KeyAuthQuery{Lookup: auth.Lookup(key), Hash: hash, Bucket: adm.Bucket, NeedCard: adm.NeedCard, Limit: adm.Limit}
	if !adm.AnyPlan {
		q.APIPlans = s.apiPlans
	}
	a, err := s.st.Teams.KeyAuth(ctx, s.keyAuthSQL, q)
	if errors.Is(err, domain.ErrNotFound) {
		auth.SameHash(hash, dummyHash)
		return auth.Principal{}, nil, auth.ErrInvalidKey
	}
	if err != nil {
		return auth.Principal{}, nil, err
	}
	if !auth.SameHash(hash, a.Hash) || a.RevokedAt != nil {
		return auth.Principal{}, nil, auth.ErrInvalidKey
	}
	p := auth.Principal{TeamID: a.TeamID, TeamCode: a.TeamCode, KeyID: a.KeyID, MemberID: a.MemberID,
		Team: auth.TeamInfo{Name: a.TeamName, Number: a.TeamNumber, TimeZone: a.TimeZone}}
	switch {
	case a.MemberGone:
		return p, nil, fault.New(fault.Forbidden, domain.CodeKeyOwnerInactive, "the key's creator is no longer on the roster")
	case a.Blocked:
		return p, nil, fault.New(fault.Forbidden, domain.CodeSenderBlocked, "the key's creator is blocked")
	case a.Disabled:
		return p, nil, fault.New(fault.Forbidden, domain.CodeTeamDisabled, "the team is disabled")
	case a.Locked:
		return p, nil, fault.New(fault.Forbidden, domain.CodeTeamLocked, "the team is locked")
	case a.Plan == nil:
		return p, nil, fmt.Errorf("team %s has no billing account", a.TeamID)
	}
	plan := billingapi.Plan(*a.Plan)
	p.Account = auth.AccountAccess{Plan: *a.Plan, APIIncluded: plan.IncludesAPI(), CardOnFile: *a.CardOnFile,
		PaymentState: *a.PaymentState, Trial: *a.Trial, TrialCredits: int(*a.TrialCredits)}
	return p, a.Limit, nil
}
