package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
)

// importRow is a roster_imports row.
type importRow struct {
	bun.BaseModel `bun:"table:roster_imports"`
	ID            string               `bun:"id,pk"`
	TeamID        string               `bun:"team_id"`
	MemberID      string               `bun:"member_id"`
	FileName      string               `bun:"file_name"`
	File          []byte               `bun:"file"`
	Status        string               `bun:"status"`
	TotalRows     int                  `bun:"total_rows"`
	DoneRows      int                  `bun:"done_rows"`
	Created       int                  `bun:"created"`
	Failed        int                  `bun:"failed"`
	Rejected      []domain.RejectedRow `bun:"rejected,type:jsonb"`
	Error         string               `bun:"error"`
	CreatedAt     time.Time            `bun:"created_at"`
	FinishedAt    *time.Time           `bun:"finished_at"`
}

func (r *importRow) toDomain() *domain.Import {
	return &domain.Import{ID: r.ID, TeamID: r.TeamID, MemberID: r.MemberID, FileName: r.FileName, File: r.File, Status: r.Status,
		TotalRows: r.TotalRows, DoneRows: r.DoneRows, Created: r.Created, Failed: r.Failed, Rejected: r.Rejected, Error: r.Error,
		CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt}
}

// importShown are the columns a page reads: everything but the file and
// the rejected rows' CSV.
var importShown = []string{"id", "team_id", "member_id", "file_name", "status", "total_rows", "done_rows", "created", "failed",
	"rejected", "error", "created_at", "finished_at"}

// InsertImport stores a new browser import with its file.
func (r *Repo) InsertImport(ctx context.Context, i *domain.Import) error {
	row := &importRow{ID: i.ID, TeamID: i.TeamID, MemberID: i.MemberID, FileName: i.FileName, File: i.File, Status: i.Status,
		TotalRows: i.TotalRows, Rejected: []domain.RejectedRow{}, CreatedAt: i.CreatedAt}
	if _, err := r.db.IDB(ctx).NewInsert().Model(row).Exec(ctx); err != nil {
		return fmt.Errorf("insert import: %w", err)
	}
	return nil
}

// Import loads a team's import without its file.
func (r *Repo) Import(ctx context.Context, teamID, id string) (*domain.Import, error) {
	row := new(importRow)
	if err := r.db.IDB(ctx).NewSelect().Model(row).Column(importShown...).Where("team_id = ? AND id = ?", teamID, id).Scan(ctx); err != nil {
		return nil, notFound(err, "select import")
	}
	return row.toDomain(), nil
}

// StartImport marks a queued (or, after a crash, running) import as
// running and returns it with its file; domain.ErrNotFound when it is
// finished or gone.
func (r *Repo) StartImport(ctx context.Context, id string) (*domain.Import, error) {
	row := new(importRow)
	err := r.db.IDB(ctx).NewUpdate().Model(row).Set("status = ?", domain.ImportRunning).
		Where("id = ? AND status IN (?, ?)", id, domain.ImportQueued, domain.ImportRunning).Returning("*").Scan(ctx)
	if err != nil {
		return nil, notFound(err, "start import")
	}
	return row.toDomain(), nil
}

// ImportProgress records how many rows of an import have their outcome.
func (r *Repo) ImportProgress(ctx context.Context, id string, done int) error {
	if _, err := r.db.IDB(ctx).NewUpdate().Model((*importRow)(nil)).Set("done_rows = ?", done).Where("id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("import progress: %w", err)
	}
	return nil
}

// FinishImport records an import's outcome and drops its file.
func (r *Repo) FinishImport(ctx context.Context, i *domain.Import, rejectedCSV []byte) error {
	row := &importRow{ID: i.ID, Status: i.Status, TotalRows: i.TotalRows, DoneRows: i.DoneRows, Created: i.Created, Failed: i.Failed,
		Rejected: i.Rejected, Error: i.Error, FinishedAt: i.FinishedAt}
	if row.Rejected == nil {
		row.Rejected = []domain.RejectedRow{}
	}
	_, err := r.db.IDB(ctx).NewUpdate().Model(row).
		Column("status", "total_rows", "done_rows", "created", "failed", "rejected", "error", "finished_at").
		Set("file = NULL").Set("rejected_csv = ?", rejectedCSV).WherePK().Exec(ctx)
	if err != nil {
		return fmt.Errorf("finish import: %w", err)
	}
	return nil
}

// RejectedCSV is an import's rejected rows as CSV (nil when none).
func (r *Repo) RejectedCSV(ctx context.Context, teamID, id string) ([]byte, error) {
	var b []byte
	err := r.db.IDB(ctx).NewSelect().Model((*importRow)(nil)).Column("rejected_csv").Where("team_id = ? AND id = ?", teamID, id).Scan(ctx, &b)
	if err != nil {
		return nil, notFound(err, "select rejected rows")
	}
	return b, nil
}

// Imports lists a team's latest imports, newest first, without files.
func (r *Repo) Imports(ctx context.Context, teamID string, limit int) ([]domain.Import, error) {
	var rows []importRow
	err := r.db.IDB(ctx).NewSelect().Model(&rows).Column(importShown...).Where("team_id = ?", teamID).
		OrderExpr("created_at DESC, id DESC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list imports: %w", err)
	}
	out := make([]domain.Import, len(rows))
	for i := range rows {
		out[i] = *rows[i].toDomain()
	}
	return out, nil
}
