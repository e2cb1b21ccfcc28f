package service

import (
	"context"
	"errors"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/id"
)

// Templates lists live templates (limit+1 rows).
func (s *Service) Templates(ctx context.Context, teamID string, limit, offset int) ([]domain.Template, error) {
	return s.TemplateStore.Templates(ctx, teamID, limit, offset)
}

// Template returns one live template.
func (s *Service) Template(ctx context.Context, teamID, templateID string) (*domain.Template, error) {
	t, err := s.TemplateStore.Template(ctx, teamID, templateID)
	return t, mapNotFound(err, errTemplateNotFound)
}

// CreateTemplate adds a template: at most 200 live per team
// (template_limit); a live template's name gives template_exists; the name
// of a deleted template restores that template (same id) with the new body
// and type. urgent_alert only from the dashboard.
func (s *Service) CreateTemplate(ctx context.Context, teamID, name, body, messageType string, dashboard bool) (*domain.Template, bool, error) {
	f, err := domain.ValidTemplate(name, body, messageType, dashboard)
	if err != nil {
		return nil, false, err
	}
	var out *domain.Template
	restored := false
	err = s.DB.Tx(ctx, func(ctx context.Context) error {
		if err := s.TemplateStore.LockTemplates(ctx, teamID); err != nil {
			return err
		}
		existing, err := s.templateByName(ctx, teamID, f.Name)
		if err != nil {
			return err
		}
		if err := domain.NameTaken(existing); err != nil {
			return err
		}
		n, err := s.TemplateStore.CountTemplates(ctx, teamID)
		if err != nil {
			return err
		}
		if err := domain.CheckTemplateRoom(n); err != nil {
			return err
		}
		now := s.Clock.Now().UTC()
		if existing != nil {
			existing.Restore(f, now)
			out, restored = existing, true
			return s.TemplateStore.WriteTemplate(ctx, existing)
		}
		t := domain.NewTemplate(id.New("tpl"), teamID, f, now)
		out = &t
		return s.TemplateStore.InsertTemplate(ctx, out)
	})
	return out, restored, err
}

// templateByName is the team's template with that name, deleted or not,
// locked; nil when there is none.
func (s *Service) templateByName(ctx context.Context, teamID, name string) (*domain.Template, error) {
	t, err := s.TemplateStore.TemplateByName(ctx, teamID, name)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, nil
	}
	return t, err
}

// TemplateChange changes a template; nil fields are left alone.
type TemplateChange = domain.TemplateChange

// ChangeTemplate edits a template through the API: urgent-alert templates
// are protected (template_protected) and none can become one
// (urgent_not_allowed). Taking the name of a deleted template sets that
// one aside ("<name> (deleted <id>)"); a live one's gives template_exists.
func (s *Service) ChangeTemplate(ctx context.Context, teamID, templateID string, c TemplateChange) (*domain.Template, error) {
	var out *domain.Template
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		if err := s.TemplateStore.LockTemplates(ctx, teamID); err != nil {
			return err
		}
		t, err := s.TemplateStore.UpdateTemplate(ctx, teamID, templateID, func(t *domain.Template) error {
			f, err := t.Change(c)
			if err != nil {
				return err
			}
			if f.Name != t.Name {
				other, err := s.templateByName(ctx, teamID, f.Name)
				if err != nil {
					return err
				}
				if other != nil && other.ID != t.ID {
					if err := domain.NameTaken(other); err != nil {
						return err
					}
					other.SetAside()
					if err := s.TemplateStore.WriteTemplate(ctx, other); err != nil {
						return err
					}
				}
			}
			t.Apply(f, s.Clock.Now().UTC())
			return nil
		})
		out = t
		return mapNotFound(err, errTemplateNotFound)
	})
	return out, err
}

// DeleteTemplate deletes a template (kept, so its name can restore it).
func (s *Service) DeleteTemplate(ctx context.Context, teamID, templateID string, dashboard bool) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		_, err := s.TemplateStore.UpdateTemplate(ctx, teamID, templateID, func(t *domain.Template) error {
			return t.Delete(dashboard, s.Clock.Now().UTC())
		})
		return mapNotFound(err, errTemplateNotFound)
	})
}
