// Package postgres stores campaigns and their steps, and embeds the
// campaigns module's migrations. Every query by id also takes the team id.
// Its rows are unexported: callers see domain.Campaign and domain.Step.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/campaigns/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the campaigns module's schema history.
func Migrations() db.MigrationSet { return db.Embedded("campaigns", 40, migrationFiles, "migrations") }

func notFound(err error, what string) error { return db.NotFound(err, domain.ErrNotFound, what) }

// campaignRow is a campaigns row.
type campaignRow struct {
	bun.BaseModel `bun:"table:campaigns,alias:c"`
	ID            string     `bun:"id,pk"`
	TeamID        string     `bun:"team_id"`
	Name          string     `bun:"name"`
	Audience      string     `bun:"audience"`
	GroupID       string     `bun:"group_id"`
	Status        string     `bun:"status"`
	Generation    int        `bun:"generation"`
	CreatedBy     string     `bun:"created_by"`
	CreatedAt     time.Time  `bun:"created_at"`
	StartedAt     time.Time  `bun:"started_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
	PausedAt      *time.Time `bun:"paused_at"`
	CancelledAt   *time.Time `bun:"cancelled_at"`
	CompletedAt   *time.Time `bun:"completed_at"`
}

// stepRow is a campaign_steps row.
type stepRow struct {
	bun.BaseModel `bun:"table:campaign_steps,alias:s"`
	ID            string     `bun:"id,pk"`
	TeamID        string     `bun:"team_id"`
	CampaignID    string     `bun:"campaign_id"`
	Position      int        `bun:"position"`
	SendAt        *time.Time `bun:"send_at"`
	DelaySeconds  *int64     `bun:"delay_seconds"`
	DueAt         time.Time  `bun:"due_at"`
	Text          string     `bun:"text"`
	TemplateID    string     `bun:"template_id"`
	Urgent        bool       `bun:"urgent"`
	Status        string     `bun:"status"`
	MessageID     string     `bun:"message_id"`
	ErrorCode     string     `bun:"error_code"`
	ErrorMessage  string     `bun:"error_message"`
	SentAt        *time.Time `bun:"sent_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
}

func toCampaign(r *campaignRow) domain.Campaign {
	return domain.Campaign{ID: r.ID, TeamID: r.TeamID, Name: r.Name, Audience: r.Audience, GroupID: r.GroupID, Status: r.Status,
		Generation: r.Generation, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, UpdatedAt: r.UpdatedAt,
		PausedAt: r.PausedAt, CancelledAt: r.CancelledAt, CompletedAt: r.CompletedAt}
}

func fromCampaign(c *domain.Campaign) *campaignRow {
	return &campaignRow{ID: c.ID, TeamID: c.TeamID, Name: c.Name, Audience: c.Audience, GroupID: c.GroupID, Status: c.Status,
		Generation: c.Generation, CreatedBy: c.CreatedBy, CreatedAt: c.CreatedAt, StartedAt: c.StartedAt, UpdatedAt: c.UpdatedAt,
		PausedAt: c.PausedAt, CancelledAt: c.CancelledAt, CompletedAt: c.CompletedAt}
}

func toStep(r *stepRow) domain.Step {
	return domain.Step{ID: r.ID, TeamID: r.TeamID, CampaignID: r.CampaignID, Position: r.Position, SendAt: r.SendAt,
		DelaySeconds: r.DelaySeconds, DueAt: r.DueAt, Text: r.Text, TemplateID: r.TemplateID, Urgent: r.Urgent, Status: r.Status,
		MessageID: r.MessageID, ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, SentAt: r.SentAt, UpdatedAt: r.UpdatedAt}
}

func fromStep(s *domain.Step) stepRow {
	return stepRow{ID: s.ID, TeamID: s.TeamID, CampaignID: s.CampaignID, Position: s.Position, SendAt: s.SendAt,
		DelaySeconds: s.DelaySeconds, DueAt: s.DueAt, Text: s.Text, TemplateID: s.TemplateID, Urgent: s.Urgent, Status: s.Status,
		MessageID: s.MessageID, ErrorCode: s.ErrorCode, ErrorMessage: s.ErrorMessage, SentAt: s.SentAt, UpdatedAt: s.UpdatedAt}
}

// Repo is the campaigns repository.
type Repo struct{ db *db.DB }

// NewRepo returns the repository.
func NewRepo(d *db.DB) *Repo { return &Repo{db: d} }

// Insert stores a campaign and its steps.
func (r *Repo) Insert(ctx context.Context, c domain.Campaign, steps []domain.Step) error {
	idb := r.db.IDB(ctx)
	if _, err := idb.NewInsert().Model(fromCampaign(&c)).Exec(ctx); err != nil {
		return fmt.Errorf("insert campaign: %w", err)
	}
	rows := make([]stepRow, len(steps))
	for i := range steps {
		rows[i] = fromStep(&steps[i])
	}
	if _, err := idb.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return fmt.Errorf("insert %d campaign steps: %w", len(steps), err)
	}
	return nil
}

// Campaign loads a team's campaign.
func (r *Repo) Campaign(ctx context.Context, teamID, id string) (*domain.Campaign, error) {
	c := new(campaignRow)
	if err := r.db.IDB(ctx).NewSelect().Model(c).Where("team_id = ? AND id = ?", teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select campaign")
	}
	out := toCampaign(c)
	return &out, nil
}

// Campaigns lists a team's campaigns, newest first, limit+1 rows.
func (r *Repo) Campaigns(ctx context.Context, teamID string, limit, offset int) ([]domain.Campaign, error) {
	var cs []campaignRow
	err := r.db.IDB(ctx).NewSelect().Model(&cs).Where("team_id = ?", teamID).
		OrderExpr("created_at DESC, id DESC").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list campaigns: %w", err)
	}
	out := make([]domain.Campaign, len(cs))
	for i := range cs {
		out[i] = toCampaign(&cs[i])
	}
	return out, nil
}

// UpdateCampaign loads a team's campaign locked (SELECT ... FOR UPDATE),
// lets change alter it and writes every column back, in one transaction
// (the caller's, if ctx carries one, and it must when change does work of
// its own that belongs with the campaign's). Every change of a campaign and
// every step run goes through here, so they are serialised per campaign.
// When change fails nothing is written, and when it leaves the campaign as
// it was no statement is spent on writing it. It answers the campaign as
// stored.
func (r *Repo) UpdateCampaign(ctx context.Context, teamID, id string, change func(*domain.Campaign) error) (*domain.Campaign, error) {
	var out *domain.Campaign
	err := r.db.Tx(ctx, func(ctx context.Context) error {
		row := new(campaignRow)
		if err := r.db.IDB(ctx).NewSelect().Model(row).Where("team_id = ? AND id = ?", teamID, id).For("UPDATE").Scan(ctx); err != nil {
			return notFound(err, "select campaign")
		}
		c := toCampaign(row)
		before := c
		if err := change(&c); err != nil {
			return err
		}
		if c != before {
			if _, err := r.db.IDB(ctx).NewUpdate().Model(fromCampaign(&c)).WherePK().Where("team_id = ?", teamID).Exec(ctx); err != nil {
				return fmt.Errorf("update campaign: %w", err)
			}
		}
		out = &c
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Steps returns the steps of a team's campaigns, by campaign and position.
func (r *Repo) Steps(ctx context.Context, teamID string, campaignIDs ...string) ([]domain.Step, error) {
	var ss []stepRow
	if len(campaignIDs) == 0 {
		return nil, nil
	}
	err := r.db.IDB(ctx).NewSelect().Model(&ss).Where("team_id = ? AND campaign_id IN (?)", teamID, bun.In(campaignIDs)).
		OrderExpr("campaign_id, position").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("select campaign steps: %w", err)
	}
	out := make([]domain.Step, len(ss))
	for i := range ss {
		out[i] = toStep(&ss[i])
	}
	return out, nil
}

// Step loads one step of a team's campaign.
func (r *Repo) Step(ctx context.Context, teamID, campaignID, id string) (*domain.Step, error) {
	s := new(stepRow)
	err := r.db.IDB(ctx).NewSelect().Model(s).Where("team_id = ? AND campaign_id = ? AND id = ?", teamID, campaignID, id).Scan(ctx)
	if err != nil {
		return nil, notFound(err, "select campaign step")
	}
	out := toStep(s)
	return &out, nil
}

// UpdateStep writes every column of s.
func (r *Repo) UpdateStep(ctx context.Context, s *domain.Step) error {
	row := fromStep(s)
	if _, err := r.db.IDB(ctx).NewUpdate().Model(&row).WherePK().Where("team_id = ?", s.TeamID).Exec(ctx); err != nil {
		return fmt.Errorf("update campaign step: %w", err)
	}
	return nil
}

// SetPendingSteps moves a campaign's pending steps (all of them, or those
// listed in ids) to status.
func (r *Repo) SetPendingSteps(ctx context.Context, teamID, campaignID, status string, at time.Time, ids ...string) error {
	q := r.db.IDB(ctx).NewUpdate().Model((*stepRow)(nil)).Set("status = ?", status).Set("updated_at = ?", at).
		Where("team_id = ? AND campaign_id = ? AND status = 'pending'", teamID, campaignID)
	if len(ids) > 0 {
		q = q.Where("id IN (?)", bun.In(ids))
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("set pending campaign steps %s: %w", status, err)
	}
	return nil
}

// CountPendingSteps counts a campaign's steps still pending.
func (r *Repo) CountPendingSteps(ctx context.Context, teamID, campaignID string) (int, error) {
	n, err := r.db.IDB(ctx).NewSelect().Model((*stepRow)(nil)).
		Where("team_id = ? AND campaign_id = ? AND status = 'pending'", teamID, campaignID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count pending campaign steps: %w", err)
	}
	return int(n), nil
}
