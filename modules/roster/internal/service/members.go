package service

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
)

// MemberView is a member with their group ids.
type MemberView struct {
	domain.Member
	GroupIDs []string
	// UndeliverableSince is when the member's number was marked
	// undeliverable (nil: it is not); see undeliverable.go.
	UndeliverableSince *time.Time
}

var errGroupNotFound = fault.NotFoundf("group not found")

// ListMembers lists a team's members with filters (limit+1 rows).
func (s *Service) ListMembers(ctx context.Context, teamID string, f domain.MemberFilter) ([]MemberView, error) {
	if f.Phone != "" {
		p, err := domain.ValidPhone("phone", f.Phone)
		if err != nil {
			return nil, err
		}
		f.Phone = p
	}
	if f.Role != "" {
		if _, err := domain.ValidRole(f.Role, true); err != nil {
			return nil, err
		}
	}
	switch f.Status {
	case "", domain.StatusActive, domain.StatusPending, domain.StatusOptedOut:
	default:
		return nil, fault.Invalidf("status must be pending, active or opted_out")
	}
	ms, groups, marks, err := s.st.Members.MemberPage(ctx, teamID, f)
	if err != nil {
		return nil, err
	}
	out := make([]MemberView, len(ms))
	for i := range ms {
		out[i] = MemberView{Member: ms[i], GroupIDs: groups[i], UndeliverableSince: marks[i]}
		if out[i].GroupIDs == nil {
			out[i].GroupIDs = []string{}
		}
	}
	return out, nil
}

func (s *Service) withGroups(ctx context.Context, ms []domain.Member) ([]MemberView, error) {
	ids := make([]string, len(ms))
	for i := range ms {
		ids[i] = ms[i].ID
	}
	groups, err := s.st.Members.GroupIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]MemberView, len(ms))
	for i := range ms {
		out[i] = MemberView{Member: ms[i], GroupIDs: groups[ms[i].ID]}
		if out[i].GroupIDs == nil {
			out[i].GroupIDs = []string{}
		}
	}
	if len(ms) > 0 {
		if err := s.withUndeliverable(ctx, ms[0].TeamID, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// GetMember returns one member with groups.
func (s *Service) GetMember(ctx context.Context, teamID, memberID string) (*MemberView, error) {
	m, err := s.st.Members.Member(ctx, teamID, memberID)
	if err != nil {
		return nil, mapNotFound(err, errMemberNotFound)
	}
	return s.view(ctx, m)
}

// view is one member's view, with its groups (and marks, as withGroups).
func (s *Service) view(ctx context.Context, m *domain.Member) (*MemberView, error) {
	vs, err := s.withGroups(ctx, []domain.Member{*m})
	if err != nil {
		return nil, err
	}
	return &vs[0], nil
}

func (s *Service) checkGroups(ctx context.Context, teamID string, ids []string) ([]string, error) {
	uniq := dedupe(ids)
	n, err := s.st.Groups.CountGroups(ctx, teamID, uniq)
	if err != nil {
		return nil, err
	}
	if n != len(uniq) {
		return nil, fault.New(fault.Invalid, domain.CodeInvalidGroup, "group_ids names a group that does not exist on this team")
	}
	return uniq, nil
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// checkNewEntry applies the roster's add rules to (phone, name) inside the
// phone's lock: an opted-out number cannot be added; the same phone and
// name is the same person (member_exists, or staff_member_protected when
// that person is staff or has a login). except skips one member (a PATCH).
func (s *Service) checkNewEntry(ctx context.Context, teamID, phone, name, except string) error {
	if err := s.st.Members.LockPhone(ctx, teamID, phone); err != nil {
		return err
	}
	if _, err := s.st.OptOuts.OptOut(ctx, teamID, phone); err == nil {
		return fault.New(fault.Conflict, domain.CodeOptedOut, "this number opted out (texted STOP or was recorded); the API cannot add it")
	} else if !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	same, err := s.st.Members.MembersByPhone(ctx, teamID, phone)
	if err != nil {
		return err
	}
	for _, o := range same {
		if o.ID == except || !domain.SameName(o.Name, name) {
			continue
		}
		if o.Protected() {
			return fault.New(fault.Forbidden, domain.CodeStaffMemberProtected, "this person is staff or has a dashboard login; change them in the dashboard")
		}
		return fault.New(fault.Conflict, domain.CodeMemberExists, "a member with this phone and name exists").With("existing_member_id", o.ID)
	}
	return nil
}

// MemberChange is PATCH /members/{id}; nil fields are left alone.
type MemberChange struct {
	Name, Phone, Email, Role *string
	TimeZone                 *string // the member's own IANA time zone; "" clears it
	GroupIDs                 *[]string
}

// ChangeMember is PATCH /members/{id}. Staff and members with a login are
// refused; an opted-out member's phone cannot change (that would
// re-subscribe them: opted_out_member); a new phone must not be opted out.
func (s *Service) ChangeMember(ctx context.Context, teamID, memberID string, c MemberChange) (*MemberView, error) {
	var out *MemberView
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		m, err := s.st.Members.UpdateMember(ctx, teamID, memberID, func(m *domain.Member) error {
			if m.Protected() {
				return domain.ErrProtected()
			}
			was := *m
			var err error
			if c.Name != nil {
				if m.Name, err = domain.ValidName("name", *c.Name); err != nil {
					return err
				}
			}
			phone := m.Phone
			if c.Phone != nil {
				if phone, err = domain.ValidPhone("phone", *c.Phone); err != nil {
					return err
				}
			}
			if c.Email != nil {
				if m.Email, err = domain.ValidEmail(*c.Email); err != nil {
					return err
				}
			}
			if c.Role != nil {
				if m.Role, err = domain.ValidRole(*c.Role, false); err != nil {
					return err
				}
			}
			if c.TimeZone != nil {
				if m.TimeZone, err = domain.ValidTimeZone("time_zone", *c.TimeZone); err != nil {
					return err
				}
			}
			if err := was.MayChangePhoneTo(phone); err != nil {
				return err
			}
			m.Phone = phone
			if m.Phone != was.Phone || !domain.SameName(m.Name, was.Name) {
				if err := s.checkNewEntry(ctx, teamID, m.Phone, m.Name, m.ID); err != nil {
					return err
				}
			}
			m.UpdatedAt = s.clock.Now().UTC()
			return nil
		})
		if err != nil {
			return mapNotFound(err, errMemberNotFound)
		}
		if c.GroupIDs != nil {
			groups, err := s.checkGroups(ctx, teamID, *c.GroupIDs)
			if err != nil {
				return err
			}
			if err := s.st.Members.SetGroups(ctx, teamID, m.ID, groups); err != nil {
				return err
			}
		}
		out, err = s.view(ctx, m)
		return err
	})
	return out, err
}

// RemoveMember is DELETE /members/{id}. An opted-out member is kept on
// record (hidden from lists; the opt-out stays); others are deleted.
func (s *Service) RemoveMember(ctx context.Context, teamID, memberID string) error {
	return s.db.Tx(ctx, func(ctx context.Context) error {
		m, err := s.st.Members.LockMember(ctx, teamID, memberID)
		if err != nil {
			return mapNotFound(err, errMemberNotFound)
		}
		kept, err := m.Remove(s.clock.Now().UTC())
		if err != nil {
			return err
		}
		if kept {
			return s.st.Members.WriteMember(ctx, m)
		}
		return s.st.Members.DeleteMember(ctx, m)
	})
}

// Groups lists a team's groups (limit+1 rows).
func (s *Service) Groups(ctx context.Context, teamID string, limit, offset int) ([]domain.Group, error) {
	return s.st.Groups.Groups(ctx, teamID, limit, offset)
}

// checkGroupChange applies the rules of a change to a group's members
// through the API, in its transaction: the group and the member are the
// team's (the member locked), and the member is not protected.
func (s *Service) checkGroupChange(ctx context.Context, teamID, groupID, memberID string) error {
	if _, err := s.st.Groups.Group(ctx, teamID, groupID); err != nil {
		return mapNotFound(err, errGroupNotFound)
	}
	m, err := s.st.Members.LockMember(ctx, teamID, memberID)
	if err != nil {
		return mapNotFound(err, errMemberNotFound)
	}
	if m.Protected() {
		return domain.ErrProtected()
	}
	return nil
}

// AddToGroup is POST /groups/{id}/members.
func (s *Service) AddToGroup(ctx context.Context, teamID, groupID, memberID string) (*MemberView, error) {
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		if err := s.checkGroupChange(ctx, teamID, groupID, memberID); err != nil {
			return err
		}
		return s.st.Groups.AddToGroup(ctx, teamID, groupID, memberID)
	})
	if err != nil {
		return nil, err
	}
	return s.GetMember(ctx, teamID, memberID)
}

// RemoveFromGroup is DELETE /groups/{id}/members/{member_id}.
func (s *Service) RemoveFromGroup(ctx context.Context, teamID, groupID, memberID string) error {
	return s.db.Tx(ctx, func(ctx context.Context) error {
		if err := s.checkGroupChange(ctx, teamID, groupID, memberID); err != nil {
			return err
		}
		removed, err := s.st.Groups.RemoveFromGroup(ctx, groupID, memberID)
		if err != nil {
			return err
		}
		if !removed {
			return fault.NotFoundf("the member is not in this group")
		}
		return nil
	})
}

// CreateGroup, RenameGroup and DeleteGroup are the dashboard's group operations.
func (s *Service) CreateGroup(ctx context.Context, teamID, name string) (*domain.Group, error) {
	name, err := domain.ValidName("name", name)
	if err != nil {
		return nil, err
	}
	g := &domain.Group{ID: id.New("grp"), TeamID: teamID, Name: name, CreatedAt: s.clock.Now().UTC()}
	err = s.db.Tx(ctx, func(ctx context.Context) error {
		if _, err := s.st.Teams.Team(ctx, teamID); err != nil {
			return mapNotFound(err, errTeamNotFound)
		}
		if err := s.st.Groups.InsertGroup(ctx, g); err != nil {
			if errors.Is(err, domain.ErrGroupNameTaken) {
				return fault.New(fault.Conflict, fault.CodeConflict, "a group with this name exists")
			}
			return err
		}
		return nil
	})
	return g, err
}

// RenameGroup renames a group.
func (s *Service) RenameGroup(ctx context.Context, teamID, groupID, name string) (*domain.Group, error) {
	name, err := domain.ValidName("name", name)
	if err != nil {
		return nil, err
	}
	var g *domain.Group
	err = s.db.Tx(ctx, func(ctx context.Context) error {
		if g, err = s.st.Groups.Group(ctx, teamID, groupID); err != nil {
			return mapNotFound(err, errGroupNotFound)
		}
		g.Name = name
		if err := s.st.Groups.UpdateGroup(ctx, g); err != nil {
			if errors.Is(err, domain.ErrGroupNameTaken) {
				return fault.New(fault.Conflict, fault.CodeConflict, "a group with this name exists")
			}
			return err
		}
		return nil
	})
	return g, err
}

// DeleteGroup deletes a group (members stay on the roster).
func (s *Service) DeleteGroup(ctx context.Context, teamID, groupID string) error {
	return s.db.Tx(ctx, func(ctx context.Context) error {
		g, err := s.st.Groups.Group(ctx, teamID, groupID)
		if err != nil {
			return mapNotFound(err, errGroupNotFound)
		}
		return s.st.Groups.DeleteGroup(ctx, g)
	})
}
