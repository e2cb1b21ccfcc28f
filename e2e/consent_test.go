package e2e

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// consentRecord is a member's consent record on the wire.
type consentRecord struct {
	Source   string    `json:"source"`
	At       time.Time `json:"at"`
	Evidence *string   `json:"evidence"`
}

// consentEvent is one row of a number's consent history on the wire.
type consentEvent struct {
	ID         string    `json:"id"`
	At         time.Time `json:"at"`
	Kind       string    `json:"kind"`
	Channel    string    `json:"channel"`
	Phone      string    `json:"phone"`
	MemberID   *string   `json:"member_id"`
	Changed    bool      `json:"changed"`
	Source     *string   `json:"source"`
	Evidence   *string   `json:"evidence"`
	MessageID  *string   `json:"message_id"`
	RecordedAt time.Time `json:"recorded_at"`
}

// memberConsent is GET /members/{id}/consent.
type memberConsent struct {
	Data struct {
		MemberID string         `json:"member_id"`
		Phone    string         `json:"phone"`
		Consent  *consentRecord `json:"consent"`
		History  []consentEvent `json:"history"`
	} `json:"data"`
	Pagination struct {
		Limit      int  `json:"limit"`
		Offset     int  `json:"offset"`
		HasMore    bool `json:"has_more"`
		NextOffset *int `json:"next_offset"`
	} `json:"pagination"`
}

func getConsent(t *testing.T, api *harness.Client, path string) memberConsent {
	t.Helper()
	r := do(t, api, "GET", path, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	var mc memberConsent
	require.NoError(t, r.JSON(&mc))
	return mc
}

// memberConsentOf reads a member's consent record through GET /members/{id}.
func memberConsentOf(t *testing.T, api *harness.Client, id string) *consentRecord {
	t.Helper()
	var m struct {
		Consent *consentRecord `json:"consent"`
	}
	require.NoError(t, do(t, api, "GET", "/members/"+id, nil).Data(&m))
	return m.Consent
}

// step is what a history row must say: kind, channel, changed, member.
func step(e consentEvent) string {
	member := "-"
	if e.MemberID != nil {
		member = *e.MemberID
	}
	return strings.Join([]string{e.Kind, e.Channel, map[bool]string{true: "changed", false: "same"}[e.Changed], member}, " ")
}

func historyCount(t *testing.T, teamID string) int {
	return countRows(t, `SELECT count(*) FROM roster_consent_events WHERE team_id = $1`, teamID)
}

// TestConsentHistory: consent given on create (API and admin), STOP, START
// and HELP by text, opt-outs through the API and by support, each kept for
// the number, oldest first, paginated; the member's record in get and list;
// the admin export as JSON and CSV; another team sees nothing of it.
func TestConsentHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f, api := messagingTeam(t, harness.TeamOptions{})
	teamPhone := numberOf(t, env.admin, f.TeamID)
	url := env.pg.URL
	const shared = "+12025550461"

	// Consent on create: given through the API (a web form a week ago),
	// defaulted in the admin API.
	signedUp := time.Now().Add(-7 * 24 * time.Hour).Truncate(time.Second)
	r := do(t, api, "POST", "/members", map[string]any{"name": "Ann", "phone": "202-555-0461", "consent": map[string]any{
		"source": "web_signup", "at": signedUp.Format(time.RFC3339), "evidence": "Checked 'Text me team updates' at https://tigers.example/join"}})
	require.Equal(t, 201, r.Status, string(r.Body))
	var kid struct {
		ID      string         `json:"id"`
		Consent *consentRecord `json:"consent"`
	}
	require.NoError(t, r.Data(&kid))
	require.Equal(t, "web_signup", kid.Consent.Source)
	require.True(t, signedUp.Equal(kid.Consent.At), "%v", kid.Consent.At)
	require.Equal(t, "Checked 'Text me team updates' at https://tigers.example/join", *kid.Consent.Evidence)
	before := time.Now().Add(-time.Second)
	dad := adminMember(t, f.TeamID, map[string]any{"name": "Ann's dad", "phone": "(202) 555-0461", "role": "guardian"})
	dadConsent := memberConsentOf(t, api, dad)
	require.Equal(t, "dashboard", dadConsent.Source)
	require.Nil(t, dadConsent.Evidence)
	require.WithinRange(t, dadConsent.At, before, time.Now().Add(time.Second))
	plain := addMember(t, api, map[string]any{"name": "Bo", "phone": "2025550462"})
	bo := memberConsentOf(t, api, plain.ID)
	require.Equal(t, "api", bo.Source, "the API's default")
	require.Nil(t, bo.Evidence)

	// The record is in the list too.
	r = do(t, api, "GET", "/members?phone=2025550461", nil)
	require.Equal(t, 200, r.Status)
	var listed []struct {
		ID      string         `json:"id"`
		Consent *consentRecord `json:"consent"`
	}
	require.NoError(t, r.Data(&listed))
	require.Len(t, listed, 2)
	require.Equal(t, kid.ID, listed[0].ID)
	require.Equal(t, "web_signup", listed[0].Consent.Source)
	require.Equal(t, "dashboard", listed[1].Consent.Source)

	// By text: STOP, START, START again (nothing to undo), HELP.
	stop := text(t, env.admin, url, shared, teamPhone, "Stop.")
	require.Equal(t, "opted_out", memberStatus(t, api, kid.ID))
	text(t, env.admin, url, shared, teamPhone, "START")
	require.Equal(t, "active", memberStatus(t, api, kid.ID))
	text(t, env.admin, url, shared, teamPhone, "unstop")
	text(t, env.admin, url, shared, teamPhone, "help")
	// By the API and by support: an opt-out by member_id, then the same
	// number again by phone, then by support.
	require.Equal(t, 200, do(t, api, "POST", "/opt-outs", map[string]any{"member_id": kid.ID}).Status)
	require.Equal(t, 200, do(t, api, "POST", "/opt-outs", map[string]any{"phone": "2025550461"}).Status)
	require.Equal(t, 200, do(t, env.admin, "POST", "/teams/"+f.TeamID+"/opt-outs", map[string]any{"phone": "202.555.0461"}).Status)
	// Refused opt-outs write nothing.
	n := historyCount(t, f.TeamID)
	requireCode(t, do(t, api, "POST", "/opt-outs", map[string]any{"member_id": f.CoachID}), 403, "staff_member_protected")
	requireCode(t, do(t, api, "POST", "/opt-outs", map[string]any{"phone": "12"}), 400, "invalid_phone")
	require.Equal(t, n, historyCount(t, f.TeamID))

	mc := getConsent(t, api, "/members/"+kid.ID+"/consent?limit=200")
	require.Equal(t, kid.ID, mc.Data.MemberID)
	require.Equal(t, shared, mc.Data.Phone)
	require.Equal(t, "web_signup", mc.Data.Consent.Source)
	var steps []string
	for _, e := range mc.Data.History {
		steps = append(steps, step(e))
		require.Equal(t, shared, e.Phone)
		require.NotEmpty(t, e.ID)
	}
	require.Equal(t, []string{
		"consent_given api changed " + kid.ID, // at the consent's own time, a week ago: first
		"consent_given admin changed " + dad,
		"opt_out sms changed " + kid.ID, // the text's member: the oldest active entry
		"opt_in sms changed " + kid.ID,
		"opt_in sms same " + kid.ID,
		"help sms same " + kid.ID,
		"opt_out api changed " + kid.ID,
		"opt_out api same -",
		"opt_out admin same -",
	}, steps)
	h := mc.Data.History
	require.Equal(t, "web_signup", *h[0].Source)
	require.True(t, signedUp.Equal(h[0].At))
	require.Equal(t, "dashboard", *h[1].Source)
	require.Nil(t, h[2].Source)
	require.Equal(t, "Stop.", *h[2].Evidence, "the text as received")
	var inbound []inboundItem
	require.NoError(t, do(t, api, "GET", "/inbound-messages?limit=200", nil).Data(&inbound))
	for _, it := range inbound {
		if it.ProviderMessageID == stop {
			require.Equal(t, it.MessageID, *h[2].MessageID, "the STOP's inbound text")
		}
	}
	require.Equal(t, "help", *h[5].Evidence)
	require.Nil(t, h[6].MessageID)
	for i := 1; i < len(h); i++ {
		require.False(t, h[i].At.Before(h[i-1].At), "oldest first")
	}

	// Paginated as lists are.
	p1 := getConsent(t, api, "/members/"+kid.ID+"/consent?limit=4")
	require.Len(t, p1.Data.History, 4)
	require.True(t, p1.Pagination.HasMore)
	require.Equal(t, 4, *p1.Pagination.NextOffset)
	p3 := getConsent(t, api, "/members/"+kid.ID+"/consent?limit=4&offset=8")
	require.Len(t, p3.Data.History, 1)
	require.False(t, p3.Pagination.HasMore)
	require.Nil(t, p3.Pagination.NextOffset)
	require.Equal(t, h[8].ID, p3.Data.History[0].ID)
	// The dad's entry shares the number, so the history.
	require.Len(t, getConsent(t, api, "/members/"+dad+"/consent?limit=200").Data.History, 9)
	// Bo's number has only Bo's consent.
	boHistory := getConsent(t, api, "/members/"+plain.ID+"/consent").Data.History
	require.Len(t, boHistory, 1)
	require.Equal(t, "consent_given api changed "+plain.ID, step(boHistory[0]))

	// Another team: its own number's history only, and our ids are 404.
	other, otherAPI := messagingTeam(t, harness.TeamOptions{})
	stranger := addMember(t, otherAPI, map[string]any{"name": "Ann", "phone": "2025550461"})
	requireCode(t, do(t, otherAPI, "GET", "/members/"+kid.ID+"/consent", nil), 404, "not_found")
	requireCode(t, do(t, api, "GET", "/members/"+stranger.ID+"/consent", nil), 404, "not_found")
	otherHistory := getConsent(t, otherAPI, "/members/"+stranger.ID+"/consent").Data.History
	require.Len(t, otherHistory, 1, "the same number on another team: that team's history alone")
	requireCode(t, do(t, api, "GET", "/members/mem_nope/consent", nil), 404, "not_found")

	// The admin export, JSON.
	r = do(t, env.admin, "GET", "/teams/"+f.TeamID+"/consent?phone=(202)%20555-0461", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.True(t, strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"))
	var export struct {
		Data struct {
			Phone    string `json:"phone"`
			OptedOut bool   `json:"opted_out"`
			Members  []struct {
				ID      string         `json:"id"`
				Status  string         `json:"status"`
				Removed bool           `json:"removed"`
				Consent *consentRecord `json:"consent"`
			} `json:"members"`
			History []consentEvent `json:"history"`
		} `json:"data"`
	}
	require.NoError(t, r.JSON(&export))
	require.Equal(t, shared, export.Data.Phone)
	require.True(t, export.Data.OptedOut)
	require.Len(t, export.Data.Members, 2)
	require.Equal(t, kid.ID, export.Data.Members[0].ID)
	require.Equal(t, "opted_out", export.Data.Members[0].Status)
	require.Equal(t, "web_signup", export.Data.Members[0].Consent.Source)
	require.Equal(t, h, export.Data.History, "the whole history, as the member's consent shows it")

	// The admin export, CSV: by format, and by Accept.
	for _, req := range []struct {
		path    string
		headers []string
	}{
		{"/teams/" + f.TeamID + "/consent?phone=2025550461&format=csv", nil},
		{"/teams/" + f.TeamID + "/consent?phone=2025550461", []string{"Accept", "text/csv"}},
	} {
		r, err := env.admin.Do(ctx, "GET", req.path, nil, req.headers...)
		require.NoError(t, err)
		require.Equal(t, 200, r.Status, string(r.Body))
		require.Equal(t, "text/csv; charset=utf-8", r.Header.Get("Content-Type"))
		require.Contains(t, r.Header.Get("Content-Disposition"), `filename="consent-12025550461.csv"`)
		rows, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
		require.NoError(t, err)
		require.Equal(t, []string{"at", "kind", "channel", "changed", "phone", "member_id", "source", "evidence", "message_id", "recorded_at", "id"}, rows[0])
		require.Len(t, rows, 1+len(h))
		for i, e := range h {
			row := rows[i+1]
			at, err := time.Parse(time.RFC3339Nano, row[0])
			require.NoError(t, err)
			require.True(t, e.At.Equal(at))
			require.Equal(t, []string{e.Kind, e.Channel, map[bool]string{true: "true", false: "false"}[e.Changed], shared}, row[1:5])
			require.Equal(t, e.ID, row[10])
		}
		require.Equal(t, kid.ID, rows[1][5])
		require.Equal(t, "web_signup", rows[1][6])
		require.Equal(t, "Checked 'Text me team updates' at https://tigers.example/join", rows[1][7])
		require.Equal(t, "Stop.", rows[3][7])
		require.Equal(t, *h[2].MessageID, rows[3][8])
		require.Empty(t, rows[8][5], "null member_id is an empty cell")
	}
	// Bad phones are 400; another team's history is not in this team's export.
	requireCode(t, do(t, env.admin, "GET", "/teams/"+f.TeamID+"/consent?phone=12", nil), 400, "invalid_phone")
	requireCode(t, do(t, env.admin, "GET", "/teams/"+f.TeamID+"/consent", nil), 400, "invalid_phone")
	requireCode(t, do(t, env.admin, "GET", "/teams/"+f.TeamID+"/consent?phone=2025550461&format=xml", nil), 400, "invalid_request")
	requireCode(t, do(t, env.admin, "GET", "/teams/team_nope/consent?phone=2025550461", nil), 404, "not_found")
	r = do(t, env.admin, "GET", "/teams/"+other.TeamID+"/consent?phone=2025550461", nil)
	require.Equal(t, 200, r.Status)
	require.NoError(t, r.JSON(&export))
	require.Len(t, export.Data.History, 1)
	require.Equal(t, stranger.ID, *export.Data.History[0].MemberID)
	require.False(t, export.Data.OptedOut)
}

// TestConsentInputs: bad consent records are 400 with nothing written, on
// the public and the admin create.
func TestConsentInputs(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	members, history := teamMembers(t, f.TeamID), historyCount(t, f.TeamID)
	future := time.Now().Add(time.Hour).Format(time.RFC3339)
	for _, c := range []any{
		map[string]any{"source": "sms"},
		map[string]any{"source": "API"},
		map[string]any{"at": future},
		map[string]any{"at": "1999-12-31T23:59:59Z"},
		map[string]any{"at": "yesterday"},
		map[string]any{"at": "2026-01-02T03:04:05"}, // no offset
		map[string]any{"evidence": strings.Repeat("x", 1001)},
		map[string]any{"evidence": "ring\u0007"},
		map[string]any{"evidence": "a\u0000b"},
		map[string]any{"unknown": "x"},
		map[string]any{"evidence": nil},
		nil, // consent: null
		"api",
	} {
		body := map[string]any{"name": "Cy", "phone": "2025550471", "consent": c}
		r := do(t, api, "POST", "/members", body)
		require.Equal(t, 400, r.Status, "%v: %s", c, r.Body)
		require.Contains(t, []string{"invalid_request", "unknown_field"}, r.ErrorCode(), "%v", c)
		r = do(t, env.admin, "POST", "/teams/"+f.TeamID+"/members", body)
		require.Equal(t, 400, r.Status, "admin %v: %s", c, r.Body)
	}
	require.Equal(t, members, teamMembers(t, f.TeamID))
	require.Equal(t, history, historyCount(t, f.TeamID))

	// Within the 5-minute skew, and at the evidence limit, is fine.
	m := addMember(t, api, map[string]any{"name": "Cy", "phone": "2025550471", "consent": map[string]any{
		"at": time.Now().Add(2 * time.Minute).Format(time.RFC3339), "evidence": "  " + strings.Repeat("é", 997) + " "}})
	c := memberConsentOf(t, api, m.ID)
	require.Equal(t, strings.Repeat("é", 997), *c.Evidence, "trimmed")

	// A change keeps the record and shows it; the record itself is not changed by PATCH.
	r := do(t, api, "PATCH", "/members/"+m.ID, map[string]any{"name": "Cy Two"})
	require.Equal(t, 200, r.Status, string(r.Body))
	var changed struct {
		Consent *consentRecord `json:"consent"`
	}
	require.NoError(t, r.Data(&changed))
	require.Equal(t, c, changed.Consent)
	requireCode(t, do(t, api, "PATCH", "/members/"+m.ID, map[string]any{"consent": map[string]any{"source": "api"}}), 400, "unknown_field")
	// Members from before the consent record show null.
	psql(t, "teamtext", "UPDATE roster_members SET consent_source = NULL, consent_at = NULL, consent_evidence = NULL WHERE id = '"+m.ID+"'")
	r = do(t, api, "GET", "/members/"+m.ID, nil)
	require.Equal(t, 200, r.Status)
	require.Contains(t, string(r.Body), `"consent":null`)
	require.Nil(t, getConsent(t, api, "/members/"+m.ID+"/consent").Data.Consent)
}

// TestConsentOnImportAndBulk: an import sets each member's consent (source
// import unless its consent columns say otherwise) and keeps it in the
// history; bulk opt-outs are kept too.
func TestConsentOnImportAndBulk(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	csvBody := "name,phone,consent_source,consent_at,consent_evidence\n" +
		"Dee,2025550481,,,\n" +
		"Eve,2025550482,web_signup,2026-03-01T10:00:00-05:00,Paper form #12\n" +
		"Fay,2025550483,,not a time,\n" +
		"Gus,2025550484,carrier_pigeon,,\n"
	r := importCSV(t, f.TeamID, csvBody)
	require.Equal(t, 200, r.Status, string(r.Body))
	var res harness.ImportResult
	require.NoError(t, r.Data(&res))
	require.Equal(t, 2, res.Created)
	require.Equal(t, "failed", res.Rows[2].Status)
	require.Contains(t, res.Rows[2].Error.Message, "consent_at")
	require.Equal(t, "failed", res.Rows[3].Status)
	require.Contains(t, res.Rows[3].Error.Message, "consent.source")

	dee := memberConsentOf(t, api, res.Rows[0].MemberID)
	require.Equal(t, "import", dee.Source)
	require.Nil(t, dee.Evidence)
	eve := memberConsentOf(t, api, res.Rows[1].MemberID)
	require.Equal(t, "web_signup", eve.Source)
	require.True(t, time.Date(2026, 3, 1, 15, 0, 0, 0, time.UTC).Equal(eve.At))
	require.Equal(t, "Paper form #12", *eve.Evidence)
	h := getConsent(t, api, "/members/"+res.Rows[1].MemberID+"/consent").Data.History
	require.Len(t, h, 1)
	require.Equal(t, "consent_given import changed "+res.Rows[1].MemberID, step(h[0]))
	require.Equal(t, "web_signup", *h[0].Source)
	require.Equal(t, "Paper form #12", *h[0].Evidence)
	require.Equal(t, 0, countRows(t, `SELECT count(*) FROM roster_consent_events WHERE team_id = $1 AND phone IN ('+12025550483', '+12025550484')`, f.TeamID),
		"failed rows keep nothing")

	// Bulk opt-outs: one row per number, changed only the first time.
	r = do(t, api, "POST", "/opt-outs/bulk", map[string]any{"items": []map[string]string{{"phone": "2025550481"}, {"phone": "nope"}, {"phone": "2025550481"}, {"phone": "2025550199"}}})
	require.Equal(t, 200, r.Status, string(r.Body))
	r = do(t, api, "POST", "/opt-outs/bulk", map[string]any{"items": []map[string]string{{"phone": "2025550481"}}})
	require.Equal(t, 200, r.Status, string(r.Body))
	var steps []string
	for _, e := range getConsent(t, api, "/members/"+res.Rows[0].MemberID+"/consent").Data.History {
		steps = append(steps, step(e))
	}
	require.Equal(t, []string{"consent_given import changed " + res.Rows[0].MemberID, "opt_out api changed -", "opt_out api same -"}, steps)
	require.Equal(t, 0, countRows(t, `SELECT count(*) FROM roster_consent_events WHERE team_id = $1 AND phone = '+12025550199' AND kind = 'opt_out'`, f.TeamID),
		"the refused staff number keeps no opt-out")
}
