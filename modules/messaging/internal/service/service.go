// Package service holds messaging's use cases: templates, estimates and
// sends, approvals, scheduled and weekly sends, and delivery ingestion.
package service

import (
	"context"
	"errors"
	"log/slog"
	"time"

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

// Deps are the service's collaborators.
type Deps struct {
	DB       *db.DB
	Repo     *postgres.Repo
	Jobs     *jobs.Jobs
	Clock    clock.Clock
	Teams    rosterapi.Teams
	Members  rosterapi.Members
	Audience rosterapi.Audience
	Lookup   rosterapi.Lookup
	Billing  billingapi.Accounts
	Events   events.Publisher
	Outbound Planner
	Log      *slog.Logger
	// Classify is the carrier's code mapping: which failures are
	// permanent for the number, and so are not resent (issue 18).
	Classify domain.Classifier
}

// Planner plans accepted sends on the team's sending numbers (package outbound).
type Planner interface {
	Plan(ctx context.Context, p outbound.SendPlan) (time.Time, error)
	Completion(ctx context.Context, team rosterapi.Team, phones []string, segments int) (time.Time, error)
}

// Service is messaging's application layer.
type Service struct{ Deps }

// New builds the service.
func New(d Deps) *Service { return &Service{Deps: d} }

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
