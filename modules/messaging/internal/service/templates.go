package service

import (
	"context"
	"errors"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/text"
)

// Templates lists live templates (limit+1 rows).
func (s *Service) Templates(ctx context.Context, teamID string, limit, offset int) ([]postgres.Template, error) {
	return s.TemplateStore.Templates(ctx, teamID, limit, offset)
}

// Template returns one live template.
func (s *Service) Template(ctx context.Context, teamID, templateID string) (*postgres.Template, error) {
	t, err := s.TemplateStore.Template(ctx, teamID, templateID, false, false)
	return t, mapNotFound(err, errTemplateNotFound)
}

// CreateTemplate adds a template: at most 200 live per team
// (template_limit); a live template's name gives template_exists; the name
// of a deleted template restores that template (same id) with the new body
// and type. urgent_alert only from the dashboard.
func (s *Service) CreateTemplate(ctx context.Context, teamID, name, body, messageType string, dashboard bool) (*postgres.Template, bool, error) {
	name, body, mt, err := validTemplate(name, body, messageType, dashboard)
	if err != nil {
		return nil, false, err
	}
	var out *postgres.Template
	restored := false
	err = s.DB.Tx(ctx, func(ctx context.Context) error {
		if err := s.TemplateStore.LockTemplates(ctx, teamID); err != nil {
			return err
		}
		existing, err := s.TemplateStore.TemplateByName(ctx, teamID, name)
		if err != nil && !errors.Is(err, postgres.ErrNotFound) {
			return err
		}
		if existing != nil && existing.DeletedAt == nil {
			return fault.New(fault.Conflict, domain.CodeTemplateExists, "a template with this name exists").With("existing_template_id", existing.ID)
		}
		n, err := s.TemplateStore.CountTemplates(ctx, teamID)
		if err != nil {
			return err
		}
		if n >= domain.TemplateLimit {
			return fault.Newf(fault.Conflict, domain.CodeTemplateLimit, "a team can have at most %d templates", domain.TemplateLimit)
		}
		now := s.Clock.Now().UTC()
		if existing != nil {
			existing.Name, existing.Body, existing.MessageType, existing.DeletedAt, existing.UpdatedAt = name, body, mt, nil, now
			out, restored = existing, true
			return s.TemplateStore.UpdateTemplate(ctx, existing)
		}
		out = &postgres.Template{ID: id.New("tpl"), TeamID: teamID, Name: name, Body: body, MessageType: mt, CreatedAt: now, UpdatedAt: now}
		return s.TemplateStore.InsertTemplate(ctx, out)
	})
	return out, restored, err
}

func validTemplate(name, body, messageType string, dashboard bool) (string, string, string, error) {
	if name == "" || len([]rune(name)) > 100 {
		return "", "", "", fault.Invalidf("name must be 1 to 100 characters")
	}
	if !text.Visible(name) {
		return "", "", "", fault.Invalidf("name must have a visible character (not only spaces or zero-width characters)")
	}
	body, err := domain.ValidText(body)
	if err != nil {
		return "", "", "", fault.Invalidf("body: %s", err.(*fault.Error).Message)
	}
	mt, err := domain.ValidMessageType(messageType, dashboard)
	return name, body, mt, err
}

// TemplateChange changes a template; nil fields are left alone.
type TemplateChange struct {
	Name, Body, MessageType *string
}

// ChangeTemplate edits a template through the API: urgent-alert templates
// are protected (template_protected) and none can become one (urgent_not_allowed).
func (s *Service) ChangeTemplate(ctx context.Context, teamID, templateID string, c TemplateChange) (*postgres.Template, error) {
	var out *postgres.Template
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		if err := s.TemplateStore.LockTemplates(ctx, teamID); err != nil {
			return err
		}
		t, err := s.TemplateStore.Template(ctx, teamID, templateID, false, true)
		if err != nil {
			return mapNotFound(err, errTemplateNotFound)
		}
		if t.MessageType == domain.TypeUrgentAlert {
			return fault.New(fault.Forbidden, domain.CodeTemplateProtected, "urgent-alert templates can be changed only in the dashboard")
		}
		name, body, mt := t.Name, t.Body, t.MessageType
		if c.Name != nil {
			name = *c.Name
		}
		if c.Body != nil {
			body = *c.Body
		}
		if c.MessageType != nil {
			mt = *c.MessageType
		}
		if name, body, mt, err = validTemplate(name, body, mt, false); err != nil {
			return err
		}
		if name != t.Name {
			other, err := s.TemplateStore.TemplateByName(ctx, teamID, name)
			if err != nil && !errors.Is(err, postgres.ErrNotFound) {
				return err
			}
			if other != nil && other.ID != t.ID {
				if other.DeletedAt == nil {
					return fault.New(fault.Conflict, domain.CodeTemplateExists, "a template with this name exists").With("existing_template_id", other.ID)
				}
				other.Name = other.Name + " (deleted " + other.ID + ")"
				if err := s.TemplateStore.UpdateTemplate(ctx, other); err != nil {
					return err
				}
			}
		}
		t.Name, t.Body, t.MessageType, t.UpdatedAt = name, body, mt, s.Clock.Now().UTC()
		out = t
		return s.TemplateStore.UpdateTemplate(ctx, t)
	})
	return out, err
}

// DeleteTemplate deletes a template (kept, so its name can restore it).
func (s *Service) DeleteTemplate(ctx context.Context, teamID, templateID string, dashboard bool) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		t, err := s.TemplateStore.Template(ctx, teamID, templateID, false, true)
		if err != nil {
			return mapNotFound(err, errTemplateNotFound)
		}
		if t.MessageType == domain.TypeUrgentAlert && !dashboard {
			return fault.New(fault.Forbidden, domain.CodeTemplateProtected, "urgent-alert templates can be deleted only in the dashboard")
		}
		now := s.Clock.Now().UTC()
		t.DeletedAt, t.UpdatedAt = &now, now
		return s.TemplateStore.UpdateTemplate(ctx, t)
	})
}
