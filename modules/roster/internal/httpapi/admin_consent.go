package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/adminview"
	"github.com/teamtext/teamtext/modules/roster/internal/httpapi/view"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// consentCSVHeader is the CSV export's header: one row per history fact.
var consentCSVHeader = []string{"at", "kind", "channel", "changed", "phone", "member_id", "source", "evidence", "message_id", "recorded_at", "id"}

const consentExportDescription = "Exports the consent record of one phone number of the team (`phone`, any common US format; " +
	"missing or not a valid US number: 400 invalid_phone): its roster entries with their consent records, whether it is opted out, " +
	"and its whole consent history, oldest first — consent given when members were added, every STOP, START and HELP text, every " +
	"opt-out recorded through the API or by support — not paginated.\n\n" +
	"`format=json` (the default) answers `{\"data\": ...}`; `format=csv`, or `Accept: text/csv` without format, answers `text/csv` " +
	"(UTF-8, a header row, then one row per history fact in the same order) with columns " +
	"at, kind, channel, changed, phone, member_id, source, evidence, message_id, recorded_at, id (times RFC 3339 UTC; empty cells for nulls; " +
	"evidence starting with =, +, - or @ is prefixed with ' so spreadsheets do not run it). Another team's number has no history here."

// consentExportInput is the export's request. Accept is read, not declared:
// OpenAPI ignores a parameter named Accept.
type consentExportInput struct {
	TeamID string `path:"team_id"`
	Phone  string `query:"phone" doc:"The number, any common US format. Required."`
	Format string `query:"format" enum:"json,csv" doc:"json (the default) or csv; when omitted, Accept: text/csv asks for CSV."`
	accept string
}

// Resolve reads the Accept header.
func (in *consentExportInput) Resolve(ctx huma.Context) []error {
	in.accept = ctx.Header("Accept")
	return nil
}

// consentExportOutput is the export as bytes: JSON or CSV.
type consentExportOutput struct {
	ContentType        string `header:"Content-Type"`
	ContentDisposition string `header:"Content-Disposition" doc:"attachment, with a file name, for CSV."`
	Body               []byte
}

// consentCSV writes the history as CSV (see consentExportDescription).
func consentCSV(history []view.ConsentEvent) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(consentCSVHeader)
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	for _, e := range history {
		_ = w.Write([]string{e.At.UTC().Format(time.RFC3339Nano), e.Kind, e.Channel, strconv.FormatBool(e.Changed), e.Phone, str(e.MemberID),
			str(e.Source), spreadsheetSafe(str(e.Evidence)), str(e.MessageID), e.RecordedAt.UTC().Format(time.RFC3339Nano), e.ID})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("write consent CSV: %w", err)
	}
	return buf.Bytes(), nil
}

// spreadsheetSafe keeps a free-text cell from being run as a formula by a
// spreadsheet that opens the export (OWASP's CSV injection advice).
func spreadsheetSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}

func (h *handler) adminExportConsent(ctx context.Context, in *consentExportInput) (*consentExportOutput, error) {
	x, err := h.svc.ExportConsent(ctx, in.TeamID, in.Phone)
	if err != nil {
		return nil, err
	}
	out := adminview.ConsentExport{Phone: x.Phone, OptedOut: x.OptedOut, Members: make([]adminview.ConsentMember, len(x.Members)),
		History: make([]view.ConsentEvent, len(x.History))}
	for i, m := range x.Members {
		out.Members[i] = adminview.ConsentMember{ID: m.ID, Name: m.Name, Status: m.Status, Removed: m.DeletedAt != nil, Consent: view.ConsentFrom(m.MemberConsent)}
	}
	for i := range x.History {
		out.History[i] = view.ConsentEventFrom(&x.History[i])
	}
	if in.Format == "csv" || in.Format == "" && strings.Contains(in.accept, "text/csv") {
		body, err := consentCSV(out.History)
		if err != nil {
			return nil, err
		}
		return &consentExportOutput{ContentType: "text/csv; charset=utf-8", Body: body,
			ContentDisposition: `attachment; filename="consent-` + strings.TrimPrefix(x.Phone, "+") + `.csv"`}, nil
	}
	body, err := json.Marshal(httpapi.DataBody[adminview.ConsentExport]{Data: out})
	if err != nil {
		return nil, fmt.Errorf("encode consent export: %w", err)
	}
	return &consentExportOutput{ContentType: "application/json", Body: body}, nil
}
