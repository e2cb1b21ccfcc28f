package service_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi/billingtest"
	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi/rostertest"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/jobs"
	"github.com/teamtext/teamtext/platform/phone"
)

// TestContract holds the roster on Postgres to the contract suite its
// in-memory fake (rostertest) is held to, through the same values the
// module's wiring hands other modules: the Directory for reads, the
// Service for opt-outs and keyword texts.
func TestContract(t *testing.T) {
	t.Parallel()
	rostertest.Exercise(t, func(t *testing.T) rostertest.Harness {
		d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
		repo := postgres.NewRepo(d)
		clk := clock.NewFake(t0)
		log := slog.New(slog.DiscardHandler)
		j, err := jobs.New(d, clk, log, jobs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		svc := service.New(d, storesOf(repo), billingtest.New(clk), &recorder{}, j, clk, log, nil, nil)
		return rostertest.Harness{Roster: wired{Directory: service.NewDirectory(directoryOf(repo)), svc: svc}, Seed: seeder{repo}, Clock: clk}
	})
}

// wired is the roster's contracts as the module provides them.
type wired struct {
	*service.Directory
	svc *service.Service
}

func (w wired) OptOutBySMS(ctx context.Context, teamID string, number phone.Number) error {
	return w.svc.OptOutBySMS(ctx, teamID, number)
}

func (w wired) OptInBySMS(ctx context.Context, teamID string, number phone.Number) (bool, error) {
	return w.svc.OptInBySMS(ctx, teamID, number)
}

func (w wired) Keyword(ctx context.Context, k rosterapi.KeywordText) (bool, error) {
	return w.svc.Keyword(ctx, k)
}

// seeder writes the suite's world through the repository.
type seeder struct{ repo *postgres.Repo }

func (s seeder) AddTeam(ctx context.Context, t rosterapi.Team) error {
	return s.repo.InsertTeam(ctx, &domain.Team{ID: t.ID, Name: t.Name, Code: t.Code, Number: string(t.Number), TimeZone: t.TimeZone,
		ApprovalRequired: t.ApprovalRequired, JoinApprovalRequired: t.JoinApprovalRequired, Disabled: t.Disabled, Locked: t.Locked,
		CreatedAt: t.CreatedAt})
}

func (s seeder) AddMember(ctx context.Context, m rosterapi.Member) error {
	return s.repo.InsertMember(ctx, &domain.Member{ID: m.ID, TeamID: m.TeamID, Name: m.Name, Phone: string(m.Phone), Email: m.Email, Role: m.Role,
		Status: m.Status, IsBlocked: m.IsBlocked, DashboardLogin: m.DashboardLogin, CanSendBroadcasts: m.CanSendBroadcasts,
		CreatedAt: m.CreatedAt, UpdatedAt: m.CreatedAt})
}

func (s seeder) AddGroup(ctx context.Context, teamID, groupID, name string) error {
	return s.repo.InsertGroup(ctx, &domain.Group{ID: groupID, TeamID: teamID, Name: name, CreatedAt: t0})
}

func (s seeder) AddCustomField(ctx context.Context, teamID, key string, private bool) error {
	return s.repo.InsertCustomField(ctx, &domain.CustomField{ID: id.New("fld"), TeamID: teamID, Label: key, Key: key, Private: private,
		CreatedAt: t0.Add(time.Duration(len(key)))})
}
