package domain

import (
	"time"
	"unicode/utf8"

	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/text"
)

// Template is a team's saved message. A deleted template is kept (DeletedAt
// set), so that creating one with its name restores it under the same id.
// urgent_alert templates are the dashboard's: the API can neither make,
// change nor delete one.
type Template struct {
	ID          string
	TeamID      string
	Name        string
	Body        string
	MessageType string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	DeletedAt   *time.Time
}

// TemplateFields are a template's checked name, body and type.
type TemplateFields struct {
	Name, Body, MessageType string
}

// ValidTemplate checks a template's name (1 to 100 characters, something
// visible), body (as a send's text) and type (urgent_alert only from the
// dashboard; "" is standard).
func ValidTemplate(name, body, messageType string, dashboard bool) (TemplateFields, error) {
	if name == "" || utf8.RuneCountInString(name) > 100 {
		return TemplateFields{}, fault.Invalidf("name must be 1 to 100 characters")
	}
	if !text.Visible(name) {
		return TemplateFields{}, fault.Invalidf("name must have a visible character (not only spaces or zero-width characters)")
	}
	body, err := ValidText(body)
	if err != nil {
		return TemplateFields{}, fault.Invalidf("body: %s", err.(*fault.Error).Message)
	}
	mt, err := ValidMessageType(messageType, dashboard)
	if err != nil {
		return TemplateFields{}, err
	}
	return TemplateFields{Name: name, Body: body, MessageType: mt}, nil
}

// NewTemplate is a new live template with checked fields.
func NewTemplate(id, teamID string, f TemplateFields, now time.Time) Template {
	return Template{ID: id, TeamID: teamID, Name: f.Name, Body: f.Body, MessageType: f.MessageType, CreatedAt: now, UpdatedAt: now}
}

// Live reports whether the template is not deleted.
func (t *Template) Live() bool { return t.DeletedAt == nil }

// CheckTemplateRoom refuses a new live template when the team has
// TemplateLimit of them already (template_limit).
func CheckTemplateRoom(live int) error {
	if live >= TemplateLimit {
		return fault.Newf(fault.Conflict, CodeTemplateLimit, "a team can have at most %d templates", TemplateLimit)
	}
	return nil
}

// NameTaken is the template_exists refusal when t, found by a name, is live;
// nil when t is nil or deleted (its name may be taken over).
func NameTaken(t *Template) error {
	if t == nil || !t.Live() {
		return nil
	}
	return fault.New(fault.Conflict, CodeTemplateExists, "a template with this name exists").With("existing_template_id", t.ID)
}

// Restore brings a deleted template back with new fields (same id).
func (t *Template) Restore(f TemplateFields, now time.Time) {
	t.Name, t.Body, t.MessageType, t.DeletedAt, t.UpdatedAt = f.Name, f.Body, f.MessageType, nil, now
}

// TemplateChange changes a template; nil fields are left alone.
type TemplateChange struct {
	Name, Body, MessageType *string
}

// Change applies an API change: urgent-alert templates are protected
// (template_protected), and the result is checked as a new API template
// would be (so none becomes urgent: urgent_not_allowed). It returns the
// checked fields without applying them; Apply does.
func (t *Template) Change(c TemplateChange) (TemplateFields, error) {
	if t.MessageType == TypeUrgentAlert {
		return TemplateFields{}, fault.New(fault.Forbidden, CodeTemplateProtected, "urgent-alert templates can be changed only in the dashboard")
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
	return ValidTemplate(name, body, mt, false)
}

// Apply sets checked fields.
func (t *Template) Apply(f TemplateFields, now time.Time) {
	t.Name, t.Body, t.MessageType, t.UpdatedAt = f.Name, f.Body, f.MessageType, now
}

// SetAside renames a deleted template whose name a live one takes over, so
// the names stay unique: "<name> (deleted <id>)".
func (t *Template) SetAside() { t.Name = t.Name + " (deleted " + t.ID + ")" }

// Delete deletes the template (kept, so its name can restore it);
// urgent-alert templates only from the dashboard (template_protected).
func (t *Template) Delete(dashboard bool, now time.Time) error {
	if t.MessageType == TypeUrgentAlert && !dashboard {
		return fault.New(fault.Forbidden, CodeTemplateProtected, "urgent-alert templates can be deleted only in the dashboard")
	}
	t.DeletedAt, t.UpdatedAt = &now, now
	return nil
}

// Sendable checks the template may be sent by a sender: urgent-alert
// templates only when urgent sends are allowed (never through the API).
func (t *Template) Sendable(allowUrgent bool) error {
	if t.MessageType == TypeUrgentAlert && !allowUrgent {
		return fault.New(fault.Invalid, CodeUrgentNotAllowed, "urgent-alert templates cannot be sent through the API")
	}
	return nil
}
