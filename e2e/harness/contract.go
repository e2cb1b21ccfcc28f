package harness

// The contract check: every exchange the suites had with /api/v1 and
// /admin/v1 (recorded by the harness's client) is validated against the
// documents the service serves, 3.1 and 3.0, with kin-openapi — an
// implementation independent of huma, which writes the documents. The e2e
// suite runs it from TestMain once every test is done, so no test can opt
// out of it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// contractHost replaces each exchange's host, so that exchanges with any
// service the suites started (extra nodes, other clocks) meet one router.
const contractHost = "contract.invalid"

// transportHeaders are set by net/http, not by the service's operations.
var transportHeaders = map[string]bool{
	"Content-Type": true, "Content-Length": true, "Date": true, "Connection": true, "Transfer-Encoding": true,
}

// ContractDoc is one served document and its router.
type ContractDoc struct {
	api     string // "public" or "admin"
	version string // "3.1" or "3.0"
	prefix  string // "/api/v1" or "/admin/v1"
	doc     *openapi3.T
	router  routers.Router
}

// mismatch is one way the wire disagreed with a document, with how often.
type mismatch struct {
	doc, op, what string
	count         int
	example       string
}

// ContractReport is what the check found.
type ContractReport struct {
	exchanges  int            // validated against an operation
	outside    int            // answers to paths no document describes (router 404/405, the documents themselves)
	operations map[string]int // "public GET /members" → exchanges
	declared   map[string]int // api → operations in its document
	mismatches map[string]*mismatch
}

func (r *ContractReport) fail(doc, op, what, example string) {
	k := doc + "\x00" + op + "\x00" + what
	if m, ok := r.mismatches[k]; ok {
		m.count++
		return
	}
	r.mismatches[k] = &mismatch{doc: doc, op: op, what: what, count: 1, example: example}
}

// Validated is how many exchanges met an operation of the documents.
func (r *ContractReport) Validated() int { return r.exchanges }

// Summary is the one-line count printed after every run.
func (r *ContractReport) Summary() string {
	covered := map[string]int{}
	for op := range r.operations {
		covered[strings.SplitN(op, " ", 2)[0]]++
	}
	return fmt.Sprintf("contract: %d exchanges validated against 3.1 and 3.0 (%d more outside the documents); operations covered: public %d of %d, admin %d of %d; %d mismatches",
		r.exchanges, r.outside, covered["public"], r.declared["public"], covered["admin"], r.declared["admin"], len(r.mismatches))
}

// Failures lists the mismatches, one per line, sorted.
func (r *ContractReport) Failures() []string {
	out := make([]string, 0, len(r.mismatches))
	for _, m := range r.mismatches {
		out = append(out, fmt.Sprintf("%s [openapi %s] %s (%d×; e.g. %s)", m.op, m.doc, m.what, m.count, m.example))
	}
	sort.Strings(out)
	return out
}

// Uncovered lists the documented operations no exchange reached.
func (r *ContractReport) Uncovered(docs []*ContractDoc) []string {
	var out []string
	for _, d := range docs {
		if d.version != "3.1" {
			continue
		}
		for path, item := range d.doc.Paths.Map() {
			for method := range item.Operations() {
				if op := d.api + " " + method + " " + path; r.operations[op] == 0 {
					out = append(out, op)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// LoadContractDocs fetches the four documents from svc.
func LoadContractDocs(ctx context.Context, svc *Service) ([]*ContractDoc, error) {
	var docs []*ContractDoc
	for _, d := range []struct{ api, base string }{{"public", svc.PublicURL}, {"admin", svc.AdminURL}} {
		for _, version := range []string{"3.1", "3.0"} {
			file := map[string]string{"3.1": "openapi.json", "3.0": "openapi-3.0.json"}[version]
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+apiPrefix[d.api]+"/"+file, nil)
			if err != nil {
				return nil, err
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return nil, fmt.Errorf("fetch %s %s: %w", d.api, file, err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return nil, err
			}
			doc, err := NewContractDoc(ctx, d.api, version, b)
			if err != nil {
				return nil, err
			}
			docs = append(docs, doc)
		}
	}
	return docs, nil
}

// apiPrefix is where each API is mounted.
var apiPrefix = map[string]string{"public": "/api/v1", "admin": "/admin/v1"}

// NewContractDoc loads one document (api "public" or "admin", version "3.1"
// or "3.0"); a 3.0 document must also pass kin-openapi's validation.
func NewContractDoc(ctx context.Context, api, version string, data []byte) (*ContractDoc, error) {
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load %s %s: %w", api, version, err)
	}
	if version == "3.0" {
		if err := doc.Validate(ctx); err != nil {
			return nil, fmt.Errorf("the %s API's 3.0 document is not valid: %w", api, err)
		}
	}
	prefix := apiPrefix[api]
	doc.Servers = openapi3.Servers{{URL: "http://" + contractHost + prefix}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route %s %s: %w", api, version, err)
	}
	return &ContractDoc{api: api, version: version, prefix: prefix, doc: doc, router: router}, nil
}

// CheckContract validates every exchange against every document of its API.
func CheckContract(ctx context.Context, docs []*ContractDoc, exchanges []Exchange) *ContractReport {
	r := &ContractReport{operations: map[string]int{}, declared: map[string]int{}, mismatches: map[string]*mismatch{}}
	for _, d := range docs {
		if d.version == "3.1" {
			for _, item := range d.doc.Paths.Map() {
				r.declared[d.api] += len(item.Operations())
			}
		}
	}
	for _, ex := range exchanges {
		u, err := url.Parse(ex.URL)
		if err != nil {
			r.fail("-", ex.Method+" "+ex.URL, "unparseable URL", "")
			continue
		}
		validated := false
		for _, d := range docs {
			if !strings.HasPrefix(u.Path, d.prefix+"/") {
				continue
			}
			if checkExchange(ctx, r, d, ex, u) {
				validated = true
			}
		}
		if validated {
			r.exchanges++
		} else {
			r.outside++
		}
	}
	return r
}

// checkExchange validates one exchange against one document. It reports
// false when the path is outside the document (and so not validated).
func checkExchange(ctx context.Context, r *ContractReport, d *ContractDoc, ex Exchange, u *url.URL) bool {
	target := *u
	target.Scheme, target.Host = "http", contractHost
	req, err := http.NewRequestWithContext(ctx, ex.Method, target.String(), bytes.NewReader(ex.ReqBody))
	if err != nil {
		return false
	}
	req.Header = ex.ReqHeader.Clone()
	example := ex.Method + " " + u.RequestURI() + " → " + fmt.Sprint(ex.Status) + " " + requestIDOf(ex)
	route, params, err := d.router.FindRoute(req)
	if err == nil && strings.HasSuffix(u.Path, "/") {
		err = errors.New("trailing slash") // kin's router forgives it; the service's does not
	}
	if err != nil {
		if isDocumentPath(u.Path) {
			return false
		}
		// A path or method no operation has: only the router's own
		// answers may come back, in the envelope.
		if (ex.Status == http.StatusNotFound || ex.Status == http.StatusMethodNotAllowed) && IsEnvelope(ex.RespBody) {
			return false
		}
		r.fail(d.version, d.api+" "+ex.Method+" "+u.Path, fmt.Sprintf("answered %d to a path or method the document does not describe", ex.Status), example)
		return false
	}
	op := d.api + " " + route.Method + " " + route.Path
	if d.version == "3.1" {
		r.operations[op]++
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true, SkipSettingDefaults: true},
	}
	// A request the service accepted must be one the document accepts; a
	// refused one may be anything (tests send mistakes on purpose).
	// Bodies other than JSON (the CSV import) are text; kin-openapi would
	// parse CSV more strictly than the operation, which reports bad rows.
	in.Options.ExcludeRequestBody = !strings.HasPrefix(ex.ReqHeader.Get("Content-Type"), "application/json")
	if ex.Status < 300 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			for _, w := range describeErrors("request", err) {
				r.fail(d.version, op, "accepted a request the document refuses: "+w, example)
			}
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: ex.Status, Header: ex.RespHeader,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	out.SetBodyBytes(ex.RespBody)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		for _, w := range describeErrors("response", err) {
			r.fail(d.version, op, fmt.Sprintf("%d: %s", ex.Status, w), example)
		}
	}
	if resp := route.Operation.Responses.Status(ex.Status); resp != nil && resp.Value != nil {
		for name := range ex.RespHeader {
			if transportHeaders[name] {
				continue
			}
			if !hasHeader(resp.Value.Headers, name) {
				r.fail(d.version, op, fmt.Sprintf("%d: header %s is sent but not documented", ex.Status, name), example)
			}
		}
	}
	if ex.Status >= 400 {
		if why := CheckErrorCode(ex.Status, ex.RespBody); why != "" {
			r.fail(d.version, op, fmt.Sprintf("%d: %s", ex.Status, why), example)
		}
	}
	return true
}

func hasHeader(h openapi3.Headers, name string) bool {
	for k := range h {
		if http.CanonicalHeaderKey(k) == name {
			return true
		}
	}
	return false
}

// describeErrors flattens kin-openapi's errors into "where: what" lines,
// the JSON pointer of each schema error included.
func describeErrors(side string, err error) []string {
	var out []string
	var walk func(prefix string, err error)
	walk = func(prefix string, err error) {
		var multi openapi3.MultiError
		if errors.As(err, &multi) {
			for _, e := range multi {
				walk(prefix, e)
			}
			return
		}
		var reqErr *openapi3filter.RequestError
		if errors.As(err, &reqErr) && reqErr.Err != nil {
			where := prefix
			if reqErr.Parameter != nil {
				where = fmt.Sprintf("%s %s parameter %q", side, reqErr.Parameter.In, reqErr.Parameter.Name)
			} else if reqErr.RequestBody != nil {
				where = side + " body"
			}
			var inner openapi3.MultiError
			if errors.As(reqErr.Err, &inner) {
				walk(where, reqErr.Err)
				return
			}
			out = append(out, schemaLine(where, reqErr.Err, reqErr.Reason))
			return
		}
		var respErr *openapi3filter.ResponseError
		if errors.As(err, &respErr) {
			if respErr.Err == nil {
				out = append(out, side+": "+respErr.Reason)
				return
			}
			var inner openapi3.MultiError
			if errors.As(respErr.Err, &inner) {
				walk(side+" body", respErr.Err)
				return
			}
			out = append(out, schemaLine(side+" body", respErr.Err, respErr.Reason))
			return
		}
		out = append(out, schemaLine(prefix, err, ""))
	}
	walk(side, err)
	slices.Sort(out)
	return slices.Compact(out)
}

func schemaLine(where string, err error, reason string) string {
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at %s: %s", where, "/"+strings.Join(se.JSONPointer(), "/"), se.Reason)
	}
	if reason != "" {
		return where + ": " + reason + ": " + err.Error()
	}
	return where + ": " + err.Error()
}

func isDocumentPath(p string) bool {
	return strings.HasSuffix(p, "/openapi.json") || strings.HasSuffix(p, "/openapi-3.0.json") ||
		strings.HasSuffix(p, "/openapi.yaml") || strings.HasSuffix(p, "/openapi-3.0.yaml") || strings.HasSuffix(p, "/postman.json")
}

func IsEnvelope(b []byte) bool {
	var env struct {
		Error *struct {
			Code    *string `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	return json.Unmarshal(b, &env) == nil && env.Error != nil && env.Error.Code != nil && env.Error.Message != nil
}

func requestIDOf(ex Exchange) string {
	if id := ex.RespHeader.Get("X-Request-Id"); id != "" {
		return "(request " + id + ")"
	}
	return ""
}

// SpecCodes are the error codes each status may carry: the spec's §7 table,
// plus the statuses teamtext chose where the spec says "not shown" (docs/design/
// decisions-not-shown.md: the webhook URL codes and webhook_limit).
var SpecCodes = map[int][]string{
	400: {"invalid_request", "invalid_json", "bad_request", "invalid_phone", "invalid_email", "invalid_role", "role_not_allowed",
		"invalid_group", "read_only_field", "invalid_scheduled_for", "invalid_repeat", "keyword_required", "merge_tags_unsupported",
		"private_field", "urgent_not_allowed", "unknown_field", "blocked_url", "invalid_url", "invalid_events"},
	401: {"unauthorized", "invalid_key"},
	402: {"payment_required", "trial_limit"},
	403: {"plan_required", "key_owner_inactive", "team_disabled", "team_locked", "org_hub_unsupported", "card_required",
		"sender_blocked", "staff_member_protected", "template_protected", "private_field_locked", "forbidden"},
	404: {"not_found"},
	405: {"method_not_allowed"},
	409: {"member_exists", "opted_out", "opted_out_member", "opted_out_guardian", "guardian_protected", "no_sender",
		"scheduled_limit_reached", "template_exists", "template_limit", "field_exists", "field_limit", "campaign_state",
		"conflict", "webhook_limit"},
	413: {"payload_too_large"},
	415: {"unsupported_media_type"},
	429: {"rate_limited"},
	500: {"server_error"},
	503: {"dns_busy", "server_error"},
}

// CheckErrorCode says what is wrong with an error answer's body: not the
// envelope, or a code the spec gives another status. "" when it is right.
func CheckErrorCode(status int, body []byte) string {
	if !IsEnvelope(body) {
		return "not the error envelope: " + truncate(string(body), 200)
	}
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &env)
	if !slices.Contains(SpecCodes[status], env.Error.Code) {
		return fmt.Sprintf("code %q is not one of the spec's codes for %d", env.Error.Code, status)
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
