package httpapi

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/adminview"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// importBudget bounds an import's row work so the answer is written within
// the admin server's 60 s write timeout, with room to spare for a loaded
// machine and for encoding the answer. Kept at 45 s: at the
// 15,000–20,000 rows/s measured on a shared 2-CPU machine the largest file
// (100,000 rows) takes 5–7 s, so the budget only bites on a machine
// several times slower, and raising it would need the write timeout raised
// too (docs/BENCHMARKS-HISTORY.md).
const importBudget = 45 * time.Second

const importDescription = "Imports a roster from CSV (`text/csv`, UTF-8, optional BOM, up to 16 MiB and " +
	"100,000 data rows). The header row is required; columns are matched case-insensitively, in any order: " +
	"`name` and `phone` (required), `email`, `role` (default athlete; staff roles allowed), `status` (pending or " +
	"active, default active), `groups` (group names or ids separated by `;`), the consent record's `consent_source` (dashboard, api, import, " +
	"keyword or web_signup; default import), `consent_at` (RFC 3339 with an offset, not in the future; default the import's " +
	"time) and `consent_evidence` (up to 1000 characters), `time_zone` (the member's own IANA time zone for quiet hours, " +
	"such as America/Chicago; empty: unset, the phone's area code decides), and any custom field key of the team (private fields included; " +
	"a custom field keyed consent_source, consent_at, consent_evidence or time_zone keeps that column). Each new member's consent is " +
	"kept in their number's consent history (channel import).\n\n" +
	"**Atomic per row.** The file is checked first: an empty file, invalid CSV or UTF-8, a missing name or phone " +
	"column, an unknown column or too many rows answer 400 invalid_request and write nothing. Then each data row " +
	"gets the outcome of a single dashboard add, with its rules (invalid_phone, opted_out, member_exists, " +
	"staff_member_protected, invalid_group, ...): a failed row never undoes another, and each active new member " +
	"emits member.joined. Rows are applied in file order (rows are written in batches of 1,000, each batch in one transaction, two batches at a time, each committing after the one before). The answer lists every row with its " +
	"CSV line, status and member_id or error, and the totals. Rows are not started after 45 s of work, so the " +
	"answer always arrives: such rows fail with import_timeout and can be imported again (rows already imported " +
	"then answer member_exists)."

func (h *handler) adminImportMembers(ctx context.Context, in *struct {
	TeamID  string `path:"team_id"`
	RawBody []byte `contentType:"text/csv"`
}) (*httpapi.DataOutput[adminview.ImportResult], error) {
	res, err := h.svc.ImportMembers(ctx, in.TeamID, in.RawBody, importBudget)
	if err != nil {
		return nil, err
	}
	out := adminview.ImportResult{Created: res.Created, Failed: res.Failed, Rows: make([]adminview.ImportRow, len(res.Rows))}
	var firstCause error
	causeLine := 0
	for i, r := range res.Rows {
		out.Rows[i] = adminview.ImportRow{Line: r.Line, Status: r.Status, MemberID: r.MemberID}
		if r.Err != nil {
			out.Rows[i].Error = &httpapi.ErrorDetail{Code: r.Err.Code, Message: r.Err.Message, Fields: r.Err.Fields}
			if r.Err.Kind == fault.Internal && firstCause == nil {
				firstCause, causeLine = r.Err, r.Line
			}
		}
	}
	attrs := []slog.Attr{slog.Int("import_rows", len(res.Rows)), slog.Int("import_created", res.Created), slog.Int("import_failed", res.Failed)}
	if firstCause != nil {
		attrs = append(attrs, slog.String("import_error", "line "+strconv.Itoa(causeLine)+": "+firstCause.Error()))
	}
	httpapi.AddLogAttrs(ctx, attrs...)
	return httpapi.Data(out), nil
}
