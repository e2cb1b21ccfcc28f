// Package rostertest is an in-memory roster for other modules' tests:
// Roster implements the roster contracts they consume (teams, members,
// audiences, lookups, opt-outs and keyword texts, stats, group joins) over
// maps. Exercise is the contract suite it shares with the real module, so
// that what a test learns from the fake holds of the roster on Postgres.
//
// Where it differs, by nature: writes apply at once (a caller's
// transaction that rolls back does not undo an opt-out), no events are
// published, and no number is ever marked undeliverable (it has no
// rosterapi.Deliverability).
package rostertest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

// Contracts are the roster contracts the fake implements: what Exercise
// holds the fake and the module to.
type Contracts interface {
	rosterapi.Teams
	rosterapi.Members
	rosterapi.Audience
	rosterapi.Lookup
	rosterapi.OptOuts
	rosterapi.Keywords
	rosterapi.Stats
	rosterapi.GroupMembers
}

// Seeder puts what no contract writes on a roster: teams, entries, groups
// and custom fields. It refuses what the module's tables refuse.
type Seeder interface {
	// AddTeam adds a team: ids, codes and (non-empty) numbers are unique.
	AddTeam(ctx context.Context, t rosterapi.Team) error
	// AddMember adds a roster entry; ids are unique. The team is not
	// checked: the module's storage leaves that to the use cases.
	AddMember(ctx context.Context, m rosterapi.Member) error
	// AddGroup adds a group to an existing team; names are unique per
	// team, without case.
	AddGroup(ctx context.Context, teamID, groupID, name string) error
	// AddCustomField adds a custom field (key and label key) to an
	// existing team; keys are unique per team.
	AddCustomField(ctx context.Context, teamID, key string, private bool) error
}

// Roster is an in-memory roster. The zero value is not usable: use New.
type Roster struct {
	clock clock.Clock

	mu          sync.Mutex
	teams       map[string]rosterapi.Team
	members     map[string]rosterapi.Member
	groups      map[string]group
	memberships map[string]map[string]bool // group id → member ids
	fields      map[string]map[string]bool // team id → key → private
	optOuts     map[rosterapi.TeamPhone]time.Time
	keywords    []rosterapi.KeywordText
	failKeyword func(rosterapi.KeywordText) error
}

type group struct{ teamID, name string }

var (
	_ Contracts = (*Roster)(nil)
	_ Seeder    = (*Roster)(nil)
)

// New returns an empty roster on clk (which dates opt-outs).
func New(clk clock.Clock) *Roster {
	return &Roster{clock: clk, teams: map[string]rosterapi.Team{}, members: map[string]rosterapi.Member{}, groups: map[string]group{},
		memberships: map[string]map[string]bool{}, fields: map[string]map[string]bool{}, optOuts: map[rosterapi.TeamPhone]time.Time{}}
}

// The module's answers for what is not there.
func errTeamNotFound() error   { return fault.NotFoundf("team not found") }
func errMemberNotFound() error { return fault.NotFoundf("member not found") }

// AddTeam implements Seeder.
func (r *Roster) AddTeam(_ context.Context, t rosterapi.Team) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.teams {
		switch {
		case o.ID == t.ID:
			return fmt.Errorf("insert team: id %s taken", t.ID)
		case o.Code == t.Code:
			return fmt.Errorf("insert team: code %q taken", t.Code)
		case t.Number != "" && o.Number == t.Number:
			return fmt.Errorf("insert team: number taken by %s", o.ID)
		}
	}
	r.teams[t.ID] = t
	return nil
}

// UpdateTeam changes a team as the dashboard's settings would.
func (r *Roster) UpdateTeam(teamID string, change func(*rosterapi.Team)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.teams[teamID]
	if !ok {
		return errTeamNotFound()
	}
	change(&t)
	t.ID = teamID
	r.teams[teamID] = t
	return nil
}

// AddMember implements Seeder.
func (r *Roster) AddMember(_ context.Context, m rosterapi.Member) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.members[m.ID]; ok {
		return fmt.Errorf("insert member: id %s taken", m.ID)
	}
	r.members[m.ID] = m
	return nil
}

// UpdateMember changes a team's entry as the roster's use cases would
// (status, role, block...).
func (r *Roster) UpdateMember(teamID, memberID string, change func(*rosterapi.Member)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.members[memberID]
	if !ok || m.TeamID != teamID {
		return errMemberNotFound()
	}
	change(&m)
	m.ID, m.TeamID = memberID, teamID
	r.members[memberID] = m
	return nil
}

// AddGroup implements Seeder.
func (r *Roster) AddGroup(_ context.Context, teamID, groupID, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.teams[teamID]; !ok {
		return fmt.Errorf("insert group: no team %s", teamID)
	}
	if _, ok := r.groups[groupID]; ok {
		return fmt.Errorf("insert group: id %s taken", groupID)
	}
	for _, g := range r.groups {
		if g.teamID == teamID && strings.EqualFold(g.name, name) {
			return fmt.Errorf("insert group: name %q taken", name)
		}
	}
	r.groups[groupID] = group{teamID: teamID, name: name}
	return nil
}

// AddCustomField implements Seeder.
func (r *Roster) AddCustomField(_ context.Context, teamID, key string, private bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.teams[teamID]; !ok {
		return fmt.Errorf("insert custom field: no team %s", teamID)
	}
	if r.fields[teamID] == nil {
		r.fields[teamID] = map[string]bool{}
	}
	for k := range r.fields[teamID] {
		if strings.EqualFold(k, key) {
			return fmt.Errorf("insert custom field: key %q taken", key)
		}
	}
	r.fields[teamID][key] = private
	return nil
}

// Team implements rosterapi.Teams.
func (r *Roster) Team(_ context.Context, teamID string) (rosterapi.Team, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.teams[teamID]
	if !ok {
		return rosterapi.Team{}, errTeamNotFound()
	}
	return t, nil
}

// TeamsByID implements rosterapi.Teams.
func (r *Roster) TeamsByID(_ context.Context, teamIDs []string) (map[string]rosterapi.Team, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]rosterapi.Team, len(teamIDs))
	for _, id := range teamIDs {
		if t, ok := r.teams[id]; ok {
			out[id] = t
		}
	}
	return out, nil
}

// TeamByNumber implements rosterapi.Lookup.
func (r *Roster) TeamByNumber(_ context.Context, e164 string) (rosterapi.Team, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.teamByNumber(e164); ok {
		return t, nil
	}
	return rosterapi.Team{}, errTeamNotFound()
}

// teamByNumber finds the team with number e164; r.mu is held.
func (r *Roster) teamByNumber(e164 string) (rosterapi.Team, bool) {
	for _, t := range r.teams {
		if e164 != "" && string(t.Number) == e164 {
			return t, true
		}
	}
	return rosterapi.Team{}, false
}

// TeamsByNumbers implements rosterapi.Lookup.
func (r *Roster) TeamsByNumbers(_ context.Context, e164s []string) (map[string]rosterapi.Team, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]rosterapi.Team, len(e164s))
	for _, n := range e164s {
		if t, ok := r.teamByNumber(n); ok {
			out[n] = t
		}
	}
	return out, nil
}

// entries are the team's entries that match, oldest first (created_at,
// then id, as the module orders them); r.mu is held.
func (r *Roster) entries(teamID string, match func(rosterapi.Member) bool) []rosterapi.Member {
	var out []rosterapi.Member
	for _, m := range r.members {
		if m.TeamID == teamID && match(m) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b rosterapi.Member) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Member implements rosterapi.Members.
func (r *Roster) Member(_ context.Context, teamID, memberID string) (rosterapi.Member, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.members[memberID]
	if !ok || m.TeamID != teamID {
		return rosterapi.Member{}, errMemberNotFound()
	}
	return m, nil
}

// KeyOwners implements rosterapi.Members: the team's head coaches and team
// directors, whatever their status, oldest first.
func (r *Roster) KeyOwners(_ context.Context, teamID string) ([]rosterapi.Member, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.entries(teamID, func(m rosterapi.Member) bool { return m.Role.CanOwnKeys() }), nil
}

// MembersByPhone implements rosterapi.Lookup.
func (r *Roster) MembersByPhone(_ context.Context, teamID string, number phone.Number) ([]rosterapi.Member, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.entries(teamID, func(m rosterapi.Member) bool { return m.Phone == number }), nil
}

// MembersByTeamPhones implements rosterapi.Lookup.
func (r *Roster) MembersByTeamPhones(_ context.Context, pairs []rosterapi.TeamPhone) (map[rosterapi.TeamPhone][]rosterapi.Member, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[rosterapi.TeamPhone][]rosterapi.Member{}
	for _, p := range pairs {
		if _, done := out[p]; done {
			continue
		}
		if ms := r.entries(p.TeamID, func(m rosterapi.Member) bool { return m.Phone == p.Phone }); len(ms) > 0 {
			out[p] = ms
		}
	}
	return out, nil
}

// CustomFieldKeys implements rosterapi.Lookup.
func (r *Roster) CustomFieldKeys(_ context.Context, teamID string) (map[string]bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]bool, len(r.fields[teamID]))
	for k, private := range r.fields[teamID] {
		out[k] = private
	}
	return out, nil
}

// Recipients implements rosterapi.Audience: the active, unblocked entries
// of the audience whose number is not opted out, oldest first.
func (r *Roster) Recipients(_ context.Context, teamID, audience, groupID string) ([]rosterapi.Recipient, error) {
	a, err := messagingapi.ParseAudience(audience)
	if err != nil {
		return nil, fault.Invalidf("%v", err)
	}
	roles, _ := rosterapi.AudienceRoles(a)
	r.mu.Lock()
	defer r.mu.Unlock()
	if a == messagingapi.AudienceGroup {
		if groupID == "" {
			return nil, fault.New(fault.Invalid, rosterapi.CodeInvalidGroup, "audience group needs group_id")
		}
		if g, ok := r.groups[groupID]; !ok || g.teamID != teamID {
			return nil, fault.New(fault.Invalid, rosterapi.CodeInvalidGroup, "group_id is not a group of this team")
		}
	} else if groupID != "" {
		return nil, fault.New(fault.Invalid, rosterapi.CodeInvalidGroup, "group_id goes with audience group only")
	}
	ms := r.entries(teamID, func(m rosterapi.Member) bool {
		_, opted := r.optOuts[rosterapi.TeamPhone{TeamID: teamID, Phone: m.Phone}]
		return m.Status == "active" && !m.IsBlocked && !opted && (len(roles) == 0 || slices.Contains(roles, m.Role)) &&
			(groupID == "" || r.memberships[groupID][m.ID])
	})
	var out []rosterapi.Recipient
	for _, m := range ms {
		out = append(out, rosterapi.Recipient{MemberID: m.ID, Phone: m.Phone, Name: m.Name, Role: m.Role})
	}
	return out, nil
}

// OptOutBySMS implements rosterapi.OptOuts.
func (r *Roster) OptOutBySMS(_ context.Context, teamID string, number phone.Number) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.optOut(teamID, number)
	return nil
}

// optOut records the number's opt-out (once) and makes its entries
// opted_out; it reports whether the record is new. r.mu is held.
func (r *Roster) optOut(teamID string, number phone.Number) bool {
	p := rosterapi.TeamPhone{TeamID: teamID, Phone: number}
	_, was := r.optOuts[p]
	if !was {
		r.optOuts[p] = r.clock.Now().UTC()
	}
	r.setStatus(teamID, number, "opted_out")
	return !was
}

// optIn removes the number's opt-out and, when there was one, makes its
// entries active; it reports whether there was one. r.mu is held.
func (r *Roster) optIn(teamID string, number phone.Number) bool {
	p := rosterapi.TeamPhone{TeamID: teamID, Phone: number}
	if _, was := r.optOuts[p]; !was {
		return false
	}
	delete(r.optOuts, p)
	r.setStatus(teamID, number, "active")
	return true
}

// setStatus sets the status of the team's entries with number; r.mu is held.
func (r *Roster) setStatus(teamID string, number phone.Number, status string) {
	for id, m := range r.members {
		if m.TeamID == teamID && m.Phone == number {
			m.Status = status
			r.members[id] = m
		}
	}
}

// OptInBySMS implements rosterapi.OptOuts.
func (r *Roster) OptInBySMS(_ context.Context, teamID string, number phone.Number) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.optIn(teamID, number), nil
}

// IsOptedOut implements rosterapi.OptOuts.
func (r *Roster) IsOptedOut(_ context.Context, teamID string, number phone.Number) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.optOuts[rosterapi.TeamPhone{TeamID: teamID, Phone: number}]
	return ok, nil
}

// OptedOutAmong implements rosterapi.OptOuts.
func (r *Roster) OptedOutAmong(_ context.Context, pairs []rosterapi.TeamPhone) ([]rosterapi.TeamPhone, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []rosterapi.TeamPhone
	for _, p := range pairs {
		if _, ok := r.optOuts[p]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// Keyword implements rosterapi.Keywords: stop opts the number out, start
// back in, help changes nothing; each is kept (KeywordTexts).
func (r *Roster) Keyword(_ context.Context, k rosterapi.KeywordText) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failKeyword != nil {
		if err := r.failKeyword(k); err != nil {
			return false, err
		}
	}
	var changed bool
	switch k.Keyword {
	case "stop":
		changed = r.optOut(k.TeamID, k.Phone)
	case "start":
		changed = r.optIn(k.TeamID, k.Phone)
	case "help":
	default:
		return false, fmt.Errorf("consent: unknown keyword %q", k.Keyword)
	}
	r.keywords = append(r.keywords, k)
	return changed, nil
}

// KeywordTexts are the keyword texts the roster kept, in order: the
// consent history's rows, for tests to read.
func (r *Roster) KeywordTexts() []rosterapi.KeywordText {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.keywords)
}

// FailKeywords makes Keyword answer fail's error, when not nil, before it
// changes anything: a refusal the fake cannot reach by itself (a database
// that fails). nil clears it.
func (r *Roster) FailKeywords(fail func(rosterapi.KeywordText) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failKeyword = fail
}

// Counts implements rosterapi.Stats: entries created in [from, to) that are
// not pending, and opt-outs recorded in it.
func (r *Roster) Counts(_ context.Context, teamID string, from, to time.Time) (newMembers, optOuts int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	newMembers = len(r.entries(teamID, func(m rosterapi.Member) bool { return m.Status != "pending" && in(m.CreatedAt) }))
	for p, at := range r.optOuts {
		if p.TeamID == teamID && in(at) {
			optOuts++
		}
	}
	return newMembers, optOuts, nil
}

// IsGroup implements rosterapi.GroupMembers.
func (r *Roster) IsGroup(_ context.Context, teamID, groupID string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.groups[groupID]
	return ok && g.teamID == teamID, nil
}

// JoinGroups implements rosterapi.GroupMembers.
func (r *Roster) JoinGroups(_ context.Context, joins []rosterapi.GroupJoin) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	added := 0
	for _, j := range joins {
		if g, ok := r.groups[j.GroupID]; !ok || g.teamID != j.TeamID {
			continue
		}
		for _, m := range r.entries(j.TeamID, func(m rosterapi.Member) bool { return m.Phone == j.Phone }) {
			if r.memberships[j.GroupID] == nil {
				r.memberships[j.GroupID] = map[string]bool{}
			}
			if !r.memberships[j.GroupID][m.ID] {
				r.memberships[j.GroupID][m.ID] = true
				added++
			}
		}
	}
	return added, nil
}
