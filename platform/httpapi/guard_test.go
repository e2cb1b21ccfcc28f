package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"
)

type guardThing struct {
	Name string   `json:"name,omitempty"`
	Tags []string `json:"tags,omitempty"`
	Note *string  `json:"note,omitempty" nullable:"true" doc:"Declared nullable."`
	Sub  *struct {
		Label string `json:"label"`
	} `json:"sub,omitempty"`
	Values map[string]string `json:"values,omitempty"`
}

// guardServer is an API with the guard, behind the edge, whose handlers
// echo what reached them.
func guardServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	api := NewAPI(mux, APIOptions{Title: "t", Version: "1", Prefix: "/v1", ServerURL: "http://x/v1"})
	api.UseMiddleware(Guard(api))
	Register(api, huma.Operation{OperationID: "put-thing", Method: http.MethodPut, Path: "/things/{id}"},
		func(_ context.Context, in *struct {
			ID   string `path:"id"`
			Body guardThing
		}) (*DataOutput[guardThing], error) {
			return Data(in.Body), nil
		})
	Register(api, huma.Operation{OperationID: "list-things", Method: http.MethodGet, Path: "/things"},
		func(_ context.Context, in *struct {
			Sort string `query:"sort" enum:"name,-name"`
			Q    string `query:"q"`
			N    int    `query:"n"`
			Key  string `header:"X-Key"`
		}) (*DataOutput[map[string]string], error) {
			return Data(map[string]string{"sort": in.Sort, "q": in.Q, "key": in.Key}), nil
		})
	srv := httptest.NewServer(Edge(mux, EdgeOptions{Name: "test", MaxBodyBytes: 1 << 20}))
	t.Cleanup(srv.Close)
	return srv
}

// TestGuard: text Postgres cannot store, and nulls the document does not
// allow, are refused with the envelope before a handler sees them; what is
// fine passes through unchanged.
func TestGuard(t *testing.T) {
	t.Parallel()
	srv := guardServer(t)
	cases := []struct {
		name, method, path, body string
		header                   []string
		status                   int
		code                     string
	}{
		{"plain body", "PUT", "/v1/things/a", `{"name":"Ann","tags":["x"],"note":"n"}`, nil, 200, ""},
		{"NUL in a string", "PUT", "/v1/things/a", `{"name":"a\u0000b"}`, nil, 400, "invalid_request"},
		{"NUL in an array item", "PUT", "/v1/things/a", `{"tags":["ok","\u0000"]}`, nil, 400, "invalid_request"},
		{"NUL in a map key", "PUT", "/v1/things/a", `{"values":{"k\u0000":"v"}}`, nil, 400, "invalid_request"},
		{"an escaped backslash before u0000 is text", "PUT", "/v1/things/a", `{"name":"a\\u0000"}`, nil, 200, ""},
		{"invalid UTF-8", "PUT", "/v1/things/a", "{\"name\":\"a\xffb\"}", nil, 400, "invalid_json"},
		{"lone high surrogate", "PUT", "/v1/things/a", `{"name":"\ud800"}`, nil, 400, "invalid_json"},
		{"lone low surrogate", "PUT", "/v1/things/a", `{"name":"x\udc00"}`, nil, 400, "invalid_json"},
		{"high surrogate then text", "PUT", "/v1/things/a", `{"name":"\ud83dx"}`, nil, 400, "invalid_json"},
		{"a surrogate pair", "PUT", "/v1/things/a", `{"name":"\ud83d\ude00"}`, nil, 200, ""},
		{"null for an optional field", "PUT", "/v1/things/a", `{"name":null}`, nil, 400, "invalid_request"},
		{"null in a list", "PUT", "/v1/things/a", `{"tags":[null]}`, nil, 400, "invalid_request"},
		{"null list", "PUT", "/v1/things/a", `{"tags":null}`, nil, 400, "invalid_request"},
		{"null in a nested object", "PUT", "/v1/things/a", `{"sub":{"label":null}}`, nil, 400, "invalid_request"},
		{"null for a nullable field", "PUT", "/v1/things/a", `{"note":null}`, nil, 200, ""},
		{"null for an unknown field is unknown_field", "PUT", "/v1/things/a", `{"colour":null}`, nil, 400, "unknown_field"},
		{"not JSON is invalid_json", "PUT", "/v1/things/a", `{"name":`, nil, 400, "invalid_json"},
		{"NUL in a path id", "PUT", "/v1/things/%00", `{}`, nil, 404, "not_found"},
		{"invalid UTF-8 in a path id", "PUT", "/v1/things/%FF", `{}`, nil, 404, "not_found"},
		{"NUL in a query value", "GET", "/v1/things?q=a%00b", "", nil, 400, "invalid_request"},
		{"invalid UTF-8 in a query value", "GET", "/v1/things?q=%FF", "", nil, 400, "invalid_request"},
		{"empty enum value", "GET", "/v1/things?sort=", "", nil, 400, "invalid_request"},
		{"empty number", "GET", "/v1/things?n=", "", nil, 400, "invalid_request"},
		{"an enum value", "GET", "/v1/things?sort=-name&q=", "", nil, 200, ""},
		{"an undeclared parameter is ignored", "GET", "/v1/things?other=%00", "", nil, 200, ""},
		{"invalid UTF-8 in a declared header", "GET", "/v1/things", "", []string{"X-Key", "a\xffb"}, 400, "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			require.NoError(t, err)
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for i := 0; i+1 < len(tc.header); i += 2 {
				req.Header.Set(tc.header[i], tc.header[i+1])
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tc.status, resp.StatusCode, string(b))
			if tc.code == "" {
				if tc.method == "PUT" { // the handler got the body intact
					var out struct{ Data map[string]any }
					require.NoError(t, json.Unmarshal(b, &out))
					var in map[string]any
					require.NoError(t, json.Unmarshal([]byte(tc.body), &in))
					for k, v := range in {
						require.Equal(t, v, out.Data[k], k)
					}
				}
				return
			}
			var env struct {
				Error struct{ Code, Message string }
			}
			require.NoError(t, json.Unmarshal(b, &env), string(b))
			require.Equal(t, tc.code, env.Error.Code)
			require.NotEmpty(t, env.Error.Message)
		})
	}
}

// TestScanJSON: the scanner's findings on escapes and literals.
func TestScanJSON(t *testing.T) {
	t.Parallel()
	require.Equal(t, jsonScan{}, scanJSON([]byte(`{"a":"no n here\n","b":[1,true,false]}`)))
	require.Equal(t, jsonScan{null: true}, scanJSON([]byte(`{"a":null}`)))
	require.Equal(t, jsonScan{}, scanJSON([]byte(`{"null":"null"}`)), "null inside strings is text")
	require.Equal(t, jsonScan{nul: true}, scanJSON([]byte(`["\u0000"]`)))
	require.Equal(t, jsonScan{loneSurrogate: true}, scanJSON([]byte(`["\uDBFF\u0041"]`)))
	require.Equal(t, jsonScan{}, scanJSON([]byte(`["\uDBFF\uDFFF"]`)))
}

// BenchmarkGuard measures what the guard adds to a request through the
// edge and huma, in process (no network, no database): a GET like
// /api/v1/team (no parameters, no body), a list GET with query
// parameters, and a PUT with a JSON body.
func BenchmarkGuard(b *testing.B) {
	for _, guarded := range []bool{false, true} {
		mux := http.NewServeMux()
		api := NewAPI(mux, APIOptions{Title: "t", Version: "1", Prefix: "/v1", ServerURL: "http://x/v1"})
		if guarded {
			api.UseMiddleware(Guard(api))
		}
		Register(api, huma.Operation{OperationID: "get-team", Method: http.MethodGet, Path: "/team"},
			func(context.Context, *struct{}) (*DataOutput[map[string]string], error) {
				return Data(map[string]string{"name": "Lions"}), nil
			})
		Register(api, huma.Operation{OperationID: "list-things", Method: http.MethodGet, Path: "/things"},
			func(_ context.Context, in *struct {
				Sort  string `query:"sort" enum:"name,-name"`
				Email string `query:"email"`
				PageParams
			}) (*DataOutput[map[string]string], error) {
				return Data(map[string]string{"sort": in.Sort}), nil
			})
		Register(api, huma.Operation{OperationID: "put-thing", Method: http.MethodPut, Path: "/things/{id}"},
			func(_ context.Context, in *struct {
				ID   string `path:"id"`
				Body guardThing
			}) (*DataOutput[guardThing], error) {
				return Data(in.Body), nil
			})
		h := Edge(mux, EdgeOptions{Name: "bench", MaxBodyBytes: 1 << 20})
		body := `{"name":"` + strings.Repeat("Ann Lee ", 100) + `","tags":["a","b","c"],"values":{"size":"M"}}`
		for _, r := range []struct{ name, method, target, body string }{
			{"GET /team", "GET", "/v1/team", ""},
			{"GET /things?query", "GET", "/v1/things?sort=-name&email=a@b.org&limit=20&offset=40", ""},
			{"PUT /things/{id} 0.8KB", "PUT", "/v1/things/abc", body},
		} {
			b.Run(fmt.Sprintf("%s/guard=%v", r.name, guarded), func(b *testing.B) {
				for b.Loop() {
					req := httptest.NewRequest(r.method, r.target, strings.NewReader(r.body))
					if r.body != "" {
						req.Header.Set("Content-Type", "application/json")
					}
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("%d %s", rec.Code, rec.Body)
					}
				}
			})
		}
	}
}
