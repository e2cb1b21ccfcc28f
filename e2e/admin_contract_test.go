package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// ref is a placeholder in an admin row's path or body for an id an earlier
// row saved ("{team}" in paths, ref("team") in bodies).
type ref string

// fields is a row's JSON body: exactly the fields ADMIN-API.md lists.
type fields map[string]any

// adminRow is one row of ../shared/ADMIN-API.md, driven as an operator's
// script would: the method, the path, exactly the listed fields, the status
// the contract promises, the name to save data.id under, and what else the
// answer must hold.
type adminRow struct {
	method, path string
	body         any // fields, or a string sent as text/csv
	status       int
	save         string
	check        func(t *testing.T, data map[string]any, ids map[string]string)
}

// TestAdminContract drives every row of ADMIN-API.md with exactly the
// fields it lists.
func TestAdminContract(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t)
	h := startHookService(t, "admin_contract", rcv, "CLOCK=test")
	number, when := teamNumber(), time.Now().Add(72*time.Hour).Format(time.RFC3339)
	second := teamNumber()
	ids := map[string]string{"number": number}
	// Rows a public API call sets up for (a key's send, a STOP, a pause).
	public := func(method, path string, body any, save string) adminRow {
		return adminRow{method: "API " + method, path: path, body: body, save: save}
	}
	rows := []adminRow{
		{method: "POST", path: "/teams", body: fields{"name": "Contract FC", "code": fmt.Sprintf("contract-%d", time.Now().UnixNano()%1e9), "number": number, "time_zone": "America/Chicago", "plan": "team_plus", "card_on_file": true, "approval_required": false}, status: 201, save: "team"},
		{method: "GET", path: "/teams/{team}", status: 200, check: wantField("number", number)},
		{method: "PATCH", path: "/teams/{team}", body: fields{"name": "Contract United"}, status: 200, check: wantField("name", "Contract United")},
		{method: "PATCH", path: "/teams/{team}", body: fields{"plan": "business_season"}, status: 200, check: wantField("plan", "business_season")},
		{method: "PATCH", path: "/teams/{team}", body: fields{"card_on_file": true}, status: 200},
		{method: "PATCH", path: "/teams/{team}", body: fields{"approval_required": true}, status: 200, check: wantField("approval_required", true)},
		{method: "PATCH", path: "/teams/{team}", body: fields{"payment_state": "overdue"}, status: 200, check: wantField("payment_state", "overdue")},
		{method: "PATCH", path: "/teams/{team}", body: fields{"payment_state": "ok"}, status: 200},
		{method: "PATCH", path: "/teams/{team}", body: fields{"trial": true, "trial_credits": 500}, status: 200, check: wantField("trial", true)},
		{method: "PATCH", path: "/teams/{team}", body: fields{"trial": false}, status: 200},
		{method: "PATCH", path: "/teams/{team}", body: fields{"disabled": true}, status: 200, check: wantField("disabled", true)},
		{method: "PATCH", path: "/teams/{team}", body: fields{"disabled": false}, status: 200},
		{method: "PATCH", path: "/teams/{team}", body: fields{"locked": true}, status: 200, check: wantField("locked", true)},
		{method: "PATCH", path: "/teams/{team}", body: fields{"locked": false}, status: 200},
		{method: "POST", path: "/teams/{team}/numbers", body: fields{"number": second, "kind": "toll_free", "throughput": 3}, status: 201, save: "number2", check: wantField("kind", "toll_free")},
		{method: "POST", path: "/teams/{team}/numbers", body: fields{"number": teamNumber()}, status: 201, save: "number3", check: wantField("throughput_default", true)},
		{method: "GET", path: "/teams/{team}/numbers", status: 200, check: numbersListed(number, second)},
		{method: "GET", path: "/teams/{team}/numbers/{number2}", status: 200, check: wantField("number", second)},
		{method: "PATCH", path: "/teams/{team}/numbers/{number2}", body: fields{"throughput": 2}, status: 200, check: wantField("throughput", float64(2))},
		{method: "PATCH", path: "/teams/{team}/numbers/{number2}", body: fields{"kind": "long_code"}, status: 200, check: wantField("kind", "long_code")},
		{method: "DELETE", path: "/teams/{team}/numbers/{number3}", status: 204},
		{method: "POST", path: "/teams/{team}/groups", body: fields{"name": "U14"}, status: 201, save: "group", check: wantField("name", "U14")},
		{method: "PATCH", path: "/teams/{team}/groups/{group}", body: fields{"name": "U15"}, status: 200, check: wantField("name", "U15")},
		{method: "POST", path: "/teams/{team}/keywords", body: fields{"keyword": "schedule", "reply": "Games at 5", "group_id": ref("group")}, status: 201, save: "keyword", check: wantField("keyword", "SCHEDULE")},
		{method: "POST", path: "/teams/{team}/keywords", body: fields{"keyword": "STOP", "reply": "Reserved"}, status: 400},
		{method: "GET", path: "/teams/{team}/keywords", status: 200, check: listHas("keyword")},
		{method: "PATCH", path: "/teams/{team}/keywords/{keyword}", body: fields{"reply": "Games at 6", "group_id": nil}, status: 200, check: wantField("group_id", nil)},
		{method: "DELETE", path: "/teams/{team}/keywords/{keyword}", status: 204},
		{method: "POST", path: "/teams/{team}/members", body: fields{"name": "Coach Contract", "phone": "2025550301", "email": "coach@example.org", "role": "head_coach", "group_ids": []any{ref("group")}, "dashboard_login": true, "can_send_broadcasts": true, "status": "active"}, status: 201, save: "coach"},
		{method: "POST", path: "/teams/{team}/members", body: fields{"name": "Pending Kid", "phone": "2025550302", "role": "athlete", "status": "pending"}, status: 201, save: "kid", check: wantField("status", "pending")},
		{method: "POST", path: "/teams/{team}/members/{kid}/approve", status: 200, check: wantField("status", "active")},
		{method: "PATCH", path: "/teams/{team}/members/{kid}", body: fields{"role": "guardian"}, status: 200, check: wantField("role", "guardian")},
		{method: "PATCH", path: "/teams/{team}/members/{kid}", body: fields{"dashboard_login": false}, status: 200},
		{method: "PATCH", path: "/teams/{team}/members/{kid}", body: fields{"can_send_broadcasts": false}, status: 200},
		{method: "PATCH", path: "/teams/{team}/members/{kid}", body: fields{"is_blocked": true}, status: 200, check: wantField("is_blocked", true)},
		{method: "PATCH", path: "/teams/{team}/members/{kid}", body: fields{"is_blocked": false}, status: 200},
		{method: "POST", path: "/teams/{team}/members/import", body: "name,phone\nCSV Kid,2025550303\n", status: 200, check: wantField("created", float64(1))},
		{method: "POST", path: "/teams/{team}/api-keys", body: fields{"member_id": ref("coach"), "name": "contract"}, status: 201, save: "key", check: keyPrefixIsReal},
		{method: "GET", path: "/teams/{team}/api-keys", status: 200, check: keysListedWithoutValue},
		public("POST", "/messages", fields{"text": "Needs approval", "audience": "all"}, "approve_me"),
		public("POST", "/messages", fields{"text": "Will be rejected", "audience": "all"}, "reject_me"),
		{method: "GET", path: "/teams/{team}/approvals", status: 200, check: listHas("approve_me", "reject_me")},
		{method: "POST", path: "/teams/{team}/approvals/{approve_me}/approve", body: fields{"member_id": ref("coach")}, status: 200, check: wantField("status", "queued")},
		{method: "POST", path: "/teams/{team}/approvals/{reject_me}/reject", body: fields{"member_id": ref("coach")}, status: 200, check: wantField("status", "rejected")},
		{method: "POST", path: "/teams/{team}/templates", body: fields{"name": "Storm", "body": "Lightning: all fields closed.", "message_type": "urgent_alert"}, status: 201, save: "urgent", check: wantField("message_type", "urgent_alert")},
		public("POST", "/custom-fields", fields{"label": "Medical notes", "private": true}, "field"),
		{method: "PATCH", path: "/teams/{team}/custom-fields/{field}", body: fields{"private": false}, status: 200, check: wantField("private", false)},
		{method: "DELETE", path: "/teams/{team}/custom-fields/{field}", status: 204},
		{method: "POST", path: "/teams/{team}/campaigns", body: fields{"name": "Season", "audience": "group", "group_id": ref("group"), "steps": []any{fields{"send_at": when, "text": "Kickoff"}, fields{"delay_seconds": 7200, "template_id": ref("urgent"), "urgent": true}}}, status: 201, save: "campaign", check: wantField("status", "scheduled")},
		public("POST", "/campaigns/{campaign}/pause", nil, ""),
		{method: "POST", path: "/teams/{team}/campaigns/{campaign}/resume", status: 200, check: wantField("status", "scheduled")},
		{method: "POST", path: "/simulator/inbound", body: fields{"from": "+12025550303", "to": number, "body": "Is practice on?"}, status: 202},
		{method: "WAIT", path: "inbox"},
		{method: "POST", path: "/teams/{team}/inbox/{inbound}/reply", body: fields{"member_id": ref("coach"), "body": "Yes, at 5."}, status: 200, check: func(t *testing.T, d map[string]any, _ map[string]string) { require.NotNil(t, d["replied_at"]) }},
		{method: "POST", path: "/teams/{team}/webhooks", body: fields{"url": rcv.URL("/contract"), "events": []any{"member.joined"}, "member_id": ref("coach")}, status: 201, save: "webhook"},
		{method: "POST", path: "/teams/{team}/webhooks/{webhook}/test", status: 200},
		{method: "GET", path: "/teams/{team}/webhooks/{webhook}/attempts", status: 200},
		{method: "POST", path: "/teams/{team}/webhooks/{webhook}/enable", body: fields{"member_id": ref("coach")}, status: 200, check: wantField("enabled", true)},
		{method: "GET", path: "/teams/{team}/notifications", status: 200},
		{method: "PUT", path: "/simulator/outcomes", body: fields{"default": "delivered", "numbers": fields{"+12025550303": "failed"}, "error_code": "30005"}, status: 200, check: wantField("error_code", "30005")},
		{method: "GET", path: "/simulator/outbox?team_id={team}", status: 200},
		{method: "GET", path: "/clock", status: 200, check: func(t *testing.T, d map[string]any, _ map[string]string) { require.NotEmpty(t, d["now"]) }},
		{method: "POST", path: "/clock/advance", body: fields{"seconds": 60}, status: 200},
		{method: "DELETE", path: "/teams/{team}/api-keys/{key}", status: 200, check: func(t *testing.T, d map[string]any, _ map[string]string) { require.NotNil(t, d["revoked_at"]) }},
		{method: "DELETE", path: "/teams/{team}/groups/{group}", status: 204},
		// error_code is optional, with a default per outcome (the realistic simulator's).
		{method: "PUT", path: "/simulator/outcomes", body: fields{"default": "delivered", "numbers": fields{"+12025550303": "unconfirmed"}}, status: 200},
	}
	for i, row := range rows { // in order: later rows use what earlier ones made
		name := fmt.Sprintf("%02d %s %s", i, row.method, row.path)
		t.Run(name, func(t *testing.T) {
			if row.method == "WAIT" {
				ids["inbound"] = waitInbox(t, h, ids)
				return
			}
			data := runAdminRow(t, h, row, ids, name)
			if row.save != "" {
				id, _ := data["id"].(string)
				require.NotEmpty(t, id, "%s: saves an id", name)
				ids[row.save] = id
			}
			if row.check != nil {
				row.check(t, data, ids)
			}
		})
	}
}

// runAdminRow sends a row (to the admin API, or to the public API with the
// saved key for "API" rows) and returns the answer's data.
func runAdminRow(t *testing.T, h *hookService, row adminRow, ids map[string]string, name string) map[string]any {
	t.Helper()
	path := row.path
	for k, v := range ids {
		path = strings.ReplaceAll(path, "{"+k+"}", v)
	}
	client, method, want := h.admin, row.method, row.status
	var headers []string
	if m, ok := strings.CutPrefix(row.method, "API "); ok {
		client, method = harness.NewClient(h.svc.PublicURL+"/api/v1", ids["key_value"]), m
		if want == 0 {
			want = map[string]int{"POST": 201}[m]
			if strings.HasSuffix(path, "/pause") {
				want = 200
			}
		}
	}
	body := resolve(row.body, ids)
	if csv, ok := body.(string); ok {
		body, headers = []byte(csv), []string{"Content-Type", "text/csv"}
	}
	r, err := client.Do(context.Background(), method, path, body, headers...)
	require.NoError(t, err)
	require.Equal(t, want, r.Status, "%s: %s", name, r.Body)
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	data := map[string]any{}
	if len(r.Body) > 0 && json.Unmarshal(r.Body, &env) == nil && len(env.Data) > 0 && env.Data[0] == '{' {
		require.NoError(t, json.Unmarshal(env.Data, &data))
	} else if len(env.Data) > 0 && env.Data[0] == '[' {
		var list []any
		require.NoError(t, json.Unmarshal(env.Data, &list))
		data["list"] = list
	}
	if k, ok := data["key"].(string); ok && row.save == "key" { // the key's value, shown once
		ids["key_value"] = k
	}
	return data
}

// resolve replaces ref placeholders in a body with saved ids.
func resolve(v any, ids map[string]string) any {
	switch x := v.(type) {
	case ref:
		return ids[string(x)]
	case fields:
		out := map[string]any{}
		for k, e := range x {
			out[k] = resolve(e, ids)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = resolve(e, ids)
		}
		return out
	}
	return v
}

func wantField(name string, want any) func(*testing.T, map[string]any, map[string]string) {
	return func(t *testing.T, d map[string]any, _ map[string]string) {
		t.Helper()
		require.Equal(t, want, d[name], "%s in %v", name, d)
	}
}

// numbersListed checks that the team's numbers list the primary (the
// team's own number) and the added ones.
func numbersListed(primary string, added ...string) func(*testing.T, map[string]any, map[string]string) {
	return func(t *testing.T, d map[string]any, _ map[string]string) {
		t.Helper()
		got := map[string]bool{}
		for _, it := range d["list"].([]any) {
			n := it.(map[string]any)
			got[n["number"].(string)] = n["primary"].(bool)
		}
		require.True(t, got[primary], "the team's number is listed as primary: %v", got)
		for _, a := range added {
			primary, ok := got[a]
			require.True(t, ok && !primary, "%s is listed, not primary: %v", a, got)
		}
	}
}

// listHas checks that a list answer holds the saved ids.
func listHas(names ...string) func(*testing.T, map[string]any, map[string]string) {
	return func(t *testing.T, d map[string]any, ids map[string]string) {
		t.Helper()
		var got []string
		for _, it := range d["list"].([]any) {
			got = append(got, it.(map[string]any)["id"].(string))
		}
		for _, n := range names {
			require.Contains(t, got, ids[n])
		}
	}
}

// keyPrefixIsReal: the prefix is the key's own first characters, enough
// to recognise it (tt_live_ and four more).
func keyPrefixIsReal(t *testing.T, d map[string]any, _ map[string]string) {
	t.Helper()
	key, prefix := d["key"].(string), d["prefix"].(string)
	require.Len(t, prefix, 12)
	require.True(t, strings.HasPrefix(key, prefix), "prefix %q of key %q", prefix, key[:12])
	for _, f := range []string{"id", "member_id", "created_at"} {
		require.NotEmpty(t, d[f], f)
	}
}

// keysListedWithoutValue: the list shows the prefix, never the key.
func keysListedWithoutValue(t *testing.T, d map[string]any, ids map[string]string) {
	t.Helper()
	list := d["list"].([]any)
	require.NotEmpty(t, list)
	for _, it := range list {
		k := it.(map[string]any)
		require.NotContains(t, k, "key")
		if k["id"] == ids["key"] {
			require.True(t, strings.HasPrefix(ids["key_value"], k["prefix"].(string)))
		}
	}
}

// waitInbox waits for the simulated inbound text to reach the inbox and
// returns its message id.
func waitInbox(t *testing.T, h *hookService, ids map[string]string) string {
	t.Helper()
	api := harness.NewClient(h.svc.PublicURL+"/api/v1", ids["key_value"])
	var id string
	waitFor(t, 30*time.Second, func() bool {
		var items []struct {
			MessageID string `json:"message_id"`
		}
		r := do(t, api, "GET", "/inbox", nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		require.NoError(t, r.Data(&items))
		if len(items) > 0 {
			id = items[0].MessageID
		}
		return id != ""
	})
	return id
}
