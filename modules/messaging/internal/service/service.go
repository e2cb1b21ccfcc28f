// Package service holds messaging's use cases: templates, estimates and
// sends, approvals, scheduled and weekly sends, and delivery ingestion.
package service

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Deps are the service's collaborators: the one list of them, filled from
// the application graph (fx.In) or written out by a test.
type Deps struct {
	fx.In
	DB   *db.DB
	Repo *postgres.Repo
	// TemplateStore keeps the team's saved templates (postgres.Repo).
	TemplateStore TemplateStore
	// ScheduledStore keeps scheduled sends and weekly series (postgres.Repo).
	ScheduledStore ScheduledStore
	Jobs           *jobs.Jobs
	Clock          clock.Clock
	Teams          rosterapi.Teams
	Members        rosterapi.Members
	Audience       rosterapi.Audience
	Lookup         rosterapi.Lookup
	Billing        billingapi.Accounts
	Events         events.Publisher
	Outbound       Planner
	Log            *slog.Logger
	// Classify is the carrier's code mapping: which failures are
	// permanent for the number, and so are not resent (issue 18).
	Classify domain.Classifier
}

// TemplateStore is where the templates use cases keep a team's templates.
// Changes run inside the caller's transaction; LockTemplates serialises a
// team's changes, so the limit and name checks see each other.
type TemplateStore interface {
	Templates(ctx context.Context, teamID string, limit, offset int) ([]postgres.Template, error)
	CountTemplates(ctx context.Context, teamID string) (int, error)
	Template(ctx context.Context, teamID, id string, withDeleted, forUpdate bool) (*postgres.Template, error)
	TemplateByName(ctx context.Context, teamID, name string) (*postgres.Template, error)
	InsertTemplate(ctx context.Context, t *postgres.Template) error
	UpdateTemplate(ctx context.Context, t *postgres.Template) error
	LockTemplates(ctx context.Context, teamID string) error
}

// ScheduledStore is where scheduled sends wait for their time; run, cancel
// and the pending limit read and change them in the caller's transaction.
type ScheduledStore interface {
	InsertScheduled(ctx context.Context, s *postgres.Scheduled) error
	Scheduled(ctx context.Context, teamID, id string) (*postgres.Scheduled, error)
	UpdateScheduled(ctx context.Context, s *postgres.Scheduled) error
	PendingScheduled(ctx context.Context, teamID string, limit, offset int) ([]postgres.Scheduled, error)
	CountPendingScheduled(ctx context.Context, teamID string) (int, error)
}

// Planner plans accepted sends on the team's sending numbers (package outbound).
type Planner interface {
	Plan(ctx context.Context, p outbound.SendPlan) (time.Time, error)
	Completion(ctx context.Context, team rosterapi.Team, phones []string, segments int) (time.Time, error)
}

// Service is messaging's application layer. It holds its Deps by pointer:
// fx refuses a pointer to a struct that embeds fx.In by value, and the
// graph hands out *Service.
type Service struct{ *Deps }

// New builds the service.
func New(d Deps) *Service { return &Service{Deps: &d} }

var (
	errMessageNotFound   = fault.NotFoundf("message not found")
	errTemplateNotFound  = fault.NotFoundf("template not found")
	errScheduledNotFound = fault.NotFoundf("scheduled message not found")
)

func mapNotFound(err error, nf *fault.Error) error {
	if errors.Is(err, postgres.ErrNotFound) {
		return nf
	}
	return err
}
