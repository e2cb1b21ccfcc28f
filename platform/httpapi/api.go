package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

// APIOptions describes one huma API mounted under a prefix of a mux.
type APIOptions struct {
	Title       string
	Version     string
	Description string
	Prefix      string // "/api/v1" or "/admin/v1"
	ServerURL   string // absolute URL of Prefix, for the OpenAPI servers entry
	Tags        []*huma.Tag
	// PublicAccess documents each operation's Access (the public API only).
	PublicAccess bool
}

// BearerScheme is the name of the security scheme every operation requires.
const BearerScheme = "bearer"

// NewAPI returns a huma API on mux under o.Prefix, with the OpenAPI document
// at <prefix>/openapi.json (.yaml, -3.0.json, -3.0.yaml), no docs UI, no
// $schema fields in bodies, and the bearer scheme declared.
func NewAPI(mux *http.ServeMux, o APIOptions) huma.API {
	installErrorModel()
	cfg := huma.DefaultConfig(o.Title, o.Version)
	cfg.Formats = jsonFormats()
	cfg.OpenAPIPath = "" // served by serveDocuments, which completes huma's description
	cfg.DocsPath = ""
	cfg.SchemasPath = ""
	cfg.CreateHooks = nil
	cfg.Info.Description = o.Description
	cfg.Servers = []*huma.Server{{URL: o.ServerURL}}
	cfg.Tags = o.Tags
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		BearerScheme: {Type: "http", Scheme: "bearer", Description: "Authorization: Bearer <key>"},
	}
	cfg.Security = []map[string][]string{{BearerScheme: {}}}
	if o.PublicAccess {
		cfg.OnAddOperation = append(cfg.OnAddOperation, documentAccess)
	}
	cfg.OnAddOperation = append(cfg.OnAddOperation, documentAnswers(o.PublicAccess))
	api := humago.NewWithPrefix(mux, o.Prefix, cfg)
	serveDocuments(mux, o.Prefix, api)
	return api
}

// Register adds an operation, filling in what every operation documents: the
// error responses it can give (with the envelope schema), and a 404 for
// operations whose path carries an id. extra lists further statuses.
func Register[I, O any](api huma.API, op huma.Operation, h func(context.Context, *I) (*O, error), extra ...int) {
	statuses := map[int]bool{http.StatusUnauthorized: true, http.StatusTooManyRequests: true, http.StatusInternalServerError: true}
	if strings.Contains(op.Path, "{") {
		statuses[http.StatusNotFound] = true
	}
	switch op.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		statuses[http.StatusBadRequest] = true
		statuses[http.StatusRequestEntityTooLarge] = true
		statuses[http.StatusUnsupportedMediaType] = true
	}
	for _, s := range extra {
		statuses[s] = true
	}
	for s := range statuses {
		op.Errors = append(op.Errors, s)
	}
	// Our edge enforces body limits exactly; keep huma's own check out of the way.
	op.MaxBodyBytes = 1 << 30
	// The edge has read the body already, under the server's ReadTimeout, so
	// net/http is waiting in the background for the connection's next bytes.
	// huma's default would now set a 5 s read deadline on the connection: that
	// wait would time out and cancel the request's context, and any request
	// still working 5 s after its body (sends queued on one team's billing
	// lock under load) would fail with 500 "context canceled". -1 clears it.
	op.BodyReadTimeout = -1
	huma.Register(api, op, h)
}

// PageParams are the spec's list parameters.
type PageParams struct {
	Limit  int `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"Page size, 1 to 200; 50 when omitted."`
	Offset int `query:"offset" minimum:"0" maximum:"1000000000" default:"0" doc:"Number of items to skip, 0 to 1,000,000,000; a larger offset is refused with 400 invalid_request."`
}

// MaxOffset is the largest offset a list takes: far past any team's rows,
// and small enough that no page's arithmetic on it (offset+limit+1) can
// overflow anywhere between the handler and Postgres.
const MaxOffset = 1_000_000_000

// Pagination is the spec's pagination member of a list response.
type Pagination struct {
	Limit      int  `json:"limit" doc:"Page size used."`
	Offset     int  `json:"offset" doc:"Items skipped."`
	HasMore    bool `json:"has_more" doc:"Whether another page exists."`
	NextOffset *int `json:"next_offset" doc:"Offset of the next page; null on the last page."`
}

// Page turns a fetched slice (queried with limit+1) into the page and its
// pagination: the extra item only tells that another page exists.
func Page[T any](p PageParams, items []T) ([]T, Pagination) {
	pg := Pagination{Limit: p.Limit, Offset: p.Offset}
	if len(items) > p.Limit {
		items = items[:p.Limit]
		pg.HasMore = true
		next := p.Offset + p.Limit
		pg.NextOffset = &next
	}
	if items == nil {
		items = []T{}
	}
	return items, pg
}

// ListBody is a list response: data plus pagination.
type ListBody[T any] struct {
	Data       []T        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// ListOutput is the huma output of a list operation.
type ListOutput[T any] struct {
	Body ListBody[T]
}

// DataBody wraps a single result in the spec's data member.
type DataBody[T any] struct {
	Data T `json:"data"`
}

// DataOutput is the huma output of a single-result operation.
type DataOutput[T any] struct {
	Body DataBody[T]
}

// Data returns a DataOutput holding v.
func Data[T any](v T) *DataOutput[T] { return &DataOutput[T]{Body: DataBody[T]{Data: v}} }

// List returns a ListOutput for a page of items fetched with limit+1.
func List[T any](p PageParams, items []T) *ListOutput[T] {
	page, pg := Page(p, items)
	return &ListOutput[T]{Body: ListBody[T]{Data: page, Pagination: pg}}
}

// DataOf renders a use case's result with render, or passes its error on:
// DataOf(view.MemberFrom)(svc.GetMember(…)).
func DataOf[V, T any](render func(V) T) func(V, error) (*DataOutput[T], error) {
	return func(v V, err error) (*DataOutput[T], error) {
		if err != nil {
			return nil, err
		}
		return Data(render(v)), nil
	}
}

// ListOf renders a page of a use case's results with render, or passes
// its error on: ListOf(in.PageParams, view.MessageFrom)(svc.Messages(…)).
func ListOf[V, T any](p PageParams, render func(*V) T) func([]V, error) (*ListOutput[T], error) {
	return func(vs []V, err error) (*ListOutput[T], error) {
		if err != nil {
			return nil, err
		}
		out := make([]T, len(vs))
		for i := range vs {
			out[i] = render(&vs[i])
		}
		return List(p, out), nil
	}
}

// Public is the public API (/api/v1), behind the bearer-key middleware.
type Public struct{ huma.API }

// Admin is the admin API (/admin/v1), behind the admin token.
type Admin struct{ huma.API }

// Response headers the edge and the gate send, as the documents declare them.
var (
	requestIDHeader = &huma.Param{Description: "The request's id: the client's X-Request-Id when it is 1 to 64 characters of [A-Za-z0-9._-], else a generated one. The request log line carries it.",
		Required: true, Schema: &huma.Schema{Type: "string"}}
	rateLimitPolicyHeader = &huma.Param{Description: "The limits checked for this request (IETF draft RateLimit header fields): each policy's quota (q) and window in seconds (w).",
		Schema: &huma.Schema{Type: "string"}}
	rateLimitHeader = &huma.Param{Description: "What is left of each limit checked: remaining requests (r) and seconds until the window frees one (t).",
		Schema: &huma.Schema{Type: "string"}}
	retryAfterHeader = &huma.Param{Description: "Seconds to wait before retrying.", Required: true,
		Schema: &huma.Schema{Type: "string", Pattern: "^[0-9]+$"}}
)

// documentAnswers is an OnAddOperation hook that makes an operation's
// responses say what the edge can answer: 400 for any operation with query
// parameters (a bad value, an empty enum value, a NUL); no 422 (huma adds
// it, the edge turns every validation failure into 400); the headers of
// every answer; text request bodies (CSV) as text, not binary.
func documentAnswers(public bool) func(*huma.OpenAPI, *huma.Operation) {
	return func(_ *huma.OpenAPI, op *huma.Operation) {
		delete(op.Responses, "422")
		for _, p := range op.Parameters {
			if p.In == "query" && op.Responses["400"] == nil {
				op.Responses["400"] = errorResponse(http.StatusBadRequest)
			}
		}
		if op.RequestBody != nil {
			for mt, c := range op.RequestBody.Content {
				if strings.HasPrefix(mt, "text/") && c.Schema != nil && c.Schema.Format == "binary" {
					c.Schema.Format = ""
				}
			}
		}
		for status, r := range op.Responses {
			if r.Headers == nil {
				r.Headers = map[string]*huma.Param{}
			}
			r.Headers[RequestIDHeader] = requestIDHeader
			if public {
				r.Headers["RateLimit-Policy"] = rateLimitPolicyHeader
				r.Headers["RateLimit"] = rateLimitHeader
			}
			if status == "429" || status == "503" {
				r.Headers["Retry-After"] = retryAfterHeader
			}
		}
	}
}

// errorResponse is a response with the envelope, as huma's own error responses.
func errorResponse(status int) *huma.Response {
	return &huma.Response{
		Description: http.StatusText(status),
		Content:     map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Ref: "#/components/schemas/Error"}}},
	}
}
