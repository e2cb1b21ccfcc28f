package domain

import (
	"encoding/json"
	"time"

	"github.com/teamtext/teamtext/platform/fault"
)

// Scheduled send statuses: pending until its time (or each week's, for a
// weekly series); then completed, or stopped (refused, or its key
// revoked), or cancelled.
const (
	ScheduledPending   = "pending"
	ScheduledCompleted = "completed"
	ScheduledStopped   = "stopped"
	ScheduledCancelled = "cancelled"
)

// RepeatWeek is the one repetition: every week at the same local time.
const RepeatWeek = "week"

// Scheduled is a send waiting for its time: a one-off, or a weekly series
// (RepeatEvery "week" until RepeatUntil, a date in the team's time zone).
// Request is the send as it was asked for, checked again at each run.
// Runs counts the occurrences sent; the job of occurrence n carries n, so
// a job that no longer matches is stale.
type Scheduled struct {
	ID           string
	TeamID       string
	KeyID        string
	MemberID     string
	Request      json.RawMessage
	ScheduledFor time.Time
	RepeatEvery  string
	RepeatUntil  *time.Time
	Status       string
	StatusReason string
	Runs         int
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// NewScheduled is a pending scheduled send at at (UTC); weekly until
// repeatUntil when it is not nil. The team must have room for it
// (CheckScheduledRoom).
func NewScheduled(id, teamID, keyID, memberID string, request json.RawMessage, at time.Time, repeatUntil *time.Time, now time.Time) Scheduled {
	s := Scheduled{ID: id, TeamID: teamID, KeyID: keyID, MemberID: memberID, Request: request, ScheduledFor: at.UTC(),
		Status: ScheduledPending, CreatedAt: now, UpdatedAt: now}
	if repeatUntil != nil {
		s.RepeatEvery, s.RepeatUntil = RepeatWeek, repeatUntil
	}
	return s
}

// CheckScheduledRoom refuses a new scheduled send when the team has
// ScheduledLimit pending already (scheduled_limit_reached).
func CheckScheduledRoom(pending int) error {
	if pending >= ScheduledLimit {
		return fault.Newf(fault.Conflict, CodeScheduledLimit, "a team can have at most %d pending scheduled messages", ScheduledLimit)
	}
	return nil
}

// Cancel cancels a pending scheduled send (a weekly series ends). One that
// is no longer pending is not found (404), whatever became of it.
func (s *Scheduled) Cancel(now time.Time) error {
	if s.Status != ScheduledPending {
		return fault.NotFoundf("scheduled message not found (it is %s)", s.Status)
	}
	s.Status, s.StatusReason, s.UpdatedAt = ScheduledCancelled, ScheduledCancelled, now
	return nil
}

// Due reports whether the job of occurrence run should send: the send is
// pending and no other occurrence ran since the job was made.
func (s *Scheduled) Due(run int) bool { return s.Status == ScheduledPending && s.Runs == run }

// Started counts an occurrence as run (whatever comes of it).
func (s *Scheduled) Started(now time.Time) {
	s.Runs++
	s.UpdatedAt = now
}

// Stop ends the send because an occurrence was refused with code.
func (s *Scheduled) Stop(code string) { s.Status, s.StatusReason = ScheduledStopped, code }

// Weekly reports whether the send repeats every week.
func (s *Scheduled) Weekly() bool { return s.RepeatEvery == RepeatWeek }

// Advance moves a weekly series to its next week, at the same local time
// in loc (DST-correct), and reports true; when that week is past
// RepeatUntil, or the send is a one-off, the send completes and it
// reports false.
func (s *Scheduled) Advance(loc *time.Location) bool {
	if s.Weekly() {
		next := NextWeek(s.ScheduledFor, loc)
		if s.RepeatUntil != nil && WithinUntil(next, *s.RepeatUntil, loc) {
			s.ScheduledFor = next.UTC()
			return true
		}
	}
	s.Status = ScheduledCompleted
	return false
}
