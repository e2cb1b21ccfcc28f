package e2e

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// servedDoc loads an API's served 3.1 document (api: "/api/v1" or "/admin/v1").
func servedDoc(t testing.TB, base, api string) *openapi3.T {
	t.Helper()
	r, err := harness.NewClient(base+api, "").Do(context.Background(), "GET", "/openapi.json", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status)
	doc, err := openapi3.NewLoader().LoadFromData(r.Body)
	require.NoError(t, err)
	return doc
}

// docOp is one operation of a document.
type docOp struct {
	method, path string
	op           *openapi3.Operation
}

// operations lists a document's operations in a fixed order.
func operations(doc *openapi3.T) []docOp {
	var out []docOp
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			out = append(out, docOp{method: method, path: path, op: op})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].method+" "+out[i].path < out[j].method+" "+out[j].path })
	return out
}

// TestNULInPathIsNotFound: %00 in the id of every operation that takes one
// (taken from the served documents, so new operations are covered) answers
// 404 not_found in the envelope, never a 5xx.
func TestNULInPathIsNotFound(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	for _, a := range []struct {
		base, prefix string
		c            *harness.Client
	}{{env.svc.PublicURL, "/api/v1", api}, {env.svc.AdminURL, "/admin/v1", env.admin}} {
		n := 0
		for _, o := range operations(servedDoc(t, a.base, a.prefix)) {
			if !strings.Contains(o.path, "{") {
				continue
			}
			for _, id := range []string{"%00", "x%00y", "%FF"} {
				path := o.path
				for _, p := range o.op.Parameters {
					if p.Value.In != "path" {
						continue
					}
					v := id
					if p.Value.Name == "team_id" && id == "%FF" && strings.Count(o.path, "{") > 1 {
						v = f.TeamID // a real team, and the hostile id after it
					}
					path = strings.Replace(path, "{"+p.Value.Name+"}", v, 1)
				}
				var body any
				if o.op.RequestBody != nil {
					body = map[string]any{}
				}
				if strings.Contains(path, "members/import") {
					continue // CSV, covered by the import tests
				}
				r := do(t, a.c, o.method, path, body)
				requireCode(t, r, 404, "not_found")
			}
			n++
		}
		require.Positive(t, n)
	}
}

// TestHostileTextRefused: text Postgres cannot store, invalid JSON text and
// nulls are refused with the spec's codes, and nothing is written.
func TestHostileTextRefused(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	m := addMember(t, api, map[string]any{"name": "Kid", "phone": "2025550160"})
	group := adminGroup(t, f.TeamID, "U12")
	before := teamMembers(t, f.TeamID)
	jsonBody := func(method, path, raw string) *harness.Response {
		t.Helper()
		r, err := api.Do(context.Background(), method, path, []byte(raw), "Content-Type", "application/json")
		require.NoError(t, err)
		return r
	}
	cases := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"NUL in a member name", "POST", "/members", `{"name":"a\u0000b","phone":"2025550161"}`, 400, "invalid_request"},
		{"NUL in group_ids", "POST", "/members", `{"name":"A","phone":"2025550161","group_ids":["\u0000"]}`, 400, "invalid_request"},
		{"NUL in a changed name", "PATCH", "/members/" + m.ID, `{"name":"\u0000"}`, 400, "invalid_request"},
		{"NUL in a custom-field label", "POST", "/custom-fields", `{"label":"Size\u0000"}`, 400, "invalid_request"},
		{"NUL in a custom-field value", "PATCH", "/members/" + m.ID + "/custom-fields", `{"values":{"size":"\u0000"}}`, 400, "invalid_request"},
		{"NUL in a template name", "POST", "/templates", `{"name":"\u0000","body":"Practice"}`, 400, "invalid_request"},
		{"NUL in a template body", "POST", "/templates", `{"name":"T","body":"Prac\u0000tice"}`, 400, "invalid_request"},
		{"NUL in a message text", "POST", "/messages", `{"text":"Hi\u0000","audience":"all"}`, 400, "invalid_request"},
		{"NUL in a group_id", "POST", "/messages", `{"text":"Hi","audience":"group","group_id":"\u0000"}`, 400, "invalid_request"},
		{"NUL in an estimate", "POST", "/messages/estimate", `{"text":"\u0000","audience":"all"}`, 400, "invalid_request"},
		{"invalid UTF-8", "POST", "/members", "{\"name\":\"\xff\xfe\",\"phone\":\"2025550161\"}", 400, "invalid_json"},
		{"lone surrogate", "POST", "/members", `{"name":"\udc00","phone":"2025550161"}`, 400, "invalid_json"},
		{"null for an optional field", "POST", "/members", `{"name":"A","phone":"2025550161","email":null}`, 400, "invalid_request"},
		{"null in a change", "PATCH", "/members/" + m.ID, `{"name":null}`, 400, "invalid_request"},
		{"null for a list", "POST", "/recipients/validate", `{"phones":null}`, 400, "invalid_request"},
		{"zero-width name", "POST", "/members", `{"name":"\u200b\u200d","phone":"2025550161"}`, 400, "invalid_request"},
		{"zero-width template name", "POST", "/templates", `{"name":"\ufeff","body":"Practice"}`, 400, "invalid_request"},
		{"zero-width label", "POST", "/custom-fields", `{"label":"\u200b"}`, 400, "invalid_request"},
	}
	for _, tc := range cases {
		requireCode(t, jsonBody(tc.method, tc.path, tc.body), tc.status, tc.code)
	}
	for _, q := range []string{"?email=a%00b", "?group_id=%00", "?phone=%FF", "?sort=", "?status=", "?role=%00"} {
		requireCode(t, do(t, api, "GET", "/members"+q, nil), 400, "invalid_request")
	}
	requireCode(t, do(t, api, "GET", "/inbox?filter=", nil), 400, "invalid_request")
	requireCode(t, do(t, api, "GET", "/analytics?from=%00", nil), 400, "invalid_request")
	r, err := api.Do(context.Background(), "POST", "/messages", map[string]any{"text": "Hi", "audience": "all"}, "Idempotency-Key", "k\xff")
	require.NoError(t, err)
	requireCode(t, r, 400, "invalid_request")

	// Nothing was written, and what is fine still works.
	require.Equal(t, before, teamMembers(t, f.TeamID))
	require.Zero(t, messageCount(t, env.pg.URL, f.TeamID))
	require.Zero(t, countRows(t, `SELECT count(*) FROM messaging_templates WHERE team_id = $1`, f.TeamID))
	require.Zero(t, countRows(t, `SELECT count(*) FROM roster_custom_fields WHERE team_id = $1`, f.TeamID))
	got := addMember(t, api, map[string]any{"name": "Zoë \U0001F3C8 \u200b", "phone": "2025550162", "group_ids": []string{group}})
	require.Equal(t, "Zoë \U0001F3C8 \u200b", got.Name, "visible text with an invisible character inside is kept as sent")

	// The admin API has the same edge.
	r, err = env.admin.Do(context.Background(), "POST", "/teams/"+f.TeamID+"/groups", []byte(`{"name":"U\u0000"}`), "Content-Type", "application/json")
	require.NoError(t, err)
	requireCode(t, r, 400, "invalid_request")
	requireCode(t, do(t, env.admin, "GET", "/teams/%00", nil), 404, "not_found")
	requireCode(t, do(t, env.admin, http.MethodPost, "/teams", map[string]any{"name": "\u200b", "code": "zw-team", "time_zone": "UTC", "plan": "team"}), 400, "invalid_request")
}
