package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

type member struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	Phone          string   `json:"phone"`
	Email          string   `json:"email"`
	Role           string   `json:"role"`
	Status         string   `json:"status"`
	IsBlocked      bool     `json:"is_blocked"`
	DashboardLogin bool     `json:"dashboard_login"`
	GroupIDs       []string `json:"group_ids"`
}

func do(t testing.TB, c *harness.Client, method, path string, body any) *harness.Response {
	t.Helper()
	r, err := c.Do(context.Background(), method, path, body)
	require.NoError(t, err)
	return r
}

func addMember(t *testing.T, api *harness.Client, body map[string]any) member {
	t.Helper()
	r := do(t, api, "POST", "/members", body)
	require.Equal(t, 201, r.Status, string(r.Body))
	var m member
	require.NoError(t, r.Data(&m))
	return m
}

func adminGroup(t *testing.T, teamID, name string) string {
	t.Helper()
	var g struct {
		ID string `json:"id"`
	}
	require.NoError(t, env.admin.Expect(context.Background(), 201, "POST", "/teams/"+teamID+"/groups", map[string]any{"name": name}, &g))
	return g.ID
}

func adminMember(t *testing.T, teamID string, body map[string]any) string {
	t.Helper()
	var m struct {
		ID string `json:"id"`
	}
	require.NoError(t, env.admin.Expect(context.Background(), 201, "POST", "/teams/"+teamID+"/members", body, &m))
	return m.ID
}

func TestMembersLifecycle(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	u14 := adminGroup(t, f.TeamID, "U14")
	ann := addMember(t, api, map[string]any{"name": "Ann Lee", "phone": "(202) 555-0110", "email": "Ann@Example.com", "group_ids": []string{u14}})
	require.Equal(t, "+12025550110", ann.Phone)
	require.Equal(t, "athlete", ann.Role)
	require.Equal(t, "active", ann.Status)
	require.Equal(t, []string{u14}, ann.GroupIDs)
	require.Equal(t, 1, eventCount(t, f.TeamID, "member.joined")-1, "member.joined for the API add (the fixture's coach made one)")
	bob := addMember(t, api, map[string]any{"name": "Bob Lee", "phone": "202.555.0110", "role": "guardian"}) // same phone, other person

	type page struct {
		Data       []member `json:"data"`
		Pagination struct {
			HasMore bool `json:"has_more"`
		} `json:"pagination"`
	}
	list := func(q string) []member {
		r := do(t, api, "GET", "/members"+q, nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		var p page
		require.NoError(t, r.JSON(&p))
		return p.Data
	}
	names := func(ms []member) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	require.Equal(t, []string{"Head Coach", "Ann Lee", "Bob Lee"}, names(list("")))
	require.Equal(t, []string{"Bob Lee", "Ann Lee", "Head Coach"}, names(list("?sort=-created_at")))
	require.Equal(t, []string{"Ann Lee", "Bob Lee"}, names(list("?phone=2025550110")))
	require.Equal(t, []string{"Ann Lee"}, names(list("?email=ann@EXAMPLE.com")))
	require.Equal(t, []string{"Bob Lee"}, names(list("?role=guardian")))
	require.Equal(t, []string{"Ann Lee"}, names(list("?group_id="+u14)))
	require.Equal(t, []string{"Head Coach"}, names(list("?role=head_coach&status=active")))
	require.Len(t, list("?limit=1&offset=1"), 1)
	requireCode(t, do(t, api, "GET", "/members?phone=555", nil), 400, "invalid_phone")
	requireCode(t, do(t, api, "GET", "/members?status=gone", nil), 400, "invalid_request")
	requireCode(t, do(t, api, "GET", "/members?sort=name", nil), 400, "invalid_request")

	u16 := adminGroup(t, f.TeamID, "U16")
	r := do(t, api, "PATCH", "/members/"+ann.ID, map[string]any{"name": "Ann Lee-Smith", "groups": []string{u16}})
	require.Equal(t, 200, r.Status, string(r.Body))
	var got member
	require.NoError(t, r.Data(&got))
	require.Equal(t, "Ann Lee-Smith", got.Name)
	require.Equal(t, []string{u16}, got.GroupIDs)
	r = do(t, api, "PATCH", "/members/"+ann.ID, map[string]any{"group_ids": []string{u14, u16}})
	require.NoError(t, r.Data(&got))
	require.ElementsMatch(t, []string{u14, u16}, got.GroupIDs)

	r = do(t, api, "GET", "/members/"+bob.ID, nil)
	require.Equal(t, 200, r.Status)
	require.Equal(t, 204, do(t, api, "DELETE", "/members/"+bob.ID, nil).Status)
	requireCode(t, do(t, api, "GET", "/members/"+bob.ID, nil), 404, "not_found")

	// Groups: list, add, remove.
	r = do(t, api, "GET", "/groups", nil)
	require.Equal(t, 200, r.Status)
	require.Contains(t, string(r.Body), `"member_count":1`)
	carl := addMember(t, api, map[string]any{"name": "Carl", "phone": "2025550111"})
	r = do(t, api, "POST", "/groups/"+u14+"/members", map[string]any{"member_id": carl.ID})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, []string{"Ann Lee-Smith", "Carl"}, names(list("?group_id="+u14)))
	require.Equal(t, 204, do(t, api, "DELETE", "/groups/"+u14+"/members/"+carl.ID, nil).Status)
	requireCode(t, do(t, api, "DELETE", "/groups/"+u14+"/members/"+carl.ID, nil), 404, "not_found")
}

func TestMemberRules(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	ann := addMember(t, api, map[string]any{"name": "Ann Lee", "phone": "2025550120"})
	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   map[string]any
		status int
		code   string
	}{
		{"invalid phone", "POST", "/members", map[string]any{"name": "X", "phone": "555-0100"}, 400, "invalid_phone"},
		{"invalid email", "POST", "/members", map[string]any{"name": "X", "phone": "2025550121", "email": "not-an-email"}, 400, "invalid_email"},
		{"invalid role", "POST", "/members", map[string]any{"name": "X", "phone": "2025550121", "role": "mascot"}, 400, "invalid_role"},
		{"staff role", "POST", "/members", map[string]any{"name": "X", "phone": "2025550121", "role": "head_coach"}, 400, "role_not_allowed"},
		{"status is read-only", "POST", "/members", map[string]any{"name": "X", "phone": "2025550121", "status": "active"}, 400, "read_only_field"},
		{"unknown field", "POST", "/members", map[string]any{"name": "X", "phone": "2025550121", "dashboard_login": true}, 400, "unknown_field"},
		{"unknown group", "POST", "/members", map[string]any{"name": "X", "phone": "2025550121", "group_ids": []string{"grp_nope"}}, 400, "invalid_group"},
		{"missing name", "POST", "/members", map[string]any{"phone": "2025550121"}, 400, "invalid_request"},
		{"same phone and name", "POST", "/members", map[string]any{"name": "  ann   LEE ", "phone": "+1 202 555 0120"}, 409, "member_exists"},
		{"patch status", "PATCH", "/members/" + ann.ID, map[string]any{"status": "pending"}, 400, "read_only_field"},
		{"patch staff role", "PATCH", "/members/" + ann.ID, map[string]any{"role": "coach"}, 400, "role_not_allowed"},
		{"patch bad group", "PATCH", "/members/" + ann.ID, map[string]any{"groups": []string{"grp_x"}}, 400, "invalid_group"},
		{"patch both group fields", "PATCH", "/members/" + ann.ID, map[string]any{"groups": []string{}, "group_ids": []string{}}, 400, "invalid_request"},
		{"patch staff", "PATCH", "/members/" + f.CoachID, map[string]any{"name": "New"}, 403, "staff_member_protected"},
		{"delete staff", "DELETE", "/members/" + f.CoachID, nil, 403, "staff_member_protected"},
		{"staff custom fields", "PATCH", "/members/" + f.CoachID + "/custom-fields", map[string]any{"values": map[string]string{}}, 403, "staff_member_protected"},
		{"same person as staff", "POST", "/members", map[string]any{"name": "Head Coach", "phone": "2025550199"}, 403, "staff_member_protected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != nil {
				body = tc.body
			}
			r := do(t, api, tc.method, tc.path, body)
			requireCode(t, r, tc.status, tc.code)
			if tc.code == "member_exists" {
				require.Contains(t, string(r.Body), `"existing_member_id":"`+ann.ID+`"`)
			}
		})
	}
	// A member with a dashboard login is protected like staff.
	loginID := adminMember(t, f.TeamID, map[string]any{"name": "Parent Admin", "phone": "2025550122", "role": "guardian", "dashboard_login": true})
	requireCode(t, do(t, api, "PATCH", "/members/"+loginID, map[string]any{"name": "x"}), 403, "staff_member_protected")
	g := adminGroup(t, f.TeamID, "G")
	requireCode(t, do(t, api, "POST", "/groups/"+g+"/members", map[string]any{"member_id": loginID}), 403, "staff_member_protected")
	// A PATCH making a duplicate of another entry is refused too.
	other := addMember(t, api, map[string]any{"name": "Ann Lee", "phone": "2025550123"})
	requireCode(t, do(t, api, "PATCH", "/members/"+other.ID, map[string]any{"phone": "2025550120"}), 409, "member_exists")
}

func TestOptOutRules(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	a := addMember(t, api, map[string]any{"name": "Kid One", "phone": "2025550130"})
	b := addMember(t, api, map[string]any{"name": "Kid Two", "phone": "202-555-0130", "role": "guardian"})

	r := do(t, api, "POST", "/opt-outs", map[string]any{"phone": "(202) 555-0130"})
	require.Equal(t, 200, r.Status, string(r.Body))
	var o struct {
		Phone     string   `json:"phone"`
		MemberIDs []string `json:"member_ids"`
		Source    string   `json:"source"`
	}
	require.NoError(t, r.Data(&o))
	require.Equal(t, "+12025550130", o.Phone)
	require.ElementsMatch(t, []string{a.ID, b.ID}, o.MemberIDs)
	require.Equal(t, "api", o.Source)
	require.Equal(t, 2, eventCount(t, f.TeamID, "member.opted_out"), "one event per roster entry")
	var m member
	require.NoError(t, do(t, api, "GET", "/members/"+a.ID, nil).Data(&m))
	require.Equal(t, "opted_out", m.Status)
	// Idempotent: no new events.
	require.Equal(t, 200, do(t, api, "POST", "/opt-outs", map[string]any{"member_id": b.ID}).Status)
	require.Equal(t, 2, eventCount(t, f.TeamID, "member.opted_out"))

	requireCode(t, do(t, api, "POST", "/members", map[string]any{"name": "Kid Three", "phone": "2025550130"}), 409, "opted_out")
	requireCode(t, do(t, api, "PATCH", "/members/"+a.ID, map[string]any{"phone": "2025550131"}), 409, "opted_out_member")

	// A number not on the roster is recorded, and cannot be added later.
	require.Equal(t, 200, do(t, api, "POST", "/opt-outs", map[string]any{"phone": "2025550139"}).Status)
	requireCode(t, do(t, api, "POST", "/members", map[string]any{"name": "New", "phone": "2025550139"}), 409, "opted_out")
	requireCode(t, do(t, api, "POST", "/opt-outs", map[string]any{"member_id": f.CoachID}), 403, "staff_member_protected")
	requireCode(t, do(t, api, "POST", "/opt-outs", map[string]any{"phone": "2025550199"}), 403, "staff_member_protected")
	requireCode(t, do(t, api, "POST", "/opt-outs", map[string]any{}), 400, "invalid_request")
	requireCode(t, do(t, api, "POST", "/opt-outs", map[string]any{"phone": "12"}), 400, "invalid_phone")

	// Deleting an opted-out member keeps the opt-out on record.
	require.Equal(t, 204, do(t, api, "DELETE", "/members/"+a.ID, nil).Status)
	requireCode(t, do(t, api, "GET", "/members/"+a.ID, nil), 404, "not_found")
	r = do(t, api, "GET", "/opt-outs", nil)
	require.Equal(t, 200, r.Status)
	var list []struct {
		Phone            string   `json:"phone"`
		MemberIDs        []string `json:"member_ids"`
		RemovedMemberIDs []string `json:"removed_member_ids"`
	}
	require.NoError(t, r.Data(&list))
	require.Len(t, list, 2)
	require.Equal(t, "+12025550139", list[0].Phone, "newest first")
	require.Empty(t, list[0].MemberIDs, "a number never on the roster")
	require.Equal(t, "+12025550130", list[1].Phone)
	require.ElementsMatch(t, []string{a.ID, b.ID}, list[1].MemberIDs, "the removed member is still listed")
	require.Equal(t, []string{a.ID}, list[1].RemovedMemberIDs, "and marked removed from the roster")
	requireCode(t, do(t, api, "POST", "/members", map[string]any{"name": "Kid One", "phone": "2025550130"}), 409, "opted_out")
	requireCode(t, do(t, api, "POST", "/members", map[string]any{"name": "Someone Else", "phone": "(202) 555-0130"}), 409, "opted_out")
}

func TestBulkOptOutAndValidate(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	a := addMember(t, api, map[string]any{"name": "A", "phone": "2025550140"})
	r := do(t, api, "POST", "/opt-outs/bulk", map[string]any{"items": []map[string]string{
		{"phone": "2025550140"}, {"phone": "nope"}, {"phone": "2025550199"}, {"phone": "2025550141"}, {"phone": "202-555-0140"},
	}})
	require.Equal(t, 200, r.Status, string(r.Body))
	var items []struct {
		Index     int      `json:"index"`
		Phone     string   `json:"phone"`
		Status    string   `json:"status"`
		MemberIDs []string `json:"member_ids"`
		Error     *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	require.NoError(t, r.Data(&items))
	require.Len(t, items, 5)
	require.Equal(t, "opted_out", items[0].Status)
	require.Equal(t, []string{a.ID}, items[0].MemberIDs)
	require.Equal(t, "failed", items[1].Status)
	require.Equal(t, "invalid_phone", items[1].Error.Code)
	require.Equal(t, "failed", items[2].Status)
	require.Equal(t, "staff_member_protected", items[2].Error.Code)
	require.Equal(t, "opted_out", items[3].Status)
	require.Empty(t, items[3].MemberIDs)
	require.Equal(t, "already_opted_out", items[4].Status)
	require.Equal(t, 4, items[4].Index)
	require.Equal(t, 1, eventCount(t, f.TeamID, "member.opted_out"), "one event for the one roster entry opted out")

	many := make([]map[string]string, 501)
	for i := range many {
		many[i] = map[string]string{"phone": "2025550142"}
	}
	requireCode(t, do(t, api, "POST", "/opt-outs/bulk", map[string]any{"items": many}), 400, "invalid_request")

	r = do(t, api, "POST", "/recipients/validate", map[string]any{"phones": []string{"2025550140", "garbage", "2025550143", "2025550199"}})
	require.Equal(t, 200, r.Status, string(r.Body))
	var checks []struct {
		Input    string  `json:"input"`
		Phone    *string `json:"phone"`
		Valid    bool    `json:"valid"`
		OnRoster bool    `json:"on_roster"`
		OptedOut bool    `json:"opted_out"`
	}
	require.NoError(t, r.Data(&checks))
	require.True(t, checks[0].Valid && checks[0].OnRoster && checks[0].OptedOut)
	require.False(t, checks[1].Valid)
	require.Nil(t, checks[1].Phone)
	require.True(t, checks[2].Valid)
	require.False(t, checks[2].OnRoster || checks[2].OptedOut)
	require.True(t, checks[3].OnRoster)
	requireCode(t, do(t, api, "POST", "/recipients/validate", map[string]any{"phones": make([]string, 101)}), 400, "invalid_request")
}

// TestHeavyPoolIsShared: bulk opt-outs and recipient checks draw on one
// 10-per-minute pool per key.
func TestHeavyPoolIsShared(t *testing.T) {
	t.Parallel()
	_, api := newTeam(t, harness.TeamOptions{})
	statuses := map[int]int{}
	for i := 0; i < 12; i++ {
		var r *harness.Response
		if i%2 == 0 {
			r = do(t, api, "POST", "/recipients/validate", map[string]any{"phones": []string{"2025550150"}})
		} else {
			r = do(t, api, "POST", "/opt-outs/bulk", map[string]any{"items": []map[string]string{{"phone": fmt.Sprintf("20255501%02d", 50+i)}}})
		}
		statuses[r.Status]++
		if r.Status == 429 {
			require.Contains(t, r.Header.Get("RateLimit-Policy"), `"heavy";q=10;w=60`)
		}
	}
	require.Equal(t, map[int]int{200: 10, 429: 2}, statuses)
	require.Equal(t, 200, do(t, api, "GET", "/members", nil).Status, "other endpoints are not in the pool")
}

func TestCustomFields(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	m := addMember(t, api, map[string]any{"name": "A", "phone": "2025550160"})
	var jersey, medical struct {
		ID, Key string
	}
	r := do(t, api, "POST", "/custom-fields", map[string]any{"label": "Jersey Number!"})
	require.Equal(t, 201, r.Status, string(r.Body))
	require.NoError(t, r.Data(&jersey))
	require.Equal(t, "jersey_number", jersey.Key)
	r = do(t, api, "POST", "/custom-fields", map[string]any{"label": "Medical", "key": "medical", "private": true})
	require.NoError(t, r.Data(&medical))
	requireCode(t, do(t, api, "POST", "/custom-fields", map[string]any{"label": "jersey number!"}), 409, "field_exists")
	requireCode(t, do(t, api, "POST", "/custom-fields", map[string]any{"label": "Other", "key": "medical"}), 409, "field_exists")
	requireCode(t, do(t, api, "POST", "/custom-fields", map[string]any{"label": "Bad", "key": "9lives"}), 400, "invalid_request")
	requireCode(t, do(t, api, "POST", "/custom-fields", map[string]any{"key": "x"}), 400, "invalid_request")

	r = do(t, api, "PATCH", "/members/"+m.ID+"/custom-fields", map[string]any{"values": map[string]string{"jersey_number": "10", "medical": "asthma"}})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.JSONEq(t, `{"data":{"jersey_number":"10"}}`, string(r.Body))
	r = do(t, api, "GET", "/members/"+m.ID+"/custom-fields", nil)
	require.JSONEq(t, `{"data":{"jersey_number":"10"}}`, string(r.Body), "private values are never returned")
	requireCode(t, do(t, api, "PATCH", "/members/"+m.ID+"/custom-fields", map[string]any{"values": map[string]string{"nope": "1", "jersey_number": "11"}}), 400, "invalid_request")
	require.JSONEq(t, `{"data":{"jersey_number":"10"}}`, string(do(t, api, "GET", "/members/"+m.ID+"/custom-fields", nil).Body), "nothing written")

	requireCode(t, do(t, api, "PATCH", "/custom-fields/"+medical.ID, map[string]any{"private": false}), 403, "private_field_locked")
	requireCode(t, do(t, api, "DELETE", "/custom-fields/"+medical.ID, nil), 403, "private_field_locked")
	r = do(t, api, "PATCH", "/custom-fields/"+jersey.ID, map[string]any{"label": "Shirt", "private": true})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.JSONEq(t, `{"data":{}}`, string(do(t, api, "GET", "/members/"+m.ID+"/custom-fields", nil).Body))

	// The dashboard may make a private field public, and delete one.
	require.NoError(t, env.admin.Expect(context.Background(), 200, "PATCH", "/teams/"+f.TeamID+"/custom-fields/"+medical.ID, map[string]any{"private": false}, nil))
	require.JSONEq(t, `{"data":{"medical":"asthma"}}`, string(do(t, api, "GET", "/members/"+m.ID+"/custom-fields", nil).Body))
	require.NoError(t, env.admin.Expect(context.Background(), 204, "DELETE", "/teams/"+f.TeamID+"/custom-fields/"+jersey.ID, nil, nil))
	require.Equal(t, 204, do(t, api, "DELETE", "/custom-fields/"+medical.ID, nil).Status)
	require.JSONEq(t, `{"data":[]}`, string(do(t, api, "GET", "/custom-fields", nil).Body))

	for i := 0; i < 20; i++ {
		require.Equal(t, 201, do(t, api, "POST", "/custom-fields", map[string]any{"label": fmt.Sprintf("F%d", i)}).Status)
	}
	requireCode(t, do(t, api, "POST", "/custom-fields", map[string]any{"label": "F20"}), 409, "field_limit")
}

// TestRosterCrossTeamIDs: every id-bearing roster route answers 404 for
// another team's ids.
func TestRosterCrossTeamIDs(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	other, otherAPI := newTeam(t, harness.TeamOptions{})
	theirMember := addMember(t, otherAPI, map[string]any{"name": "Theirs", "phone": "2025550170"})
	theirGroup := adminGroup(t, other.TeamID, "Theirs")
	var theirField struct{ ID string }
	require.NoError(t, do(t, otherAPI, "POST", "/custom-fields", map[string]any{"label": "Theirs"}).Data(&theirField))
	mine := addMember(t, api, map[string]any{"name": "Mine", "phone": "2025550171"})
	myGroup := adminGroup(t, f.TeamID, "Mine")
	for _, c := range []struct{ method, path string }{
		{"GET", "/members/" + theirMember.ID},
		{"PATCH", "/members/" + theirMember.ID},
		{"DELETE", "/members/" + theirMember.ID},
		{"GET", "/members/" + theirMember.ID + "/custom-fields"},
		{"PATCH", "/members/" + theirMember.ID + "/custom-fields"},
		{"POST", "/groups/" + theirGroup + "/members"},
		{"POST", "/groups/" + myGroup + "/members#their-member"},
		{"DELETE", "/groups/" + theirGroup + "/members/" + mine.ID},
		{"DELETE", "/groups/" + myGroup + "/members/" + theirMember.ID},
		{"PATCH", "/custom-fields/" + theirField.ID},
		{"DELETE", "/custom-fields/" + theirField.ID},
		{"POST", "/opt-outs#their-member"},
	} {
		var body any
		switch c.method {
		case "PATCH":
			body = map[string]any{}
			if c.path == "/members/"+theirMember.ID+"/custom-fields" {
				body = map[string]any{"values": map[string]string{}}
			}
		case "POST":
			body = map[string]any{"member_id": mine.ID}
			if c.path[len(c.path)-len("#their-member"):] == "#their-member" {
				body = map[string]any{"member_id": theirMember.ID}
			}
		}
		path := c.path
		if i := len(path) - len("#their-member"); i > 0 && path[i:] == "#their-member" {
			path = path[:i]
		}
		requireCode(t, do(t, api, c.method, path, body), http.StatusNotFound, "not_found")
	}
	// The other team's member is untouched.
	var m member
	require.NoError(t, do(t, otherAPI, "GET", "/members/"+theirMember.ID, nil).Data(&m))
	require.Equal(t, "active", m.Status)
}

// TestRosterGates: writes need a card (opt-outs exempt); below Team Plus
// only opt-outs work.
func TestRosterGates(t *testing.T) {
	t.Parallel()
	_, noCard := newTeam(t, harness.TeamOptions{CardOnFile: new(bool)})
	require.Equal(t, 200, do(t, noCard, "GET", "/members", nil).Status)
	requireCode(t, do(t, noCard, "POST", "/members", map[string]any{"name": "A", "phone": "2025550180"}), 403, "card_required")
	requireCode(t, do(t, noCard, "POST", "/custom-fields", map[string]any{"label": "A"}), 403, "card_required")
	require.Equal(t, 200, do(t, noCard, "POST", "/opt-outs", map[string]any{"phone": "2025550181"}).Status)
	require.Equal(t, 200, do(t, noCard, "POST", "/opt-outs/bulk", map[string]any{"items": []map[string]string{{"phone": "2025550182"}}}).Status)
	require.Equal(t, 200, do(t, noCard, "POST", "/recipients/validate", map[string]any{"phones": []string{"2025550182"}}).Status, "a check changes nothing")

	_, free := newTeam(t, harness.TeamOptions{Plan: "free", CardOnFile: new(bool)})
	requireCode(t, do(t, free, "GET", "/members", nil), 403, "plan_required")
	requireCode(t, do(t, free, "POST", "/recipients/validate", map[string]any{"phones": []string{"2025550183"}}), 403, "plan_required")
	require.Equal(t, 200, do(t, free, "POST", "/opt-outs", map[string]any{"phone": "2025550183"}).Status)
	require.Equal(t, 200, do(t, free, "POST", "/opt-outs/bulk", map[string]any{"items": []map[string]string{{"phone": "2025550184"}}}).Status)
	requireCode(t, do(t, free, "GET", "/opt-outs", nil), 403, "plan_required")
}

func TestPendingMemberApproval(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	id := adminMember(t, f.TeamID, map[string]any{"name": "Pending P", "phone": "2025550190", "role": "athlete", "status": "pending"})
	require.Equal(t, 1, eventCount(t, f.TeamID, "member.joined"), "only the coach so far")
	var m member
	require.NoError(t, do(t, api, "GET", "/members/"+id, nil).Data(&m))
	require.Equal(t, "pending", m.Status)
	require.NoError(t, env.admin.Expect(context.Background(), 200, "POST", "/teams/"+f.TeamID+"/members/"+id+"/approve", nil, nil))
	require.Equal(t, 2, eventCount(t, f.TeamID, "member.joined"))
	r, err := env.admin.Do(context.Background(), "POST", "/teams/"+f.TeamID+"/members/"+id+"/approve", nil)
	require.NoError(t, err)
	requireCode(t, r, 409, "conflict")
}
