package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
)

// ExpireArgs expires a message still awaiting approval.
type ExpireArgs struct {
	MessageID string `json:"message_id"`
}

// Kind names the job.
func (ExpireArgs) Kind() string { return "messaging.expire_approval" }

// ScheduledArgs runs one occurrence of a scheduled send. Run is the
// occurrence number; a job whose Run no longer matches is stale and does nothing.
type ScheduledArgs struct {
	ScheduledID string `json:"scheduled_id"`
	Run         int    `json:"run"`
}

// Kind names the job.
func (ScheduledArgs) Kind() string { return "messaging.scheduled" }

// Expire ends a message still awaiting approval: it will never be sent.
func (s *Service) Expire(ctx context.Context, a ExpireArgs) error {
	return s.MessageStore.ExpireApproval(ctx, a.MessageID, s.Clock.Now().UTC())
}

// Approvals lists messages awaiting approval, oldest first (limit+1 rows).
func (s *Service) Approvals(ctx context.Context, teamID string, limit, offset int) ([]domain.Message, error) {
	return s.MessageStore.Approvals(ctx, teamID, limit, offset)
}

// Decide approves or rejects a message awaiting approval. The approver
// must be a head coach or team director. Approving resolves the recipients
// now and sends; rejecting means it is never sent.
func (s *Service) Decide(ctx context.Context, teamID, messageID, approverID string, approve bool) (*domain.Message, error) {
	var out *domain.Message
	err := s.DB.Tx(ctx, func(ctx context.Context) error {
		approver, err := s.Members.Member(ctx, teamID, approverID)
		if err != nil {
			return err
		}
		if !approver.KeyOwner() {
			return fault.New(fault.Forbidden, fault.CodeForbidden, "only a head coach or team director can approve or reject sends")
		}
		var p *Plan
		found := false
		m, err := s.MessageStore.UpdateMessage(ctx, teamID, messageID, func(m *domain.Message) error {
			found = true
			if err := m.Decide(approverID, approve, s.Clock.Now().UTC()); err != nil {
				return err
			}
			if !approve {
				return nil
			}
			team, err := s.Teams.Team(ctx, teamID)
			if err != nil {
				return err
			}
			rs, err := s.recipients(ctx, teamID, m.Audience, m.GroupID, m.ResendOf)
			if err != nil {
				return err
			}
			// The text was checked when it was made: tags in it were accepted
			// there (the dashboard's), and are rendered for today's roster.
			p = &Plan{Team: team, Rendered: m.Rendered, Segments: m.Segments, Encoding: domain.Encoding(m.Encoding), ReplyOptions: m.ReplyOptions}
			in := SendInput{MergeTags: domain.FindTags(m.Text) != nil, ResendOf: m.ResendOf}
			if p.merge, err = s.mergeText(ctx, Sender{TeamID: teamID, Source: m.Source}, in, m.Text); err != nil {
				return err
			}
			rs, skipped := deliverable(rs)
			if err := s.texts(ctx, p, rs); err != nil {
				return err
			}
			m.Approved(len(p.Phones), skipped)
			m.Rendered, m.Segments, m.Encoding, m.Credits = p.Sample, p.Segments, string(p.Encoding), p.Credits
			return nil
		})
		if !found {
			return mapNotFound(err, errMessageNotFound)
		}
		if err != nil {
			return err
		}
		out = m
		if !approve {
			return nil
		}
		return s.dispatch(ctx, m, p)
	})
	return out, err
}

// RunScheduled sends one occurrence of a scheduled send, checked like a new
// send (gates and approval rules included). A refused occurrence stops the
// series; one that waits for approval counts as sent. A weekly series then
// schedules the next week at the same local time (DST-correct) in the same
// transaction.
func (s *Service) RunScheduled(ctx context.Context, a ScheduledArgs) error {
	return s.DB.Tx(ctx, func(ctx context.Context) error {
		found, next := false, false
		sch, err := s.ScheduledStore.UpdateScheduled(ctx, "", a.ScheduledID, func(sch *domain.Scheduled) error {
			found = true
			if !sch.Due(a.Run) {
				return nil // cancelled, stopped, or a stale job: written back as it was
			}
			var in SendInput
			if err := json.Unmarshal(sch.Request, &in); err != nil {
				return fmt.Errorf("scheduled %s request: %w", sch.ID, err)
			}
			snd := Sender{TeamID: sch.TeamID, KeyID: sch.KeyID, MemberID: sch.MemberID, Source: domain.SourceSchedule}
			sch.Started(s.Clock.Now().UTC())
			in.ScheduledID = sch.ID
			// The occurrence in a savepoint: a refusal raised after its message
			// was written (billing's, under a concurrent send) must take that
			// message with it, while the series' own change below commits.
			err := s.DB.Savepoint(ctx, "scheduled_occurrence", func(ctx context.Context) error {
				_, err := s.Send(ctx, snd, in)
				return err
			})
			var f *fault.Error
			if errors.As(err, &f) {
				s.Log.Info("scheduled send refused; series stops", "scheduled_id", sch.ID, "code", f.Code)
				sch.Stop(f.Code)
				return nil
			}
			if err != nil {
				return err
			}
			var loc *time.Location
			if sch.Weekly() {
				team, err := s.Teams.Team(ctx, sch.TeamID)
				if err != nil {
					return err
				}
				if loc, err = time.LoadLocation(team.TimeZone); err != nil {
					return err
				}
			}
			next = sch.Advance(loc) // false: the series is completed
			return nil
		})
		if !found && errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		if err != nil || !next {
			return err
		}
		_, err = s.Jobs.Insert(ctx, ScheduledArgs{ScheduledID: sch.ID, Run: sch.Runs}, &river.InsertOpts{ScheduledAt: sch.ScheduledFor})
		return err
	})
}
