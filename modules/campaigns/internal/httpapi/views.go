// Package httpapi is the campaigns module's HTTP adapter: the public API
// under /api/v1 (list and read campaigns; pause, resume and cancel them)
// and the dashboard's side under /admin/v1 (create, list, read, resume with
// urgent steps). routes.go is its one route table; this file holds the
// views both APIs answer with.
package httpapi

import (
	"time"

	"github.com/teamtext/teamtext/modules/campaigns/internal/domain"
	"github.com/teamtext/teamtext/modules/campaigns/internal/service"
)

// Step is one step of a campaign.
type Step struct {
	ID           string     `json:"id"`
	Position     int        `json:"position" doc:"1 for the first step given at creation."`
	SendAt       *time.Time `json:"send_at" doc:"The absolute time the step was given; null when it was given as delay_seconds."`
	DelaySeconds *int64     `json:"delay_seconds" doc:"Seconds after the campaign's start (started_at); null when it was given as send_at."`
	DueAt        time.Time  `json:"due_at" doc:"When the step goes out: send_at, or started_at + delay_seconds. Fixed at creation; a pause does not move it."`
	Text         *string    `json:"text" doc:"The step's text; null when it uses template_id."`
	TemplateID   *string    `json:"template_id" doc:"The template it sends; null when it has text."`
	Urgent       bool       `json:"urgent" doc:"An urgent-alert step (made in the dashboard only)."`
	Status       string     `json:"status" enum:"pending,sent,failed,skipped,cancelled" doc:"pending: waits for due_at (or for a resume). sent: handed to messaging; message_id is the broadcast (queued, or pending_approval when the team requires approval). failed: messaging refused the send, error_code holds the reason (e.g. payment_required, trial_limit, no_sender, conflict when nobody is left to text); the campaign goes on with its next steps. skipped: due_at came while the campaign was paused; never sent. cancelled: the campaign was cancelled first; never sent."`
	MessageID    *string    `json:"message_id" doc:"The message the step sent (see GET /messages/{message_id}); null until sent."`
	SentAt       *time.Time `json:"sent_at" doc:"When the step was handed to messaging; null unless sent."`
	ErrorCode    *string    `json:"error_code" doc:"For a failed step: the error code messaging refused the send with."`
	ErrorMessage *string    `json:"error_message" doc:"For a failed step: messaging's explanation."`
}

// Campaign is a drip campaign with its steps.
type Campaign struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Audience      string     `json:"audience" enum:"all,staff,families,group" doc:"Who every step goes to, resolved when each step runs (as for a send)."`
	GroupID       *string    `json:"group_id" doc:"With audience group."`
	Status        string     `json:"status" enum:"scheduled,paused,cancelled,completed" doc:"scheduled: steps go out at their due_at. paused: nothing is sent until it is resumed. cancelled: final; steps not yet sent never go out. completed: final; every step was sent, failed or skipped."`
	HasUrgentStep bool       `json:"has_urgent_step" doc:"Whether a step is an urgent alert; such a campaign is resumed from the dashboard only."`
	CreatedBy     string     `json:"created_by" doc:"Member id of the head coach or team director who made it in the dashboard; empty when the dashboard made it without naming one."`
	CreatedAt     time.Time  `json:"created_at"`
	StartedAt     time.Time  `json:"started_at" doc:"The start delay_seconds count from (the creation time)."`
	PausedAt      *time.Time `json:"paused_at" doc:"When it was paused; null unless paused."`
	CancelledAt   *time.Time `json:"cancelled_at"`
	CompletedAt   *time.Time `json:"completed_at"`
	Steps         []Step     `json:"steps" doc:"By position."`
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// From renders a campaign view.
func From(v *service.View) Campaign {
	c := v.Campaign
	out := Campaign{ID: c.ID, Name: c.Name, Audience: c.Audience, GroupID: opt(c.GroupID), Status: c.Status,
		HasUrgentStep: v.HasUrgent(), CreatedBy: c.CreatedBy, CreatedAt: c.CreatedAt, StartedAt: c.StartedAt,
		PausedAt: c.PausedAt, CancelledAt: c.CancelledAt, CompletedAt: c.CompletedAt, Steps: make([]Step, len(v.Steps))}
	for i := range v.Steps {
		out.Steps[i] = stepFrom(&v.Steps[i])
	}
	return out
}

func stepFrom(s *domain.Step) Step {
	return Step{ID: s.ID, Position: s.Position, SendAt: s.SendAt, DelaySeconds: s.DelaySeconds, DueAt: s.DueAt,
		Text: opt(s.Text), TemplateID: opt(s.TemplateID), Urgent: s.Urgent, Status: s.Status, MessageID: opt(s.MessageID),
		SentAt: s.SentAt, ErrorCode: opt(s.ErrorCode), ErrorMessage: opt(s.ErrorMessage)}
}

// Views renders a list of campaign views.
func Views(vs []service.View) []Campaign {
	out := make([]Campaign, len(vs))
	for i := range vs {
		out[i] = From(&vs[i])
	}
	return out
}
