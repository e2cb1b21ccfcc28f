package service

import (
	"context"
	"sort"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
)

var errFieldNotFound = fault.NotFoundf("custom field not found")

// CustomFields lists a team's fields.
func (s *Service) CustomFields(ctx context.Context, teamID string) ([]domain.CustomField, error) {
	return s.st.Fields.CustomFields(ctx, teamID)
}

// CreateCustomField adds a field: at most 20 per team (field_limit); a
// label or key already used gives field_exists.
func (s *Service) CreateCustomField(ctx context.Context, teamID, label, key string, private bool) (*domain.CustomField, error) {
	label, err := domain.ValidName("label", label)
	if err != nil {
		return nil, err
	}
	if key, err = domain.FieldKey(key, label); err != nil {
		return nil, err
	}
	f := &domain.CustomField{ID: id.New("fld"), TeamID: teamID, Label: label, Key: key, Private: private, CreatedAt: s.clock.Now().UTC()}
	err = s.db.Tx(ctx, func(ctx context.Context) error {
		if err := s.st.Teams.LockTeam(ctx, teamID); err != nil {
			return err
		}
		existing, err := s.st.Fields.CustomFields(ctx, teamID)
		if err != nil {
			return err
		}
		for _, e := range existing {
			if e.Key == key || domain.SameName(e.Label, label) {
				return fault.New(fault.Conflict, domain.CodeFieldExists, "a custom field with this label or key exists").With("existing_field_id", e.ID)
			}
		}
		if len(existing) >= domain.FieldLimit {
			return fault.Newf(fault.Conflict, domain.CodeFieldLimit, "a team can have at most %d custom fields", domain.FieldLimit)
		}
		return s.st.Fields.InsertCustomField(ctx, f)
	})
	return f, err
}

// FieldChange changes a field's label or privacy; nil fields are left alone.
type FieldChange struct {
	Label   *string
	Private *bool
}

// ChangeCustomField renames a field and may make it private. Making a
// private field public is allowed only from the dashboard
// (private_field_locked otherwise).
func (s *Service) ChangeCustomField(ctx context.Context, teamID, fieldID string, c FieldChange, dashboard bool) (*domain.CustomField, error) {
	var f *domain.CustomField
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		if err := s.st.Teams.LockTeam(ctx, teamID); err != nil {
			return err
		}
		var err error
		if f, err = s.st.Fields.CustomField(ctx, teamID, fieldID); err != nil {
			return mapNotFound(err, errFieldNotFound)
		}
		if c.Private != nil && !*c.Private && f.Private && !dashboard {
			return fault.New(fault.Forbidden, domain.CodePrivateFieldLocked, "a private field can be made public only in the dashboard")
		}
		if c.Label != nil {
			label, err := domain.ValidName("label", *c.Label)
			if err != nil {
				return err
			}
			others, err := s.st.Fields.CustomFields(ctx, teamID)
			if err != nil {
				return err
			}
			for _, o := range others {
				if o.ID != f.ID && domain.SameName(o.Label, label) {
					return fault.New(fault.Conflict, domain.CodeFieldExists, "a custom field with this label exists").With("existing_field_id", o.ID)
				}
			}
			f.Label = label
		}
		if c.Private != nil {
			f.Private = *c.Private
		}
		return s.st.Fields.UpdateCustomField(ctx, f)
	})
	return f, err
}

// DeleteCustomField deletes a field and all its values. A private field can
// be deleted only from the dashboard (private_field_locked).
func (s *Service) DeleteCustomField(ctx context.Context, teamID, fieldID string, dashboard bool) error {
	return s.db.Tx(ctx, func(ctx context.Context) error {
		f, err := s.st.Fields.CustomField(ctx, teamID, fieldID)
		if err != nil {
			return mapNotFound(err, errFieldNotFound)
		}
		if f.Private && !dashboard {
			return fault.New(fault.Forbidden, domain.CodePrivateFieldLocked, "a private field can be deleted only in the dashboard")
		}
		return s.st.Fields.DeleteCustomField(ctx, f)
	})
}

// MemberValues returns a member's values by key; private fields are never returned.
func (s *Service) MemberValues(ctx context.Context, teamID, memberID string) (map[string]string, error) {
	if _, err := s.st.Members.Member(ctx, teamID, memberID); err != nil {
		return nil, mapNotFound(err, errMemberNotFound)
	}
	return s.publicValues(ctx, teamID, memberID)
}

func (s *Service) publicValues(ctx context.Context, teamID, memberID string) (map[string]string, error) {
	fields, err := s.st.Fields.CustomFields(ctx, teamID)
	if err != nil {
		return nil, err
	}
	vals, err := s.st.Fields.CustomValues(ctx, memberID)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, f := range fields {
		if v, ok := vals[f.ID]; ok && !f.Private {
			out[f.Key] = v
		}
	}
	return out, nil
}

// SetMemberValues writes values by key (private fields included; an empty
// string clears a value). Staff and members with a login are refused.
// Unknown keys are refused as a whole (nothing is written).
func (s *Service) SetMemberValues(ctx context.Context, teamID, memberID string, values map[string]string) (map[string]string, error) {
	var out map[string]string
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		m, err := s.st.Members.LockMember(ctx, teamID, memberID)
		if err != nil {
			return mapNotFound(err, errMemberNotFound)
		}
		if m.Protected() {
			return domain.ErrProtected()
		}
		fields, err := s.st.Fields.CustomFields(ctx, teamID)
		if err != nil {
			return err
		}
		byKey := map[string]domain.CustomField{}
		for _, f := range fields {
			byKey[f.Key] = f
		}
		keys := make([]string, 0, len(values))
		for k, v := range values {
			if _, ok := byKey[k]; !ok {
				return fault.Invalidf("values: %q is not a custom field key of this team", k)
			}
			if len(v) > 1000 {
				return fault.Invalidf("values: %q is longer than 1000 bytes", k)
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := s.st.Fields.SetCustomValue(ctx, memberID, byKey[k].ID, values[k]); err != nil {
				return err
			}
		}
		out, err = s.publicValues(ctx, teamID, memberID)
		return err
	})
	return out, err
}
