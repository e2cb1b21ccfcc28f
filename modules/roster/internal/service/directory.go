package service

import (
	"context"
	"errors"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"

	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/phone"
)

// Directory answers rosterapi.Teams straight from the repository. It is
// separate from Service so that modules the Service depends on (the event
// publisher) can read teams without an import cycle in the wiring.
type Directory struct{ st DirectoryStores }

// NewDirectory returns the team directory.
func NewDirectory(st DirectoryStores) *Directory { return &Directory{st: st} }

// Team implements rosterapi.Teams.
func (d *Directory) Team(ctx context.Context, teamID string) (rosterapi.Team, error) {
	t, err := d.st.Teams.Team(ctx, teamID)
	if err != nil {
		return rosterapi.Team{}, mapNotFound(err, errTeamNotFound)
	}
	return t.API(), nil
}

// TeamsByID implements rosterapi.Teams.
func (d *Directory) TeamsByID(ctx context.Context, teamIDs []string) (map[string]rosterapi.Team, error) {
	ts, err := d.st.Teams.TeamsByID(ctx, teamIDs)
	return teamsBy(ts, err, func(t *domain.Team) string { return t.ID })
}

// teamsBy maps teams read by a store to the contract's, keyed by key.
func teamsBy(ts []domain.Team, err error, key func(*domain.Team) string) (map[string]rosterapi.Team, error) {
	if err != nil {
		return nil, err
	}
	out := make(map[string]rosterapi.Team, len(ts))
	for i := range ts {
		out[key(&ts[i])] = ts[i].API()
	}
	return out, nil
}

// splitPairs is pairs as the parallel team and phone columns the stores
// take.
func splitPairs(pairs []rosterapi.TeamPhone) (teams, phones []string) {
	teams, phones = make([]string, len(pairs)), make([]string, len(pairs))
	for i, p := range pairs {
		teams[i], phones[i] = p.TeamID, string(p.Phone)
	}
	return teams, phones
}

// Member implements rosterapi.Members.
func (d *Directory) Member(ctx context.Context, teamID, memberID string) (rosterapi.Member, error) {
	m, err := d.st.Members.Member(ctx, teamID, memberID)
	if err != nil {
		return rosterapi.Member{}, mapNotFound(err, errMemberNotFound)
	}
	return MemberAPI(m), nil
}

// KeyOwners implements rosterapi.Members.
func (d *Directory) KeyOwners(ctx context.Context, teamID string) ([]rosterapi.Member, error) {
	ms, err := d.st.Members.MembersByRole(ctx, teamID, rosterapi.RoleHeadCoach, rosterapi.RoleTeamDirector)
	if err != nil {
		return nil, err
	}
	out := make([]rosterapi.Member, len(ms))
	for i := range ms {
		out[i] = MemberAPI(&ms[i])
	}
	return out, nil
}

// MemberAPI converts a row to the contract type.
func MemberAPI(m *domain.Member) rosterapi.Member {
	return rosterapi.Member{ID: m.ID, TeamID: m.TeamID, Name: m.Name, Phone: phone.Number(m.Phone), Email: m.Email, Role: m.Role,
		Status: m.Status, IsBlocked: m.IsBlocked, DashboardLogin: m.DashboardLogin, CanSendBroadcasts: m.CanSendBroadcasts,
		CreatedAt: m.CreatedAt}
}

// Recipients implements rosterapi.Audience.
func (d *Directory) Recipients(ctx context.Context, teamID, audience, groupID string) ([]rosterapi.Recipient, error) {
	a, err := messagingapi.ParseAudience(audience)
	if err != nil {
		return nil, fault.Invalidf("%v", err)
	}
	roles, _ := rosterapi.AudienceRoles(a)
	if a == messagingapi.AudienceGroup {
		if groupID == "" {
			return nil, fault.New(fault.Invalid, domain.CodeInvalidGroup, "audience group needs group_id")
		}
		if _, err := d.st.Groups.Group(ctx, teamID, groupID); err != nil {
			if errors.Is(err, domain.ErrNotFound) {
				return nil, fault.New(fault.Invalid, domain.CodeInvalidGroup, "group_id is not a group of this team")
			}
			return nil, err
		}
	} else if groupID != "" {
		return nil, fault.New(fault.Invalid, domain.CodeInvalidGroup, "group_id goes with audience group only")
	}
	return d.st.Members.Audience(ctx, teamID, roles, groupID)
}

// TeamByNumber implements rosterapi.Lookup.
func (d *Directory) TeamByNumber(ctx context.Context, e164 string) (rosterapi.Team, error) {
	t, err := d.st.Teams.TeamByNumber(ctx, e164)
	if err != nil {
		return rosterapi.Team{}, mapNotFound(err, errTeamNotFound)
	}
	return t.API(), nil
}

// MembersByPhone implements rosterapi.Lookup.
func (d *Directory) MembersByPhone(ctx context.Context, teamID string, number phone.Number) ([]rosterapi.Member, error) {
	ms, err := d.st.Members.MembersByPhone(ctx, teamID, string(number))
	if err != nil {
		return nil, err
	}
	out := make([]rosterapi.Member, len(ms))
	for i := range ms {
		out[i] = MemberAPI(&ms[i])
	}
	return out, nil
}

// TeamsByNumbers implements rosterapi.Lookup.
func (d *Directory) TeamsByNumbers(ctx context.Context, e164s []string) (map[string]rosterapi.Team, error) {
	ts, err := d.st.Teams.TeamsByNumbers(ctx, e164s)
	return teamsBy(ts, err, func(t *domain.Team) string { return t.Number })
}

// MembersByTeamPhones implements rosterapi.Lookup.
func (d *Directory) MembersByTeamPhones(ctx context.Context, pairs []rosterapi.TeamPhone) (map[rosterapi.TeamPhone][]rosterapi.Member, error) {
	out := map[rosterapi.TeamPhone][]rosterapi.Member{}
	if len(pairs) == 0 {
		return out, nil
	}
	teams, phones := splitPairs(pairs)
	ms, err := d.st.Members.MembersByTeamPhones(ctx, teams, phones)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		k := rosterapi.TeamPhone{TeamID: ms[i].TeamID, Phone: phone.Number(ms[i].Phone)}
		out[k] = append(out[k], MemberAPI(&ms[i]))
	}
	return out, nil
}

// CustomFieldKeys implements rosterapi.Lookup.
func (d *Directory) CustomFieldKeys(ctx context.Context, teamID string) (map[string]bool, error) {
	fs, err := d.st.Groups.CustomFields(ctx, teamID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(fs))
	for _, f := range fs {
		out[f.Key] = f.Private
	}
	return out, nil
}

// OptedOutAmong implements rosterapi.OptOuts.
func (d *Directory) OptedOutAmong(ctx context.Context, pairs []rosterapi.TeamPhone) ([]rosterapi.TeamPhone, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	teams, phones := splitPairs(pairs)
	got, err := d.st.Members.OptedOutAmong(ctx, teams, phones)
	if err != nil {
		return nil, err
	}
	out := make([]rosterapi.TeamPhone, len(got))
	for i, g := range got {
		out[i] = rosterapi.TeamPhone{TeamID: g[0], Phone: phone.Number(g[1])}
	}
	return out, nil
}

// IsOptedOut implements rosterapi.OptOuts.
func (d *Directory) IsOptedOut(ctx context.Context, teamID string, number phone.Number) (bool, error) {
	_, err := d.st.Members.OptOut(ctx, teamID, string(number))
	if errors.Is(err, domain.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// TimeZones implements rosterapi.Zones.
func (d *Directory) TimeZones(ctx context.Context, teamID string, phones []phone.Number) (map[phone.Number]string, error) {
	ps := make([]string, len(phones))
	for i, p := range phones {
		ps[i] = string(p)
	}
	zs, err := d.st.Teams.TimeZones(ctx, teamID, ps)
	if err != nil {
		return nil, err
	}
	out := make(map[phone.Number]string, len(zs))
	for p, z := range zs {
		out[phone.Number(p)] = z
	}
	return out, nil
}
