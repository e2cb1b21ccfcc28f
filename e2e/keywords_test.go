package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

type teamKeyword struct {
	ID        string    `json:"id"`
	Keyword   string    `json:"keyword"`
	Reply     string    `json:"reply"`
	GroupID   *string   `json:"group_id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func keywordsPath(teamID string) string { return "/teams/" + teamID + "/keywords" }

// TestTeamKeywordsAdmin: add, list, get, change and
// remove a team's keywords; a duplicate is 409, another team's id 404,
// and every reserved word is refused with 400 invalid_request.
func TestTeamKeywordsAdmin(t *testing.T) {
	t.Parallel()
	f, _ := messagingTeam(t, harness.TeamOptions{})
	other, _ := messagingTeam(t, harness.TeamOptions{})
	var team struct {
		Code string `json:"code"`
	}
	require.NoError(t, env.admin.Expect(context.Background(), 200, "GET", "/teams/"+f.TeamID, nil, &team))
	require.NotEmpty(t, team.Code)
	group := adminGroup(t, f.TeamID, "Carpool")
	otherGroup := adminGroup(t, other.TeamID, "Theirs")
	path := keywordsPath(f.TeamID)

	var k teamKeyword
	r := do(t, env.admin, "POST", path, map[string]any{"keyword": " schedule ", "reply": "Games at 5, fields.example.org"})
	require.Equal(t, 201, r.Status, string(r.Body))
	require.NoError(t, r.Data(&k))
	require.True(t, strings.HasPrefix(k.ID, "kwd_"), k.ID)
	require.Equal(t, "SCHEDULE", k.Keyword, "stored upper case")
	require.Equal(t, "Games at 5, fields.example.org", k.Reply)
	require.Nil(t, k.GroupID, "null when unset")
	require.Contains(t, string(r.Body), `"group_id":null`)

	// A duplicate, in any case, is a conflict; nothing is written.
	requireCode(t, do(t, env.admin, "POST", path, map[string]any{"keyword": "Schedule", "reply": "again"}), 409, "conflict")
	// Group refs: another team's group, or none such.
	requireCode(t, do(t, env.admin, "POST", path, map[string]any{"keyword": "CARPOOL", "reply": "x", "group_id": otherGroup}), 400, "invalid_group")
	requireCode(t, do(t, env.admin, "POST", path, map[string]any{"keyword": "CARPOOL", "reply": "x", "group_id": "grp_nope"}), 400, "invalid_group")
	// The word and the reply.
	for _, body := range []map[string]any{
		{"keyword": "two words", "reply": "x"}, {"keyword": "snack!", "reply": "x"}, {"keyword": strings.Repeat("A", 21), "reply": "x"},
		{"keyword": "", "reply": "x"}, {"keyword": "SNACKS", "reply": "   "}, {"keyword": "SNACKS", "reply": strings.Repeat("x", 460)},
		{"keyword": "SNACKS", "reply": "nul \u0000 here"},
	} {
		requireCode(t, do(t, env.admin, "POST", path, body), 400, "invalid_request")
	}
	// Every reserved word, in any case.
	reserved := []string{"STOP", "stopall", "Unsubscribe", "CANCEL", "end", "QUIT", "revoke", "OptOut", "START", "unstop", "HELP", "info",
		"JOIN", "athlete", "PARENT", team.Code, strings.ToUpper(team.Code)}
	for _, w := range reserved {
		r := do(t, env.admin, "POST", path, map[string]any{"keyword": w, "reply": "x"})
		requireCode(t, r, 400, "invalid_request")
		require.Contains(t, string(r.Body), "reserved", w)
	}
	// Another team's code is not reserved here.
	var otherTeam struct {
		Code string `json:"code"`
	}
	require.NoError(t, env.admin.Expect(context.Background(), 200, "GET", "/teams/"+other.TeamID, nil, &otherTeam))
	var theirs teamKeyword
	require.NoError(t, env.admin.Expect(context.Background(), 201, "POST", path, map[string]any{"keyword": otherTeam.Code, "reply": "x"}, &theirs))
	require.Equal(t, 204, do(t, env.admin, "DELETE", path+"/"+theirs.ID, nil).Status)

	var carpool teamKeyword
	require.NoError(t, env.admin.Expect(context.Background(), 201, "POST", path, map[string]any{"keyword": "carpool", "reply": "Sign-up sheet at the field", "group_id": group}, &carpool))
	require.NotNil(t, carpool.GroupID)
	require.Equal(t, group, *carpool.GroupID)

	var list []teamKeyword
	r = do(t, env.admin, "GET", path+"?limit=1", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&list))
	require.Len(t, list, 1)
	require.Equal(t, "CARPOOL", list[0].Keyword, "by keyword")
	require.Contains(t, string(r.Body), `"has_more":true`)
	require.Equal(t, 400, do(t, env.admin, "GET", path+"?offset=1000000001", nil).Status, "offsets are capped")

	// Change: the word (not onto another's), the reply, the group removed with null.
	requireCode(t, do(t, env.admin, "PATCH", path+"/"+carpool.ID, map[string]any{"keyword": "SCHEDULE"}), 409, "conflict")
	requireCode(t, do(t, env.admin, "PATCH", path+"/"+carpool.ID, map[string]any{"keyword": "JOIN"}), 400, "invalid_request")
	var changed teamKeyword
	require.NoError(t, env.admin.Expect(context.Background(), 200, "PATCH", path+"/"+carpool.ID, map[string]any{"reply": "Rides: see the sheet"}, &changed))
	require.Equal(t, "CARPOOL", changed.Keyword)
	require.Equal(t, "Rides: see the sheet", changed.Reply)
	require.Equal(t, group, *changed.GroupID, "an omitted group_id is kept")
	require.NoError(t, env.admin.Expect(context.Background(), 200, "PATCH", path+"/"+carpool.ID, map[string]any{"group_id": nil, "keyword": "rides"}, &changed))
	require.Nil(t, changed.GroupID, "null removes the group")
	require.Equal(t, "RIDES", changed.Keyword)
	require.NoError(t, env.admin.Expect(context.Background(), 200, "GET", path+"/"+carpool.ID, nil, &changed))
	require.Equal(t, "RIDES", changed.Keyword)

	// Another team's id is not found, whatever the verb; so is an unknown team.
	otherPath := keywordsPath(other.TeamID) + "/" + k.ID
	requireCode(t, do(t, env.admin, "GET", otherPath, nil), 404, "not_found")
	requireCode(t, do(t, env.admin, "PATCH", otherPath, map[string]any{"reply": "mine"}), 404, "not_found")
	requireCode(t, do(t, env.admin, "DELETE", otherPath, nil), 404, "not_found")
	requireCode(t, do(t, env.admin, "GET", keywordsPath("team_nope"), nil), 404, "not_found")
	// The other team may have the same word.
	require.Equal(t, 201, do(t, env.admin, "POST", keywordsPath(other.TeamID), map[string]any{"keyword": "SCHEDULE", "reply": "theirs"}).Status)

	require.Equal(t, 204, do(t, env.admin, "DELETE", path+"/"+k.ID, nil).Status)
	requireCode(t, do(t, env.admin, "GET", path+"/"+k.ID, nil), 404, "not_found")
	requireCode(t, do(t, env.admin, "DELETE", path+"/"+k.ID, nil), 404, "not_found")
	require.NoError(t, do(t, env.admin, "GET", path, nil).Data(&list))
	require.Len(t, list, 1)
	require.Equal(t, "RIDES", list[0].Keyword)
}

// TestTeamKeywordAnswers: a member texting a keyword
// (any case, with punctuation) gets its reply from the number texted and
// joins the keyword's group, with every roster entry of their number; a
// carrier's retry answers once; a number not on the roster gets the reply
// only; the texts stay listed and in the inbox; an opted-out number is
// not answered; nothing is charged.
func TestTeamKeywordAnswers(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	team := adminTeam(t, env.admin, f.TeamID)
	url := env.pg.URL
	group := adminGroup(t, f.TeamID, "Carpool")
	kid := addMember(t, api, map[string]any{"name": "Kim", "phone": "2025550441"})
	mom := addMember(t, api, map[string]any{"name": "Kim's mom", "phone": "2025550441", "role": "guardian"})
	require.Equal(t, 201, do(t, env.admin, "POST", keywordsPath(f.TeamID), map[string]any{"keyword": "CARPOOL", "reply": "Rides: see the sheet", "group_id": group}).Status)
	require.Equal(t, 201, do(t, env.admin, "POST", keywordsPath(f.TeamID), map[string]any{"keyword": "SCHEDULE", "reply": "Games at 5"}).Status)
	credits := countRows(t, `SELECT coalesce(sum(credits), 0)::int FROM billing_credit_entries WHERE team_id = $1`, f.TeamID)

	// The member texts the keyword; the carrier retries the callback.
	pid := inject(t, env.admin, "2025550441", team.Number, " Carpool! ")
	waitFor(t, 30*time.Second, func() bool { return inboundStored(t, url, pid) })
	inject(t, env.admin, "2025550441", team.Number, " Carpool! ", pid)
	waitFor(t, 30*time.Second, func() bool { return jobDone(t, url, pid) })
	waitFor(t, 30*time.Second, func() bool { return len(outbox(t, env.admin, f.TeamID)) >= 1 })

	// A number not on the roster, and a non-keyword single word.
	text(t, env.admin, url, "2025550449", team.Number, "schedule")
	text(t, env.admin, url, "2025550449", team.Number, "thanks")
	waitFor(t, 30*time.Second, func() bool { return len(outbox(t, env.admin, f.TeamID)) >= 2 })

	box := outbox(t, env.admin, f.TeamID)
	require.Len(t, box, 2, "the retry answered nothing; neither did thanks")
	byTo := map[string]map[string]any{}
	for _, e := range box {
		byTo[fmt.Sprint(e["to"])] = e
	}
	require.Equal(t, team.Name+": Rides: see the sheet", byTo["+12025550441"]["body"])
	require.Equal(t, team.Number, byTo["+12025550441"]["from"], "from the number texted")
	require.Equal(t, team.Name+": Games at 5", byTo["+12025550449"]["body"])
	require.Equal(t, 2, countRows(t, `SELECT count(*) FROM messaging_replies WHERE team_id = $1 AND kind = 'keyword'`, f.TeamID))

	// Both entries with the number joined the group; nobody else did.
	for _, id := range []string{kid.ID, mom.ID} {
		var m member
		require.NoError(t, do(t, api, "GET", "/members/"+id, nil).Data(&m))
		require.Equal(t, []string{group}, m.GroupIDs, m.Name)
	}
	require.Equal(t, 2, countRows(t, `SELECT count(*) FROM roster_group_members WHERE group_id = $1`, group))

	// Not charged.
	require.Equal(t, credits, countRows(t, `SELECT coalesce(sum(credits), 0)::int FROM billing_credit_entries WHERE team_id = $1`, f.TeamID))

	// Listed and announced as any text, and kept in the inbox.
	items := listInbound(t, api, "/inbound-messages")
	require.Len(t, items, 3)
	for _, it := range items {
		require.Nil(t, it.Keyword, it.Body)
	}
	require.Len(t, listInbound(t, api, "/inbox"), 3)
	require.Len(t, receivedData(t, url, f.TeamID), 3)

	// An opted-out number is not answered.
	text(t, env.admin, url, "2025550449", team.Number, "STOP")
	text(t, env.admin, url, "2025550449", team.Number, "SCHEDULE")
	require.Equal(t, 2, countRows(t, `SELECT count(*) FROM messaging_replies WHERE team_id = $1`, f.TeamID))
}

// TestDashboardKeywords: Settings links Keywords; a
// team director adds a keyword with a group, sees it listed, changes and
// deletes it, each in the activity log; a coach may not open the page.
func TestDashboardKeywords(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "team_director")
	group := adminGroup(t, s.teamID, "Snack parents")
	tab := chrome(t).NewTab(t)
	signInBrowser(t, tab, s)
	navigate(t, tab, "/app/settings")
	_, err := chromedp.RunResponse(tab, chromedp.Click(`//a[normalize-space()="Keywords"]`))
	require.NoError(t, err)
	require.Equal(t, "/app/settings/keywords", location(t, tab))
	require.Contains(t, textOf(t, tab, "main"), "No keywords yet.")

	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("kw-keyword"), "snacks")))
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("kw-reply"), "Snack list: bring fruit")))
	require.NoError(t, chromedp.Do(tab, chromedp.SetValue(chromedp.ID("kw-group"), group)))
	click(t, tab, "Add keyword")
	require.Contains(t, textOf(t, tab, "[role=status]"), "Keywords saved.")
	var ks []teamKeyword
	require.NoError(t, do(t, env.admin, "GET", keywordsPath(s.teamID), nil).Data(&ks))
	require.Len(t, ks, 1)
	require.Equal(t, "SNACKS", ks[0].Keyword)
	require.Equal(t, group, *ks[0].GroupID)
	row := "#keyword-" + ks[0].ID
	word, err := chromedp.Run(tab, chromedp.Value(chromedp.CSS(row+` input[name="keyword"]`)))
	require.NoError(t, err)
	chosen, err := chromedp.Run(tab, chromedp.Value(chromedp.CSS(row+" select")))
	require.NoError(t, err)
	require.Equal(t, "SNACKS", word, "listed")
	require.Equal(t, group, chosen, "with its group chosen")

	// A reserved word is refused on the form, which keeps what was typed.
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("kw-keyword"), "stop")))
	require.NoError(t, chromedp.Do(tab, chromedp.SendKeys(chromedp.ID("kw-reply"), "nope")))
	click(t, tab, "Add keyword")
	require.Contains(t, textOf(t, tab, "[role=alert]"), "reserved")

	// Save a change in the row: no group.
	_, err = chromedp.RunResponse(tab, chromedp.SetValue(chromedp.CSS(row+" select"), ""), chromedp.Click(chromedp.CSS(row+` button[type="submit"]:not(.danger)`)))
	require.NoError(t, err)
	require.NoError(t, do(t, env.admin, "GET", keywordsPath(s.teamID), nil).Data(&ks))
	require.Nil(t, ks[0].GroupID, "No group")

	_, err = chromedp.RunResponse(tab, chromedp.Click(chromedp.CSS(row+" button.danger")))
	require.NoError(t, err)
	require.Contains(t, textOf(t, tab, "main"), "No keywords yet.")
	require.NoError(t, do(t, env.admin, "GET", keywordsPath(s.teamID), nil).Data(&ks))
	require.Empty(t, ks)

	navigate(t, tab, "/app/settings/activity")
	log := textOf(t, tab, "main table")
	for _, a := range []string{"added keyword", "changed keyword", "deleted keyword"} {
		require.Contains(t, log, a)
	}

	coach := addStaff(t, s.teamID, s.teamName, "coach", teamNumber())
	h := newHTTPSession(t)
	h.signIn(coach)
	resp, _ := h.get("/app/settings/keywords")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}
