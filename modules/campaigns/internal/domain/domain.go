// Package domain holds the campaign rules as pure functions: the statuses
// and the transitions between them, how a step's due time is fixed, what a
// resume does with steps whose time passed, and what a new campaign may
// contain. No I/O.
package domain

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/teamtext/teamtext/modules/campaigns/campaignsapi"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/text"
)

// CodeCampaignState is the spec's 409 for an action the campaign's status
// does not allow (§7).
const CodeCampaignState = campaignsapi.CodeCampaignState

// Campaign statuses.
//
//   - scheduled: steps go out at their times (the status a campaign is created in).
//   - paused: nothing is sent; resume reschedules the steps still pending.
//   - cancelled: final; the steps not yet sent are cancelled and never sent.
//   - completed: final; every step was sent, failed or skipped.
const (
	StatusScheduled = "scheduled"
	StatusPaused    = "paused"
	StatusCancelled = "cancelled"
	StatusCompleted = "completed"
)

// Step statuses.
//
//   - pending: waits for its time (or for a resume).
//   - sent: handed to messaging, which answered with a message (queued, or
//     pending_approval when the team's policy requires approval).
//   - failed: messaging refused it (error_code holds the spec code, e.g.
//     payment_required, trial_limit, no_sender, conflict); the campaign goes on.
//   - skipped: its time passed while the campaign was paused; never sent.
//   - cancelled: the campaign was cancelled before its time; never sent.
const (
	StepPending   = "pending"
	StepSent      = "sent"
	StepFailed    = "failed"
	StepSkipped   = "skipped"
	StepCancelled = "cancelled"
)

// Action is something done to a campaign through the API or the dashboard.
type Action string

// The actions of the spec's state table.
const (
	Pause  Action = "pause"
	Resume Action = "resume"
	Cancel Action = "cancel"
)

// Transition returns the status a campaign in status from moves to under a,
// or a 409 campaign_state fault naming the current status:
//
//	pause:  scheduled -> paused
//	resume: paused    -> scheduled
//	cancel: scheduled or paused -> cancelled
//
// Resume may end in completed instead when no step is left to send
// (see PlanResume); that is the caller's second step.
func Transition(from string, a Action) (string, error) {
	switch {
	case a == Pause && from == StatusScheduled:
		return StatusPaused, nil
	case a == Resume && from == StatusPaused:
		return StatusScheduled, nil
	case a == Cancel && (from == StatusScheduled || from == StatusPaused):
		return StatusCancelled, nil
	}
	need := map[Action]string{Pause: "a scheduled", Resume: "a paused", Cancel: "a scheduled or paused"}[a]
	if need == "" {
		return "", fmt.Errorf("campaign transition: unknown action %q", a)
	}
	return "", fault.Newf(fault.Conflict, CodeCampaignState, "the campaign is %s; only %s campaign can be %s", from, need, pastTense(a))
}

func pastTense(a Action) string {
	switch a {
	case Pause:
		return "paused"
	case Resume:
		return "resumed"
	}
	return "cancelled"
}

// ErrUrgentResume is the API's answer to resuming a paused campaign that has
// an urgent-alert step: such campaigns are resumed from the dashboard only.
// It is a 403 (the key may not do this), not a state conflict: the same
// campaign in the same status is resumable from the dashboard.
var ErrUrgentResume = fault.New(fault.Forbidden, fault.CodeForbidden,
	"the campaign has an urgent-alert step; it can be resumed from the dashboard only")

// CheckResume is the whole resume rule: the campaign must be paused (else
// 409 campaign_state), and through the API it must have no urgent-alert
// step (else 403 forbidden). The status is checked first, so a campaign
// that is not paused answers 409 to everyone.
func CheckResume(status string, hasUrgent, dashboard bool) error {
	if _, err := Transition(status, Resume); err != nil {
		return err
	}
	if hasUrgent && !dashboard {
		return ErrUrgentResume
	}
	return nil
}

// PlanResume decides, at now, what a resume does with each step: a pending
// step whose due time has come (due at or before now) is skipped, because
// its time passed while the campaign was paused and a late text (a
// countdown, a reminder for a date already past) is worse than none, and a
// resume must not burst several stale texts at once; a pending step still
// ahead is rescheduled at its original due time (times are fixed at
// creation and do not shift by the length of the pause). Steps not pending
// are left alone. done reports that nothing is left to send, so the
// campaign is completed at once.
func PlanResume(steps []Step, now time.Time) (reschedule, skip []int, done bool) {
	for i, s := range steps {
		if s.Status != StepPending {
			continue
		}
		if s.DueAt.After(now) {
			reschedule = append(reschedule, i)
		} else {
			skip = append(skip, i)
		}
	}
	return reschedule, skip, len(reschedule) == 0
}

// Done reports whether no step is pending any more: the campaign is then completed.
func Done(steps []Step) bool {
	for _, s := range steps {
		if s.Status == StepPending {
			return false
		}
	}
	return true
}

// Limits of a campaign made in the dashboard.
const (
	MaxSteps     = 50
	MaxNameRunes = 100
	MaxTextRunes = 1200 // as for a send; messaging checks the rest when the step runs
	// MaxAhead is how far ahead a step may be due, as for scheduled sends.
	MaxAhead = 365 * 24 * time.Hour
)

// StepInput is a step as the dashboard gives it.
type StepInput struct {
	SendAt       string // RFC 3339 with offset, or empty
	DelaySeconds *int64 // seconds after the campaign starts, or nil
	Text         string
	TemplateID   string
	Urgent       bool
}

// NewStep is a checked step with its due time fixed.
type NewStep struct {
	SendAt       *time.Time
	DelaySeconds *int64
	DueAt        time.Time
	Text         string
	TemplateID   string
	Urgent       bool
}

// CheckName trims and checks a campaign name (1 to 100 characters, one
// of them visible: text.Visible).
func CheckName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxNameRunes {
		return "", fault.Invalidf("name is required, at most %d characters", MaxNameRunes)
	}
	if !text.Visible(name) {
		return "", fault.Invalidf("name must have a visible character (not only spaces or zero-width characters)")
	}
	return name, nil
}

// CheckSteps validates the steps of a new campaign started at start and
// fixes each step's due time: send_at as given, or start + delay_seconds.
// Each step has exactly one of send_at (after start, at most a year ahead)
// and delay_seconds (0 to a year), and exactly one of text and template_id.
// Text content (merge tags, segments) and templates are checked by
// messaging when the step runs, like any send.
func CheckSteps(in []StepInput, start time.Time) ([]NewStep, error) {
	if len(in) == 0 || len(in) > MaxSteps {
		return nil, fault.Invalidf("steps must hold 1 to %d steps", MaxSteps)
	}
	out := make([]NewStep, len(in))
	for i, s := range in {
		st, err := checkStep(s, start)
		if err != nil {
			f, _ := fault.As(err)
			return nil, fault.Newf(f.Kind, f.Code, "steps[%d]: %s", i, f.Message)
		}
		out[i] = st
	}
	return out, nil
}

func checkStep(s StepInput, start time.Time) (NewStep, error) {
	var st NewStep
	switch {
	case s.SendAt != "" && s.DelaySeconds != nil:
		return st, fault.Invalidf("give send_at or delay_seconds, not both")
	case s.SendAt != "":
		at, err := time.Parse(time.RFC3339, s.SendAt)
		if err != nil {
			return st, fault.Invalidf("send_at must be an ISO 8601 timestamp with a time zone offset")
		}
		if !at.After(start) || at.Sub(start) > MaxAhead {
			return st, fault.Invalidf("send_at must be in the future, at most a year ahead")
		}
		at = at.UTC()
		st.SendAt, st.DueAt = &at, at
	case s.DelaySeconds != nil:
		d := *s.DelaySeconds
		if d < 0 || time.Duration(d)*time.Second > MaxAhead {
			return st, fault.Invalidf("delay_seconds must be 0 to %d", int64(MaxAhead/time.Second))
		}
		st.DelaySeconds, st.DueAt = &d, start.Add(time.Duration(d)*time.Second).UTC()
	default:
		return st, fault.Invalidf("send_at or delay_seconds is required")
	}
	text := strings.TrimSpace(s.Text)
	switch {
	case text != "" && s.TemplateID != "":
		return st, fault.Invalidf("give text or template_id, not both")
	case text == "" && s.TemplateID == "":
		return st, fault.Invalidf("text is required unless template_id is given")
	case utf8.RuneCountInString(text) > MaxTextRunes:
		return st, fault.Invalidf("text is at most %d characters", MaxTextRunes)
	}
	st.Text, st.TemplateID, st.Urgent = text, s.TemplateID, s.Urgent
	return st, nil
}
