package admin

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	rosterhttp "github.com/teamtext/teamtext/modules/roster/internal/httpapi"
	"github.com/teamtext/teamtext/modules/roster/internal/service"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// ConsentMember is a roster entry with the exported number.
type ConsentMember struct {
	ID      string              `json:"id"`
	Name    string              `json:"name"`
	Status  string              `json:"status" enum:"pending,active,opted_out"`
	Removed bool                `json:"removed" doc:"Removed from the roster and kept on record because the number opted out."`
	Consent *rosterhttp.Consent `json:"consent" doc:"The entry's consent record; null for members added before teamtext kept consent records."`
}

// ConsentExport is the consent record of one number of a team.
type ConsentExport struct {
	Phone    string                    `json:"phone" doc:"E.164."`
	OptedOut bool                      `json:"opted_out" doc:"Whether the number is opted out now."`
	Members  []ConsentMember           `json:"members" doc:"The team's roster entries with the number, oldest first, removed ones kept on record included."`
	History  []rosterhttp.ConsentEvent `json:"history" doc:"The number's whole consent history, oldest first."`
}

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

func registerConsent(api huma.API, svc *service.Service) {
	reg := api.OpenAPI().Components.Schemas
	jsonSchema := reg.Schema(reflect.TypeOf(httpapi.DataBody[ConsentExport]{}), true, "ConsentExportBody")
	httpapi.Register(api, huma.Operation{
		OperationID: "admin-export-consent", Method: http.MethodGet, Path: "/teams/{team_id}/consent", Tags: []string{"Members"},
		Summary: "Export a number's consent record", Description: consentExportDescription,
		Responses: map[string]*huma.Response{"200": {
			Description: "The number's consent record.",
			Content: map[string]*huma.MediaType{
				"application/json": {Schema: jsonSchema},
				"text/csv":         {Schema: &huma.Schema{Type: "string", Description: "The history as CSV (see the description)."}},
			},
		}},
	}, func(ctx context.Context, in *consentExportInput) (*consentExportOutput, error) {
		x, err := svc.ExportConsent(ctx, in.TeamID, in.Phone)
		if err != nil {
			return nil, err
		}
		out := ConsentExport{Phone: x.Phone, OptedOut: x.OptedOut, Members: make([]ConsentMember, len(x.Members)),
			History: make([]rosterhttp.ConsentEvent, len(x.History))}
		for i, m := range x.Members {
			out.Members[i] = ConsentMember{ID: m.ID, Name: m.Name, Status: m.Status, Removed: m.DeletedAt != nil, Consent: rosterhttp.ConsentFrom(m.MemberConsent)}
		}
		for i := range x.History {
			out.History[i] = rosterhttp.ConsentEventFrom(&x.History[i])
		}
		if in.Format == "csv" || in.Format == "" && strings.Contains(in.accept, "text/csv") {
			body, err := consentCSV(out.History)
			if err != nil {
				return nil, err
			}
			return &consentExportOutput{ContentType: "text/csv; charset=utf-8", Body: body,
				ContentDisposition: `attachment; filename="consent-` + strings.TrimPrefix(x.Phone, "+") + `.csv"`}, nil
		}
		body, err := json.Marshal(httpapi.DataBody[ConsentExport]{Data: out})
		if err != nil {
			return nil, fmt.Errorf("encode consent export: %w", err)
		}
		return &consentExportOutput{ContentType: "application/json", Body: body}, nil
	}, http.StatusBadRequest)
}

// consentCSV writes the history as CSV (see consentExportDescription).
func consentCSV(history []rosterhttp.ConsentEvent) ([]byte, error) {
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
