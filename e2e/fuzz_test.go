package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// Where a fuzzed value goes in a request.
const (
	inPath      = iota // every path parameter
	inQuery            // one declared query or header parameter
	inField            // one string member of a valid body, JSON-escaped
	inRawBody          // one string member of a valid body, spliced in unescaped
	inWholeBody        // the whole body
	places
)

// hostile are the seeds: what clients send by mistake and what attackers try.
var hostile = []string{
	"\x00", "a\x00b", "\xff\xfe", "\xed\xa0\x80", `\ud800`, `\u0000`, "", " ", "null", "%00", "\u200b\u200d",
	"'; DROP TABLE roster_members;--", "{", "😀", strings.Repeat("x", 5000), "-1", "1e309", "true", "[]", "{}",
	"9223372036854775807", "1000000001", // past every list's offset and limit, and past int64
}

// FuzzOperations sends every operation of the public and admin documents
// with a fuzzed value in its path, a query parameter, a body member or as
// its body, and holds the service to its contract: never a 5xx (503
// dns_busy aside), every error in the envelope with one of the spec's codes
// for its status, and that status documented for the operation. `go test`
// runs the seeds (every operation × every hostile value × every place);
// `make fuzz` mutates them.
func FuzzOperations(f *testing.F) {
	fx := newFuzzFixture(f)
	for i := range fx.ops {
		for j, v := range hostile {
			f.Add(uint16(i), uint8((i+j)%places), v)
		}
	}
	calls := 0
	f.Fuzz(func(t *testing.T, opIndex uint16, place uint8, value string) {
		calls++
		if calls%100 == 0 { // a fresh team before its limits (or fuzzed changes) answer everything
			fx.rotate(t)
		}
		o := fx.ops[int(opIndex)%len(fx.ops)]
		req, ok := fx.request(t, o, int(place)%places, value)
		if !ok {
			return // a value the router or the HTTP client handles before the service (a dot segment, a control character in a header)
		}
		resp, err := req.client.Do(context.Background(), o.method, req.path, req.body, req.headers...)
		require.NoError(t, err)
		where := fmt.Sprintf("%s %s (%s %.120s, place %d, value %.60q)", o.method, o.path, o.method, req.path, place, value)
		code := resp.ErrorCode()
		if resp.Status >= 500 && !(resp.Status == 503 && code == "dns_busy") {
			t.Fatalf("%s: %d %s", where, resp.Status, resp.Body)
		}
		if resp.Status < 400 {
			return
		}
		if why := harness.CheckErrorCode(resp.Status, resp.Body); why != "" {
			t.Fatalf("%s: %s", where, why)
		}
		if o.op.Responses.Status(resp.Status) == nil {
			t.Fatalf("%s: answered %d %s, which the document does not list for the operation", where, resp.Status, code)
		}
	})
}

// fuzzOp is an operation and the API it belongs to.
type fuzzOp struct {
	docOp
	admin bool
}

// fuzzFixture is a team with one of most things, for the ids of path
// parameters and the members of valid bodies, and the operations to fuzz.
type fuzzFixture struct {
	ops   []fuzzOp
	seq   int
	team  *harness.Fixture
	api   *harness.Client
	ids   map[string]string // path parameter or body member name → an id of the fixture
	phone string
}

func newFuzzFixture(tb testing.TB) *fuzzFixture {
	fx := &fuzzFixture{}
	for admin, prefix := range map[bool]string{false: "/api/v1", true: "/admin/v1"} {
		base := env.svc.PublicURL
		if admin {
			base = env.svc.AdminURL
		}
		for _, o := range operations(servedDoc(tb, base, prefix)) {
			fx.ops = append(fx.ops, fuzzOp{docOp: o, admin: admin})
		}
	}
	sort.SliceStable(fx.ops, func(i, j int) bool { return !fx.ops[i].admin && fx.ops[j].admin })
	fx.rotate(tb)
	return fx
}

// rotate makes a fresh team with a key, a member, a group, a template, a
// custom field, a message, a scheduled send and a campaign: fuzzed calls
// may have deleted, disabled or rate-limited the last one.
func (fx *fuzzFixture) rotate(tb testing.TB) {
	tb.Helper()
	ctx := context.Background()
	number := teamNumber()
	team, api := newTeamOn(tb, env.admin, env.svc, harness.TeamOptions{Extra: map[string]any{"number": number}})
	fx.team, fx.api = team, api
	fx.seq++
	fx.phone = fmt.Sprintf("20255501%02d", fx.seq%100)
	id := func(c *harness.Client, path string, body any) string {
		var out struct {
			ID string `json:"id"`
		}
		r, err := c.Do(ctx, "POST", path, body)
		require.NoError(tb, err)
		require.Less(tb, r.Status, 300, "%s: %s", path, r.Body)
		require.NoError(tb, r.Data(&out))
		return out.ID
	}
	fx.ids = map[string]string{
		"team_id": team.TeamID, "key_id": team.KeyID, "number": number,
		"member_id":   id(api, "/members", map[string]any{"name": "Fuzz Kid", "phone": fx.phone}),
		"group_id":    id(env.admin, "/teams/"+team.TeamID+"/groups", map[string]any{"name": "Fuzz group"}),
		"template_id": id(api, "/templates", map[string]any{"name": "Fuzz template", "body": "Practice at 5"}),
		"field_id":    id(api, "/custom-fields", map[string]any{"label": "Jersey size"}),
		"message_id":  id(api, "/messages", map[string]any{"text": "Practice at 5", "audience": "all"}),
		"scheduled_id": id(api, "/messages", map[string]any{"text": "Later", "audience": "all",
			"scheduled_for": time.Now().Add(48 * time.Hour).Format(time.RFC3339)}),
		"campaign_id": id(env.admin, "/teams/"+team.TeamID+"/campaigns", map[string]any{"name": "Fuzz", "audience": "all",
			"steps": []map[string]any{{"delay_seconds": 86400, "text": "Tomorrow"}}}),
	}
}

type fuzzRequest struct {
	client  *harness.Client
	path    string
	body    any
	headers []string
}

// request builds the call of o with value at place. It reports false for a
// value that never reaches the service as itself.
func (fx *fuzzFixture) request(t *testing.T, o fuzzOp, place int, value string) (fuzzRequest, bool) {
	req := fuzzRequest{client: fx.api}
	if o.admin {
		req.client = env.admin
	}
	var pathParams, others []*openapi3.Parameter
	for _, p := range o.op.Parameters {
		switch p.Value.In {
		case "path":
			pathParams = append(pathParams, p.Value)
		case "query", "header":
			others = append(others, p.Value)
		}
	}
	hasBody := o.op.RequestBody != nil && o.op.RequestBody.Value.Content.Get("application/json") != nil
	switch { // a place the operation does not have: the nearest one it has
	case place == inPath && len(pathParams) == 0, place == inQuery && len(others) == 0:
		place = inField
	}
	if place >= inField && !hasBody {
		switch {
		case len(others) > 0:
			place = inQuery
		case len(pathParams) > 0:
			place = inPath
		default:
			place = -1 // nothing to put it in: the plain call
		}
	}
	path := o.path
	for _, p := range pathParams {
		v, ok := fx.ids[p.Name]
		if !ok {
			v = "none_" + p.Name
		}
		if place == inPath {
			if value == "" || value == "." || value == ".." {
				return req, false // the router's (a redirect or another path)
			}
			v = url.PathEscape(value)
		}
		path = strings.Replace(path, "{"+p.Name+"}", v, 1)
	}
	if place == inQuery {
		p := others[pick(value, len(others))]
		if p.In == "header" {
			for _, c := range []byte(value) {
				if c < 0x20 && c != '\t' || c == 0x7f {
					return req, false // net/http refuses to send it
				}
			}
			req.headers = []string{p.Name, value}
		} else {
			path += "?" + url.QueryEscape(p.Name) + "=" + url.QueryEscape(value)
		}
	}
	req.path = path
	if !hasBody {
		return req, true
	}
	schema := o.op.RequestBody.Value.Content.Get("application/json").Schema
	body := fx.example(schema, "", 0)
	const marker = "FUZZVALUEMARKER"
	if place == inField || place == inRawBody {
		if obj, ok := body.(map[string]any); ok {
			var names []string
			for name, ps := range schema.Value.Properties {
				if ps.Value != nil && ps.Value.Type.Is("string") {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			if len(names) > 0 {
				obj[names[pick(value, len(names))]] = marker
			}
		}
	}
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	switch place {
	case inField:
		v, _ := json.Marshal(value)
		raw = bytes.Replace(raw, []byte(`"`+marker+`"`), v, 1)
	case inRawBody:
		raw = bytes.Replace(raw, []byte(marker), []byte(value), 1)
	case inWholeBody:
		raw = []byte(value)
	}
	req.path, req.body = path, raw
	req.headers = append(req.headers, "Content-Type", "application/json")
	return req, true
}

// pick chooses one of n by the value, so different values reach different members.
func pick(value string, n int) int {
	h := 0
	for _, c := range []byte(value) {
		h = h*31 + int(c)
	}
	if h < 0 {
		h = -h
	}
	return h % n
}

// example is a valid value for schema: required members only, enums' first
// values, and the fixture's ids and plausible text by member name.
func (fx *fuzzFixture) example(ref *openapi3.SchemaRef, name string, depth int) any {
	if ref == nil || ref.Value == nil || depth > 6 {
		return nil
	}
	s := ref.Value
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch {
	case s.Type.Is("object") || len(s.Properties) > 0:
		out := map[string]any{}
		for _, r := range s.Required {
			out[r] = fx.example(s.Properties[r], r, depth+1)
		}
		return out
	case s.Type.Is("array"):
		return []any{fx.example(s.Items, strings.TrimSuffix(name, "s"), depth+1)}
	case s.Type.Is("integer"), s.Type.Is("number"):
		if s.Min != nil && *s.Min > 0 {
			return *s.Min
		}
		return 1
	case s.Type.Is("boolean"):
		return false
	}
	if v, ok := fx.ids[name]; ok {
		return v
	}
	switch name {
	case "phone", "phones", "item":
		return fx.phone
	case "url":
		return "https://192.0.2.1/hook"
	case "scheduled_for", "send_at":
		return time.Now().Add(2 * time.Hour).Format(time.RFC3339)
	case "until":
		return time.Now().AddDate(0, 1, 0).Format("2006-01-02")
	case "every":
		return "week"
	case "time_zone":
		return "America/New_York"
	case "code":
		return fmt.Sprintf("fz%d", time.Now().UnixNano())
	case "from":
		return "+1" + fx.phone
	case "to":
		return fx.ids["number"]
	}
	return "Fuzz text"
}
