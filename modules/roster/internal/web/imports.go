package web

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/teamtext/teamtext/modules/roster/internal/domain"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/web"
)

// importsListed is how many past imports the Import tab lists.
const importsListed = 10

// importView is the Import tab: the CSV file field and the latest imports.
type importView struct {
	Imports []domain.Import
	Err     string
	Zone    string
	Max     int
}

func (h *handler) importView(ctx context.Context, v *web.Viewer) (*importView, error) {
	is, err := h.roster.Imports(ctx, v.TeamID, importsListed)
	return &importView{Imports: is, Zone: v.TimeZone, Max: service.ImportMaxRows}, err
}

// importShow is GET /app/roster/import.
func (h *handler) importShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	iv, err := h.importView(r.Context(), v)
	h.show(w, r, h.t["import"], "Import members", iv, err)
}

// errNoFile is the answer to an upload without a file.
var errNoFile = fault.Invalidf("choose a CSV file to import")

// importStart is POST /app/roster/import (multipart, field csv_file): the
// file is checked and queued, and the browser goes to the import's page,
// which follows its progress. A file-level problem is shown on the form
// and nothing is kept.
func (h *handler) importStart(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	ctx := r.Context()
	data, name, err := upload(r, "csv_file")
	var id string
	if err == nil {
		err = h.shell.Do(ctx, r, v, "imported members", func(ctx context.Context) (string, error) {
			im, err := h.roster.StartImport(ctx, v.TeamID, v.MemberID, name, data)
			if err != nil {
				return "", err
			}
			id = im.ID
			return id, nil
		})
	}
	if err != nil {
		h.refuse(w, r, err, func(status int, msg string) {
			iv, verr := h.importView(ctx, v)
			if verr != nil {
				h.shell.Fail(w, r, verr)
				return
			}
			iv.Err = msg
			h.shell.Render(w, r, h.t["import"], status, "Import members", iv)
		})
		return
	}
	web.Redirect(w, r, "/app/roster/import/"+id)
}

// upload reads a multipart form's file field (the shell parsed the form
// when it checked the CSRF token, within the edge's body limit).
func upload(r *http.Request, field string) ([]byte, string, error) {
	f, hdr, err := r.FormFile(field)
	if errors.Is(err, http.ErrMissingFile) || errors.Is(err, http.ErrNotMultipart) {
		return nil, "", errNoFile
	}
	if err != nil {
		return nil, "", fault.Invalidf("the upload could not be read; try again")
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, service.ImportMaxBytes+1))
	if err != nil {
		return nil, "", fault.Invalidf("the upload could not be read; try again")
	}
	if len(b) == 0 {
		return nil, "", errNoFile
	}
	return b, hdr.Filename, nil
}

// importRunView is an import's page.
type importRunView struct {
	I         *domain.Import
	MoreShown bool // more rows were rejected than the page lists
}

func (h *handler) importRun(ctx context.Context, v *web.Viewer, id string) (*importRunView, error) {
	im, err := h.roster.Import(ctx, v.TeamID, id)
	if err != nil {
		return nil, err
	}
	return &importRunView{I: im, MoreShown: im.Failed > len(im.Rejected)}, nil
}

// importRunShow is GET /app/roster/import/{import_id}: progress while it
// runs (polled by the page's script), then per-row results.
func (h *handler) importRunShow(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	iv, err := h.importRun(r.Context(), v, r.PathValue("import_id"))
	h.show(w, r, h.t["importrun"], "Import", iv, err)
}

// importProgress is the import page's progress block alone, for its script.
func (h *handler) importProgress(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	iv, err := h.importRun(r.Context(), v, r.PathValue("import_id"))
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	h.shell.Fragment(w, r, h.t["importrun"], "progress", http.StatusOK, iv)
}

// importRejected is GET /app/roster/import/{import_id}/rejected.csv: the
// rejected rows as written, with their CSV line and the reason.
func (h *handler) importRejected(w http.ResponseWriter, r *http.Request, v *web.Viewer) {
	b, err := h.roster.RejectedRows(r.Context(), v.TeamID, r.PathValue("import_id"))
	if err != nil {
		h.shell.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="rejected-rows.csv"`)
	_, _ = w.Write(b)
}
