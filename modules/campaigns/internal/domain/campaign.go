package domain

import (
	"errors"
	"time"
)

// ErrNotFound is a campaign or step the team does not have.
var ErrNotFound = errors.New("campaigns: not found")

// Campaign is a drip campaign: who its steps go to, its status and the
// generation its step jobs must carry to act (every change starts a new
// one, so jobs scheduled before it do nothing).
type Campaign struct {
	ID          string
	TeamID      string
	Name        string
	Audience    string
	GroupID     string
	Status      string
	Generation  int
	CreatedBy   string // member id; "" for the dashboard's own
	CreatedAt   time.Time
	StartedAt   time.Time
	UpdatedAt   time.Time
	PausedAt    *time.Time
	CancelledAt *time.Time
	CompletedAt *time.Time
}

// Step is one step of a campaign, due at DueAt.
type Step struct {
	ID           string
	TeamID       string
	CampaignID   string
	Position     int
	SendAt       *time.Time
	DelaySeconds *int64
	DueAt        time.Time
	Text         string
	TemplateID   string
	Urgent       bool
	Status       string
	MessageID    string
	ErrorCode    string
	ErrorMessage string
	SentAt       *time.Time
	UpdatedAt    time.Time
}

// NewCampaign is a campaign as created, in status scheduled under
// generation 1, with its checked steps pending (ids from newID).
func NewCampaign(id, teamID, createdBy, name, audience, groupID string, steps []NewStep, now time.Time, newID func() string) (Campaign, []Step) {
	c := Campaign{ID: id, TeamID: teamID, Name: name, Audience: audience, GroupID: groupID, Status: StatusScheduled,
		Generation: 1, CreatedBy: createdBy, CreatedAt: now, StartedAt: now, UpdatedAt: now}
	out := make([]Step, len(steps))
	for i, st := range steps {
		out[i] = Step{ID: newID(), TeamID: teamID, CampaignID: id, Position: i + 1, SendAt: st.SendAt, DelaySeconds: st.DelaySeconds,
			DueAt: st.DueAt, Text: st.Text, TemplateID: st.TemplateID, Urgent: st.Urgent, Status: StepPending, UpdatedAt: now}
	}
	return c, out
}

// Touch starts a new generation at now: the start of every change.
func (c *Campaign) Touch(now time.Time) {
	c.Generation++
	c.UpdatedAt = now
}

// Pause pauses a scheduled campaign (409 campaign_state otherwise).
func (c *Campaign) Pause(now time.Time) error {
	next, err := Transition(c.Status, Pause)
	if err != nil {
		return err
	}
	c.Status, c.PausedAt = next, &now
	return nil
}

// Cancel ends a scheduled or paused campaign for good (409 otherwise);
// its pending steps are to be cancelled with it.
func (c *Campaign) Cancel(now time.Time) error {
	next, err := Transition(c.Status, Cancel)
	if err != nil {
		return err
	}
	c.Status, c.CancelledAt, c.PausedAt = next, &now, nil
	return nil
}

// Resumed is the campaign after a resume at now: scheduled again, or
// completed when no step is left to send (PlanResume's done).
func (c *Campaign) Resumed(done bool, now time.Time) {
	c.PausedAt = nil
	if done {
		c.Complete(now)
		return
	}
	c.Status = StatusScheduled
}

// Complete ends the campaign: every step was sent, failed or skipped.
func (c *Campaign) Complete(now time.Time) {
	c.Status, c.CompletedAt = StatusCompleted, &now
}

// Runs reports whether a step job of generation g acts: the campaign is
// scheduled and g is its generation (else paused, cancelled, completed,
// or a job of an earlier schedule).
func (c *Campaign) Runs(g int) bool { return c.Status == StatusScheduled && c.Generation == g }

// HasUrgent reports whether a step is an urgent alert.
func HasUrgent(steps []Step) bool {
	for _, s := range steps {
		if s.Urgent {
			return true
		}
	}
	return false
}

// Sent marks a pending step handed to messaging as message messageID at now.
func (s *Step) Sent(messageID string, now time.Time) {
	s.Status, s.MessageID, s.SentAt, s.UpdatedAt = StepSent, messageID, &now, now
}

// Failed marks a step messaging refused with code and message.
func (s *Step) Failed(code, message string, now time.Time) {
	s.Status, s.ErrorCode, s.ErrorMessage, s.UpdatedAt = StepFailed, code, message, now
}
