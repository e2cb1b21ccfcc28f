package harness_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/app"
	"github.com/teamtext/teamtext/e2e/harness"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/httpapi"
)

// offlineDocs are the four documents, rendered from the code as served.
func offlineDocs(t *testing.T) []*harness.ContractDoc {
	t.Helper()
	cfg, err := config.Load(func(string) string { return "" }, config.Need{})
	require.NoError(t, err)
	pub, adm, err := app.Documents(cfg, "test")
	require.NoError(t, err)
	var docs []*harness.ContractDoc
	for name, api := range map[string]huma.API{"public": pub, "admin": adm} {
		for _, version := range []string{"3.1", "3.0"} {
			b, err := httpapi.Document(api, version, false)
			require.NoError(t, err)
			d, err := harness.NewContractDoc(context.Background(), name, version, b)
			require.NoError(t, err)
			docs = append(docs, d)
		}
	}
	return docs
}

func exchange(method, path string, status int, reqBody, respBody string, header ...string) harness.Exchange {
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req1"}}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	var rb []byte
	reqHeader := http.Header{}
	if reqBody != "" {
		rb = []byte(reqBody)
		reqHeader.Set("Content-Type", "application/json")
	}
	return harness.Exchange{Method: method, URL: "http://127.0.0.1:1/api/v1" + path, ReqHeader: reqHeader, ReqBody: rb,
		Status: status, RespHeader: h, RespBody: []byte(respBody)}
}

const team = `{"data":{"id":"team_1","name":"Lions","code":"lions","number":"+12025550100","time_zone":"America/New_York","plan":"team_plus","credits_used":0,"credits_included":5000}}`

// TestContractCatchesDrift: the check passes what the documents describe
// and names the operation and the JSON pointer of what they do not.
func TestContractCatchesDrift(t *testing.T) {
	t.Parallel()
	docs := offlineDocs(t)
	inbound := `{"data":[{"message_id":"in_1","provider_message_id":"p1","from":"+12025550101","to":"+12025550100","body":"hi",` +
		`"keyword":null,"group_id":null,"member":null,"response_to":null,"received_at":"2026-01-01T00:00:00Z"}],"pagination":{"limit":50,"offset":0,"has_more":false,"next_offset":null}}`
	cases := map[string]struct {
		ex   harness.Exchange
		want string // "" when the exchange matches; else a part of the one mismatch
	}{
		"a described answer":      {exchange("GET", "/team", 200, "", team), ""},
		"null where not nullable": {exchange("GET", "/team", 200, "", strings.Replace(team, `"Lions"`, "null", 1)), "at /data/name"},
		"an undescribed status":   {exchange("GET", "/team", 418, "", `{"error":{"code":"invalid_request","message":"x"}}`), "status is not supported"},
		"an undescribed header":   {exchange("GET", "/team", 200, "", team, "X-Debug", "1"), "header X-Debug is sent but not documented"},
		"a null object member":    {exchange("GET", "/inbound-messages", 200, "", inbound), ""},
		"an extra error member": {exchange("POST", "/members", 409, `{"name":"A","phone":"2025550100"}`,
			`{"error":{"code":"member_exists","message":"x","existing_member_id":"mem_1"}}`), ""},
		"an unknown error member": {exchange("POST", "/members", 409, `{"name":"A","phone":"2025550100"}`,
			`{"error":{"code":"member_exists","message":"x","existing_id":"mem_1"}}`), `property "existing_id" is unsupported`},
		"a code of another status": {exchange("POST", "/members", 409, `{"name":"A","phone":"2025550100"}`,
			`{"error":{"code":"not_found","message":"x"}}`), `code "not_found" is not one of the spec's codes for 409`},
		"an accepted null": {exchange("POST", "/members", 201, `{"name":"A","phone":"2025550100","email":null}`,
			`{"data":{"id":"m","name":"A","phone":"+12025550100","email":"","role":"athlete","status":"active","is_blocked":false,"dashboard_login":false,"group_ids":[],"created_at":"2026-01-01T00:00:00Z"}}`),
			"accepted a request the document refuses"},
	}
	for name, tc := range cases {
		r := harness.CheckContract(context.Background(), docs, []harness.Exchange{tc.ex})
		require.Equal(t, 1, r.Validated(), name)
		f := r.Failures()
		if tc.want == "" {
			require.Empty(t, f, name)
			continue
		}
		for _, version := range []string{"3.1", "3.0"} { // both documents name the operation and the fault
			found := false
			for _, line := range f {
				found = found || strings.Contains(line, "[openapi "+version+"]") && strings.Contains(line, tc.want)
				require.Contains(t, line, tc.ex.Method+" ", name)
			}
			require.True(t, found, "%s: openapi %s: %q in %v", name, version, tc.want, f)
		}
	}
}
