package domain

import "time"

// Import states: a browser import is queued until its job starts, running
// while its rows are written, then done (every row has its outcome) or
// failed (the file could not be imported at all; Error says why).
const (
	ImportQueued  = "queued"
	ImportRunning = "running"
	ImportDone    = "done"
	ImportFailed  = "failed"
)

// Import is a CSV file uploaded from the dashboard and imported by a job:
// its progress, its totals, and its rejected rows by CSV line.
type Import struct {
	ID, TeamID, MemberID string
	FileName             string
	File                 []byte // the upload; dropped once the import finished
	Status               string
	TotalRows, DoneRows  int
	Created, Failed      int
	Rejected             []RejectedRow
	Error                string
	CreatedAt            time.Time
	FinishedAt           *time.Time
}

// RejectedRow is a data row the import refused: its CSV line (the header
// is line 1) and why.
type RejectedRow struct {
	Line    int    `json:"line"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Finished reports whether the import has ended, well or not.
func (i *Import) Finished() bool { return i.Status == ImportDone || i.Status == ImportFailed }

// Percent is how much of the file has been worked through, 0 to 100.
func (i *Import) Percent() int {
	if i.Finished() {
		return 100
	}
	if i.TotalRows == 0 {
		return 0
	}
	return i.DoneRows * 100 / i.TotalRows
}
