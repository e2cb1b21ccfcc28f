package service

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/riverqueue/river"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/id"
)

// Browser imports: the dashboard's CSV file field uploads a file, which is
// checked as the admin import checks it (a file-level problem is refused
// at once and nothing is kept), stored with a job in one transaction, and
// imported by that job through the very use case of the admin import
// (importMembers), so the same rules, events and consent rows apply. The
// page follows the job's progress from the row in Postgres, on any node.

// ImportMaxBytes is the largest CSV file an import accepts (as the admin
// API's body limit).
const ImportMaxBytes = 16 << 20

// ImportRejectedShown is how many rejected rows an import keeps to show
// on its page; the CSV download holds every one.
const ImportRejectedShown = 1000

// ImportMembersArgs is the job that imports a browser upload.
type ImportMembersArgs struct {
	ImportID string `json:"import_id"`
}

// Kind names the job.
func (ImportMembersArgs) Kind() string { return "roster.import_members" }

// InsertOpts: a crashed import is taken up again by River's rescuer and
// the job's next attempt; rows already written then answer member_exists.
func (ImportMembersArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// ImportJobTimeout bounds one attempt of the job: 100,000 rows take
// 5–7 s on a shared 2-CPU machine; River's default (a minute) is too
// tight for a slow one.
const ImportJobTimeout = 15 * time.Minute

// StartImport checks a CSV file as ImportMembers does and, when the file
// itself is sound, stores it and queues its import in the caller's
// transaction. Row problems are the job's to report.
func (s *Service) StartImport(ctx context.Context, teamID, memberID, fileName string, data []byte) (*domain.Import, error) {
	if len(data) > ImportMaxBytes {
		return nil, fault.Invalidf("the file is larger than 16 MiB; split it into several imports")
	}
	fields, err := s.st.Fields.CustomFields(ctx, teamID)
	if err != nil {
		return nil, fmt.Errorf("start import: %w", err)
	}
	sheet, err := parseImport(data, fields)
	if err != nil {
		return nil, err
	}
	if len(sheet.rows) == 0 {
		return nil, fault.Invalidf("the file has a header row but no data rows; nothing was imported")
	}
	im := &domain.Import{ID: id.New("imp"), TeamID: teamID, MemberID: memberID, FileName: fileName, File: data,
		Status: domain.ImportQueued, TotalRows: len(sheet.rows), CreatedAt: s.clock.Now().UTC()}
	err = s.db.Tx(ctx, func(ctx context.Context) error {
		if err := s.st.Imports.InsertImport(ctx, im); err != nil {
			return err
		}
		_, err := s.jobs.Insert(ctx, ImportMembersArgs{ImportID: im.ID}, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("start import: %w", err)
	}
	im.File = nil
	return im, nil
}

// RunImport is the job: it imports the stored file, recording progress as
// each chunk of rows settles, then the totals and the rejected rows.
func (s *Service) RunImport(ctx context.Context, a ImportMembersArgs) error {
	im, err := s.st.Imports.StartImport(ctx, a.ImportID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil // finished already (a duplicate attempt), or gone
	}
	if err != nil {
		return err
	}
	progress := func(done int) {
		if err := s.st.Imports.ImportProgress(ctx, im.ID, done); err != nil {
			s.log.Warn("import progress not recorded", "import_id", im.ID, "err", err)
		}
	}
	res, err := s.importMembers(ctx, im.TeamID, im.File, importOptions{progress: progress})
	now := s.clock.Now().UTC()
	im.FinishedAt = &now
	if f, ok := fault.As(err); ok && f.Kind != fault.Internal {
		// The file was sound when uploaded but is not now (a custom field
		// it names was deleted meanwhile): nothing was imported.
		im.Status, im.Error = domain.ImportFailed, f.Message
		return s.st.Imports.FinishImport(ctx, im, nil)
	}
	if err != nil {
		return err // River retries; rows already written answer member_exists
	}
	im.Status, im.DoneRows, im.Created, im.Failed = domain.ImportDone, len(res.Rows), res.Created, res.Failed
	rejected, err := rejectedCSV(res)
	if err != nil {
		return err
	}
	for _, r := range res.Rows {
		if r.Status != ImportFailed || len(im.Rejected) == ImportRejectedShown {
			continue
		}
		im.Rejected = append(im.Rejected, domain.RejectedRow{Line: r.Line, Code: r.Err.Code, Message: r.Err.Message})
	}
	return s.st.Imports.FinishImport(ctx, im, rejected)
}

// rejectedCSV is the rejected rows as a CSV file to fix and import again:
// the file's own header and cells, then the row's CSV line and the reason
// (nil when every row was imported).
func rejectedCSV(res *ImportResult) ([]byte, error) {
	if res.Failed == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(append(append([]string{}, res.Header...), "line", "error"))
	for _, r := range res.Rows {
		if r.Status != ImportFailed {
			continue
		}
		msg := ""
		if r.Err != nil {
			msg = r.Err.Message
		}
		_ = w.Write(append(append([]string{}, r.Cells...), strconv.Itoa(r.Line), msg))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("rejected rows: %w", err)
	}
	return b.Bytes(), nil
}

var errImportNotFound = fault.NotFoundf("import not found")

// Import is one of a team's browser imports.
func (s *Service) Import(ctx context.Context, teamID, importID string) (*domain.Import, error) {
	im, err := s.st.Imports.Import(ctx, teamID, importID)
	return im, mapNotFound(err, errImportNotFound)
}

// Imports are a team's latest browser imports, newest first.
func (s *Service) Imports(ctx context.Context, teamID string, limit int) ([]domain.Import, error) {
	return s.st.Imports.Imports(ctx, teamID, limit)
}

// RejectedRows is an import's rejected rows as CSV (empty when none).
func (s *Service) RejectedRows(ctx context.Context, teamID, importID string) ([]byte, error) {
	b, err := s.st.Imports.RejectedCSV(ctx, teamID, importID)
	return b, mapNotFound(err, errImportNotFound)
}
