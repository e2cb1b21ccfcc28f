// Package service holds the campaigns use cases: creating a campaign in the
// dashboard, reading campaigns, pausing, resuming and cancelling them, and
// running each step through messaging's contract when its time comes.
package service

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/campaigns/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/messagingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
)

// Jobs inserts River jobs in the transaction carried by ctx (platform/jobs).
type Jobs interface {
	InsertMany(ctx context.Context, params []river.InsertManyParams) error
}

// Store is what the use cases need of storage (postgres.Repo). Every
// method joins the transaction carried by ctx; reads by id answer
// domain.ErrNotFound for another team's id.
type Store interface {
	Insert(ctx context.Context, c domain.Campaign, steps []domain.Step) error
	// Campaign reads one campaign.
	Campaign(ctx context.Context, teamID, id string) (*domain.Campaign, error)
	// Campaigns lists a team's campaigns, newest first, limit+1 rows.
	Campaigns(ctx context.Context, teamID string, limit, offset int) ([]domain.Campaign, error)
	// UpdateCampaign locks one campaign (SELECT … FOR UPDATE), lets change
	// alter it and stores the result (nothing when change fails, no write
	// when it changed nothing): every change and every step run goes
	// through it, so they are serialised per campaign.
	UpdateCampaign(ctx context.Context, teamID, id string, change func(*domain.Campaign) error) (*domain.Campaign, error)
	// Steps are the steps of a team's campaigns, by campaign and position.
	Steps(ctx context.Context, teamID string, campaignIDs ...string) ([]domain.Step, error)
	Step(ctx context.Context, teamID, campaignID, id string) (*domain.Step, error)
	UpdateStep(ctx context.Context, s *domain.Step) error
	// SetPendingSteps moves a campaign's pending steps (all, or those of ids) to status.
	SetPendingSteps(ctx context.Context, teamID, campaignID, status string, at time.Time, ids ...string) error
	CountPendingSteps(ctx context.Context, teamID, campaignID string) (int, error)
}

// Transactor runs fn in a transaction carried by its ctx (*db.DB); a
// nested call joins the outer one. Savepoint runs fn in a savepoint of
// that transaction and rolls back to it when fn fails.
type Transactor interface {
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
	Savepoint(ctx context.Context, name string, fn func(ctx context.Context) error) error
}

// Deps are the service's collaborators.
type Deps struct {
	DB       Transactor
	Repo     Store
	Jobs     Jobs
	Clock    clock.Clock
	Sender   messagingapi.Sender
	Teams    rosterapi.Teams
	Members  rosterapi.Members
	Audience rosterapi.Audience
	Log      *slog.Logger
}

// Service is the campaigns application layer.
type Service struct{ d Deps }

// New builds the service.
func New(d Deps) *Service { return &Service{d: d} }

var errCampaignNotFound = fault.NotFoundf("campaign not found")

// now is the clock's time at Postgres's precision, so that what a use case
// answers equals what a later read returns.
func (s *Service) now() time.Time { return s.d.Clock.Now().UTC().Truncate(time.Microsecond) }

// StepArgs runs one step of a campaign at its due time. Generation is the
// campaign's generation when the job was scheduled: a job whose generation
// no longer matches belongs to an earlier schedule and does nothing.
type StepArgs struct {
	TeamID     string `json:"team_id"`
	CampaignID string `json:"campaign_id"`
	StepID     string `json:"step_id"`
	Generation int    `json:"generation"`
}

// Kind names the job.
func (StepArgs) Kind() string { return "campaigns.step" }

// View is a campaign with its steps, by position.
type View struct {
	Campaign domain.Campaign
	Steps    []domain.Step
}

// HasUrgent reports whether the campaign has an urgent-alert step.
func (v *View) HasUrgent() bool { return domain.HasUrgent(v.Steps) }

// NewCampaign is a campaign as the dashboard creates it.
type NewCampaign struct {
	TeamID   string
	MemberID string // the staff member creating it (head coach or team director); "" for the dashboard itself
	Name     string
	Audience string
	GroupID  string
	Steps    []domain.StepInput
	// Dashboard marks a campaign made by the signed-in person on the
	// dashboard's Campaigns page: MemberID is then required and is held
	// to the dashboard's role table (rosterapi.PermSend, since its steps
	// send on their behalf, and rosterapi.PermUrgent for an urgent step)
	// instead of the key-owner rule of the admin API.
	Dashboard bool
}

// errUrgentStep is a dashboard campaign with an urgent step made by
// someone who may not send urgent alerts.
var errUrgentStep = fault.New(fault.Forbidden, fault.CodeForbidden, "your role may not make urgent-alert steps")

// Create stores a campaign in status scheduled and, in the same
// transaction, one River job per step at its due time. Checks, in order:
// the team exists (404), member_id, when given, is an active head coach or
// team director who may send broadcasts (404 if not on the team, else 403
// forbidden), the name and steps (400), and the audience (400
// invalid_request or invalid_group, resolved through the roster as a send
// does).
func (s *Service) Create(ctx context.Context, in NewCampaign) (*View, error) {
	var out *View
	err := s.d.DB.Tx(ctx, func(ctx context.Context) error {
		if _, err := s.d.Teams.Team(ctx, in.TeamID); err != nil {
			return err
		}
		switch {
		case in.Dashboard:
			if err := s.checkDashboardCreator(ctx, in); err != nil {
				return err
			}
		case in.MemberID != "": // optional (ADMIN-API.md): without it the campaign is the dashboard's own
			m, err := s.d.Members.Member(ctx, in.TeamID, in.MemberID)
			if err != nil {
				return err
			}
			if !m.KeyOwner() {
				return fault.New(fault.Forbidden, fault.CodeForbidden, "only an active head coach or team director who may send broadcasts can create campaigns")
			}
		}
		name, err := domain.CheckName(in.Name)
		if err != nil {
			return err
		}
		now := s.now()
		steps, err := domain.CheckSteps(in.Steps, now)
		if err != nil {
			return err
		}
		if _, err := s.d.Audience.Recipients(ctx, in.TeamID, in.Audience, in.GroupID); err != nil {
			return err
		}
		c, rows := domain.NewCampaign(id.New("cmp"), in.TeamID, in.MemberID, name, in.Audience, in.GroupID, steps, now,
			func() string { return id.New("cstep") })
		if err := s.d.Repo.Insert(ctx, c, rows); err != nil {
			return err
		}
		if err := s.schedule(ctx, &c, rows, now); err != nil {
			return err
		}
		out = &View{Campaign: c, Steps: rows}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.d.Log.Info("campaign created", "team_id", out.Campaign.TeamID, "campaign_id", out.Campaign.ID, "steps", len(out.Steps))
	return out, nil
}

// checkDashboardCreator holds a campaign made on the dashboard's page to
// the role table: the signed-in member must still be allowed campaigns and
// to send broadcasts (the steps send on their behalf), and an urgent step
// needs the right to send urgent alerts (403 forbidden otherwise).
func (s *Service) checkDashboardCreator(ctx context.Context, in NewCampaign) error {
	if in.MemberID == "" {
		return fault.New(fault.Forbidden, fault.CodeForbidden, "a dashboard campaign needs the signed-in member")
	}
	m, err := s.d.Members.Member(ctx, in.TeamID, in.MemberID)
	if err != nil {
		return err
	}
	if !m.May(rosterapi.PermCampaigns) || !m.May(rosterapi.PermSend) {
		return fault.New(fault.Forbidden, fault.CodeForbidden, "your role may not create campaigns that send broadcasts")
	}
	for _, st := range in.Steps {
		if st.Urgent && !m.May(rosterapi.PermUrgent) {
			return errUrgentStep
		}
	}
	return nil
}

// schedule inserts one job per step at its due time under the campaign's
// current generation. A step already due is inserted available, so it runs
// at once rather than at River's next scheduling pass.
func (s *Service) schedule(ctx context.Context, c *domain.Campaign, steps []domain.Step, now time.Time) error {
	params := make([]river.InsertManyParams, 0, len(steps))
	for _, st := range steps {
		p := river.InsertManyParams{Args: StepArgs{TeamID: c.TeamID, CampaignID: c.ID, StepID: st.ID, Generation: c.Generation}}
		if st.DueAt.After(now) {
			p.InsertOpts = &river.InsertOpts{ScheduledAt: st.DueAt}
		}
		params = append(params, p)
	}
	return s.d.Jobs.InsertMany(ctx, params)
}

// Campaigns lists a team's campaigns with their steps, newest first (limit+1 rows).
func (s *Service) Campaigns(ctx context.Context, teamID string, limit, offset int) ([]View, error) {
	cs, err := s.d.Repo.Campaigns(ctx, teamID, limit, offset)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(cs))
	for i := range cs {
		ids[i] = cs[i].ID
	}
	steps, err := s.d.Repo.Steps(ctx, teamID, ids...)
	if err != nil {
		return nil, err
	}
	byCampaign := map[string][]domain.Step{}
	for _, st := range steps {
		byCampaign[st.CampaignID] = append(byCampaign[st.CampaignID], st)
	}
	out := make([]View, len(cs))
	for i := range cs {
		out[i] = View{Campaign: cs[i], Steps: byCampaign[cs[i].ID]}
	}
	return out, nil
}

// TeamCampaigns is Campaigns for the dashboard: an unknown team is a 404.
func (s *Service) TeamCampaigns(ctx context.Context, teamID string, limit, offset int) ([]View, error) {
	if _, err := s.d.Teams.Team(ctx, teamID); err != nil {
		return nil, err
	}
	return s.Campaigns(ctx, teamID, limit, offset)
}

// Campaign returns one of a team's campaigns with its steps (404 not_found
// for another team's id).
func (s *Service) Campaign(ctx context.Context, teamID, campaignID string) (*View, error) {
	c, err := s.d.Repo.Campaign(ctx, teamID, campaignID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, errCampaignNotFound
	}
	if err != nil {
		return nil, err
	}
	steps, err := s.d.Repo.Steps(ctx, teamID, campaignID)
	if err != nil {
		return nil, err
	}
	return &View{Campaign: *c, Steps: steps}, nil
}

// change runs fn on a campaign locked for update, under a new generation,
// in one transaction, and returns the campaign as it is afterwards.
func (s *Service) change(ctx context.Context, teamID, campaignID string, fn func(ctx context.Context, v *View, now time.Time) error) (*View, error) {
	var out *View
	err := s.d.DB.Tx(ctx, func(ctx context.Context) error {
		_, err := s.d.Repo.UpdateCampaign(ctx, teamID, campaignID, func(c *domain.Campaign) error {
			steps, err := s.d.Repo.Steps(ctx, teamID, campaignID)
			if err != nil {
				return err
			}
			v := &View{Campaign: *c, Steps: steps}
			// Read the time only once the lock is held: a step that committed
			// before us has an earlier sent_at than our paused_at/cancelled_at.
			now := s.now()
			// Every change starts a new generation: jobs scheduled before it
			// do nothing from now on.
			v.Campaign.Touch(now)
			if err := fn(ctx, v, now); err != nil {
				return err
			}
			*c = v.Campaign
			return nil
		})
		if errors.Is(err, domain.ErrNotFound) {
			return errCampaignNotFound
		}
		if err != nil {
			return err
		}
		out, err = s.Campaign(ctx, teamID, campaignID)
		return err
	})
	return out, err
}

// Pause stops a scheduled campaign: nothing is sent while it is paused.
// The step jobs stay in River but do nothing: they find the campaign
// paused, and after a resume their generation is out of date.
func (s *Service) Pause(ctx context.Context, teamID, campaignID string) (*View, error) {
	v, err := s.change(ctx, teamID, campaignID, func(_ context.Context, v *View, now time.Time) error {
		return v.Campaign.Pause(now)
	})
	if err == nil {
		s.d.Log.Info("campaign paused", "team_id", teamID, "campaign_id", campaignID)
	}
	return v, err
}

// Cancel ends a scheduled or paused campaign for good: its pending steps
// become cancelled in the same transaction. The campaign row is locked as
// every step run locks it, so once Cancel commits no step can be sent: a
// step run waiting on the lock then finds the campaign cancelled.
func (s *Service) Cancel(ctx context.Context, teamID, campaignID string) (*View, error) {
	v, err := s.change(ctx, teamID, campaignID, func(ctx context.Context, v *View, now time.Time) error {
		if err := v.Campaign.Cancel(now); err != nil {
			return err
		}
		return s.d.Repo.SetPendingSteps(ctx, teamID, campaignID, domain.StepCancelled, now)
	})
	if err == nil {
		s.d.Log.Info("campaign cancelled", "team_id", teamID, "campaign_id", campaignID)
	}
	return v, err
}

// Resume restarts a paused campaign. Through the API (dashboard false) a
// campaign with an urgent-alert step is refused with 403 forbidden. Pending
// steps whose due time has come are skipped; the others get a new job at
// their original due time under the new generation. When nothing is left
// to send the campaign is completed at once.
func (s *Service) Resume(ctx context.Context, teamID, campaignID string, dashboard bool) (*View, error) {
	v, err := s.change(ctx, teamID, campaignID, func(ctx context.Context, v *View, now time.Time) error {
		if err := domain.CheckResume(v.Campaign.Status, v.HasUrgent(), dashboard); err != nil {
			return err
		}
		re, skip, done := domain.PlanResume(v.Steps, now)
		if len(skip) > 0 {
			ids := make([]string, len(skip))
			for i, k := range skip {
				ids[i] = v.Steps[k].ID
			}
			if err := s.d.Repo.SetPendingSteps(ctx, teamID, campaignID, domain.StepSkipped, now, ids...); err != nil {
				return err
			}
		}
		v.Campaign.Resumed(done, now)
		if done {
			return nil
		}
		steps := make([]domain.Step, len(re))
		for i, k := range re {
			steps[i] = v.Steps[k]
		}
		return s.schedule(ctx, &v.Campaign, steps, now)
	})
	if err == nil {
		s.d.Log.Info("campaign resumed", "team_id", teamID, "campaign_id", campaignID, "dashboard", dashboard, "status", v.Campaign.Status)
	}
	return v, err
}

// RunStep is a step's job. In one transaction it locks the campaign row,
// and does nothing unless the campaign is scheduled, the job's generation
// is the campaign's and the step is pending; then it sends through
// messaging (same gates, approval rules and billing as any send, inside
// this transaction) and marks the step sent, or failed with the spec code
// when messaging refuses (the campaign goes on). When no step is left
// pending the campaign is completed. Errors other than a refusal roll
// everything back and River retries the job.
func (s *Service) RunStep(ctx context.Context, a StepArgs) error {
	return s.d.DB.Tx(ctx, func(ctx context.Context) error {
		_, err := s.d.Repo.UpdateCampaign(ctx, a.TeamID, a.CampaignID, func(c *domain.Campaign) error {
			return s.runStep(ctx, c, a)
		})
		if errors.Is(err, domain.ErrNotFound) {
			s.d.Log.Warn("campaign step for unknown campaign ignored", "campaign_id", a.CampaignID, "step_id", a.StepID)
			return nil
		}
		return err
	})
}

// runStep is RunStep on its campaign c, locked in ctx's transaction.
func (s *Service) runStep(ctx context.Context, c *domain.Campaign, a StepArgs) error {
	if !c.Runs(a.Generation) {
		return nil // paused, cancelled or completed, or a job of an earlier schedule
	}
	st, err := s.d.Repo.Step(ctx, a.TeamID, a.CampaignID, a.StepID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Status != domain.StepPending {
		return nil // already run (a retried job)
	}
	now := s.now()
	var res messagingapi.SendResult
	err = s.d.DB.Savepoint(ctx, "campaign_step", func(ctx context.Context) error {
		var err error
		res, err = s.d.Sender.Send(ctx, messagingapi.SendRequest{TeamID: c.TeamID, MemberID: c.CreatedBy, Source: messagingapi.SourceCampaign,
			Text: st.Text, TemplateID: st.TemplateID, Audience: messagingapi.Audience(c.Audience), GroupID: c.GroupID, Urgent: st.Urgent})
		return err
	})
	if f, ok := refusal(err); ok {
		st.Failed(f.Code, f.Message, now)
		s.d.Log.Info("campaign step refused by messaging", "team_id", c.TeamID, "campaign_id", c.ID, "step_id", st.ID, "code", f.Code)
	} else if err != nil {
		return err
	} else {
		st.Sent(res.MessageID, now)
		s.d.Log.Info("campaign step sent", "team_id", c.TeamID, "campaign_id", c.ID, "step_id", st.ID, "message_id", res.MessageID, "message_status", res.Status)
	}
	if err := s.d.Repo.UpdateStep(ctx, st); err != nil {
		return err
	}
	n, err := s.d.Repo.CountPendingSteps(ctx, c.TeamID, c.ID)
	if err != nil {
		return err
	}
	if n == 0 {
		c.Complete(now)
		c.UpdatedAt = now
	}
	return nil
}

// refusal reports whether err is messaging refusing the send (a 4xx-kind
// fault such as payment_required, trial_limit, no_sender, conflict,
// invalid_group, urgent_not_allowed) as opposed to a failure worth a retry.
func refusal(err error) (*fault.Error, bool) {
	f, ok := fault.As(err)
	if !ok {
		return nil, false
	}
	switch f.Kind {
	case fault.Internal, fault.Unavailable, fault.RateLimited:
		return nil, false
	}
	return f, true
}
