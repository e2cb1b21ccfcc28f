package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
)

// This file is the templates store: a team's saved templates (the
// service's TemplateStore).

// templateRow is a messaging_templates row.
type templateRow struct {
	bun.BaseModel `bun:"table:messaging_templates,alias:t"`
	ID            string     `bun:"id,pk"`
	TeamID        string     `bun:"team_id"`
	Name          string     `bun:"name"`
	Body          string     `bun:"body"`
	MessageType   string     `bun:"message_type"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
	DeletedAt     *time.Time `bun:"deleted_at"`
}

// Templates lists a team's live templates by name, limit+1 rows.
func (r *Repo) Templates(ctx context.Context, teamID string, limit, offset int) ([]domain.Template, error) {
	var ts []templateRow
	err := r.db.IDB(ctx).NewSelect().Model(&ts).Where("team_id = ? AND deleted_at IS NULL", teamID).
		OrderExpr("lower(name), id").Limit(int64(limit + 1)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list templates: %w", err)
	}
	return toTemplates(ts), nil
}

// CountTemplates counts a team's live templates.
func (r *Repo) CountTemplates(ctx context.Context, teamID string) (int, error) {
	n, err := r.db.IDB(ctx).NewSelect().Model((*templateRow)(nil)).Where("team_id = ? AND deleted_at IS NULL", teamID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count templates: %w", err)
	}
	return int(n), nil
}

// Template loads a team's live (not deleted) template.
func (r *Repo) Template(ctx context.Context, teamID, id string) (*domain.Template, error) {
	t := new(templateRow)
	if err := r.selectTemplate(ctx, t, teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select template")
	}
	return toTemplate(t), nil
}

// selectTemplate is the statement that reads a team's live template into t.
func (r *Repo) selectTemplate(ctx context.Context, t *templateRow, teamID, id string) *bun.SelectQuery {
	return r.db.IDB(ctx).NewSelect().Model(t).Where("team_id = ? AND id = ?", teamID, id).Where("deleted_at IS NULL")
}

// UpdateTemplate loads a team's live template locked, lets change alter
// it and writes every column back, in one transaction (the caller's, if
// ctx carries one). When change fails nothing is written. It answers the
// template as written.
func (r *Repo) UpdateTemplate(ctx context.Context, teamID, id string, change func(*domain.Template) error) (*domain.Template, error) {
	var out *domain.Template
	err := r.db.Tx(ctx, func(ctx context.Context) error {
		row := new(templateRow)
		if err := r.selectTemplate(ctx, row, teamID, id).For("UPDATE").Scan(ctx); err != nil {
			return notFound(err, "select template")
		}
		t := toTemplate(row)
		if err := change(t); err != nil {
			return err
		}
		if err := r.WriteTemplate(ctx, t); err != nil {
			return err
		}
		out = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TemplateByName loads a team's template by name (deleted included), locked.
func (r *Repo) TemplateByName(ctx context.Context, teamID, name string) (*domain.Template, error) {
	t := new(templateRow)
	if err := r.db.IDB(ctx).NewSelect().Model(t).Where("team_id = ? AND lower(name) = lower(?)", teamID, name).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, "select template by name")
	}
	return toTemplate(t), nil
}

// InsertTemplate stores a template.
func (r *Repo) InsertTemplate(ctx context.Context, t *domain.Template) error {
	if _, err := r.db.IDB(ctx).NewInsert().Model(fromTemplate(t)).Exec(ctx); err != nil {
		return fmt.Errorf("insert template: %w", err)
	}
	return nil
}

// WriteTemplate writes every column of t, a template the caller holds
// locked (TemplateByName).
func (r *Repo) WriteTemplate(ctx context.Context, t *domain.Template) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model(fromTemplate(t)).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("update template: %w", err)
	}
	return nil
}

// LockTemplates takes the team's templates lock for the transaction, so
// the count and name checks of concurrent changes see each other.
func (r *Repo) LockTemplates(ctx context.Context, teamID string) error {
	if _, err := r.db.IDB(ctx).ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('templates|' || ?, 0))`, teamID); err != nil {
		return fmt.Errorf("lock templates: %w", err)
	}
	return nil
}

func toTemplate(r *templateRow) *domain.Template {
	return &domain.Template{ID: r.ID, TeamID: r.TeamID, Name: r.Name, Body: r.Body, MessageType: r.MessageType,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, DeletedAt: r.DeletedAt}
}

func fromTemplate(t *domain.Template) *templateRow {
	return &templateRow{ID: t.ID, TeamID: t.TeamID, Name: t.Name, Body: t.Body, MessageType: t.MessageType,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, DeletedAt: t.DeletedAt}
}

func toTemplates(rs []templateRow) []domain.Template {
	out := make([]domain.Template, len(rs))
	for i := range rs {
		out[i] = *toTemplate(&rs[i])
	}
	return out
}
