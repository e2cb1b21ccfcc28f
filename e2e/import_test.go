package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// importCSV posts body as text/csv to the team's import.
func importCSV(t testing.TB, teamID, body string) *harness.Response {
	t.Helper()
	r, err := harness.ImportCSV(context.Background(), env.admin, teamID, body)
	require.NoError(t, err)
	return r
}

func teamMembers(t *testing.T, teamID string) int {
	return countRows(t, `SELECT count(*) FROM roster_members WHERE team_id = $1`, teamID)
}

func TestImportMembers(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	u14 := adminGroup(t, f.TeamID, "U14")
	u16 := adminGroup(t, f.TeamID, "U16")
	require.Equal(t, 201, do(t, api, "POST", "/custom-fields", map[string]any{"label": "Jersey"}).Status)
	require.Equal(t, 201, do(t, api, "POST", "/custom-fields", map[string]any{"label": "Medical", "private": true}).Status)
	dup := addMember(t, api, map[string]any{"name": "Dup Person", "phone": "2025550301"})
	require.Equal(t, 200, do(t, api, "POST", "/opt-outs", map[string]any{"phone": "2025550302"}).Status)
	joined := eventCount(t, f.TeamID, "member.joined")

	// A BOM, headers in any order and case, a quoted field spanning two
	// lines (9-10) and a blank row (11), so line numbers are tested too.
	csv := "\uFEFFPhone,NAME,Email,role,Status,groups,jersey,MEDICAL\n" +
		"(202) 555-0310,Ann Athlete,ann@example.com,,,U14,10,asthma\n" + // 2 created
		"12345,Bad Phone,,,,,,\n" + // 3 invalid_phone
		"202-555-0301,dup person,,,,,,\n" + // 4 member_exists
		"2025550302,Opted Out,,,,,,\n" + // 5 opted_out
		"2025550311,Unknown Group,,,,U14;Nope,,\n" + // 6 invalid_group
		"2025550312,Coach Carter,,Coach,,,1,\n" + // 7 created, staff
		"2025550313,Pending Pat,,guardian,pending," + u16 + "; u14 ,7,\n" + // 8 created, pending
		"2025550314,Multi Line,\"bad\nemail\",,,,,\n" + // 9-10 invalid_email
		",,,,,,,\n" + // 11 blank: skipped
		"2025550315,Same Phone Twice,,,,,,\n" + // 12 created
		"202.555.0315,same phone twice,,,,,,\n" + // 13 member_exists (the row above)
		"2025550316,Short Row\n" + // 14 invalid_request
		"2025550317,Bad Status,,,gone,,,\n" + // 15 invalid_request
		"2025550318,Bad Role,,captain,,,,\n" // 16 invalid_role
	r := importCSV(t, f.TeamID, csv)
	require.Equal(t, 200, r.Status, string(r.Body))
	var res harness.ImportResult
	require.NoError(t, r.Data(&res))

	type outcome struct {
		line int
		code string // "" for created
	}
	want := []outcome{{2, ""}, {3, "invalid_phone"}, {4, "member_exists"}, {5, "opted_out"}, {6, "invalid_group"}, {7, ""},
		{8, ""}, {9, "invalid_email"}, {12, ""}, {13, "member_exists"}, {14, "invalid_request"}, {15, "invalid_request"}, {16, "invalid_role"}}
	require.Len(t, res.Rows, len(want), string(r.Body))
	byLine := map[int]harness.ImportRow{}
	for i, w := range want {
		row := res.Rows[i]
		require.Equal(t, w.line, row.Line, "rows are in file order with their CSV line")
		if w.code == "" {
			require.Equal(t, "created", row.Status, "line %d: %+v", row.Line, row.Error)
			require.NotEmpty(t, row.MemberID)
			require.Nil(t, row.Error)
		} else {
			require.Equal(t, "failed", row.Status, "line %d", row.Line)
			require.NotNil(t, row.Error, "line %d", row.Line)
			require.Equal(t, w.code, row.Error.Code, "line %d: %s", row.Line, row.Error.Message)
			require.NotEmpty(t, row.Error.Message)
			require.Empty(t, row.MemberID)
		}
		byLine[row.Line] = row
	}
	require.Equal(t, 4, res.Created)
	require.Equal(t, 9, res.Failed)
	require.Equal(t, dup.ID, byLine[4].Error.ExistingMemberID)
	require.Equal(t, byLine[12].MemberID, byLine[13].Error.ExistingMemberID, "a repeated row meets the row before it")
	require.Contains(t, byLine[6].Error.Message, "Nope")

	get := func(id string) member {
		var m member
		require.NoError(t, do(t, api, "GET", "/members/"+id, nil).Data(&m))
		return m
	}
	ann := get(byLine[2].MemberID)
	require.Equal(t, "Ann Athlete", ann.Name)
	require.Equal(t, "+12025550310", ann.Phone)
	require.Equal(t, "ann@example.com", ann.Email)
	require.Equal(t, "athlete", ann.Role)
	require.Equal(t, "active", ann.Status)
	require.Equal(t, []string{u14}, ann.GroupIDs)
	require.JSONEq(t, `{"data":{"jersey":"10"}}`, string(do(t, api, "GET", "/members/"+ann.ID+"/custom-fields", nil).Body))
	require.Equal(t, 2, countRows(t, `SELECT count(*) FROM roster_custom_values WHERE member_id = $1`, ann.ID), "the private value was written")

	coach := get(byLine[7].MemberID)
	require.Equal(t, "coach", coach.Role)
	require.JSONEq(t, `{"data":{"jersey":"1"}}`, string(do(t, api, "GET", "/members/"+coach.ID+"/custom-fields", nil).Body))

	pat := get(byLine[8].MemberID)
	require.Equal(t, "pending", pat.Status)
	require.Equal(t, "guardian", pat.Role)
	require.ElementsMatch(t, []string{u14, u16}, pat.GroupIDs, "groups by id and by name, any case")

	require.Equal(t, joined+3, eventCount(t, f.TeamID, "member.joined"), "member.joined for each active new member, none for the pending one")
	require.Equal(t, 2+4, teamMembers(t, f.TeamID), "only the created rows were written")
}

// TestImportRefusesWholeFile: file-level problems answer 400 and write nothing.
func TestImportRefusesWholeFile(t *testing.T) {
	t.Parallel()
	f, _ := newTeam(t, harness.TeamOptions{})
	before := teamMembers(t, f.TeamID)
	var big strings.Builder
	big.WriteString("name,phone\n")
	for i := 0; i < 100001; i++ {
		fmt.Fprintf(&big, "P%d,2025550400\n", i)
	}
	message := func(r *harness.Response) string {
		var e struct {
			Error struct{ Message string } `json:"error"`
		}
		require.NoError(t, r.JSON(&e))
		return e.Error.Message
	}
	for _, tc := range []struct {
		name, body, inMessage string
	}{
		{"unknown column", "name,phone,Shoe_Size\nA,2025550401,9\n", `"shoe_size"`},
		{"missing phone column", "name,email\nA,a@example.com\n", "phone"},
		{"no body", "", "body is required"},
		{"only a BOM and blank lines", "\uFEFF\n\n", "empty"},
		{"duplicate column", "name,phone,Name\nA,2025550401,B\n", `"name"`},
		{"bad CSV", "name,phone\nA,2025550401\n\"B,2025550402\n", "line 3"},
		{"not UTF-8", "name,phone\n\xff\xfe,2025550401\n", "UTF-8"},
		{"NUL in a cell", "name,phone,email\nA,2025550401,a@example.com\nB\x00,2025550402,b@example.com\n", "line 3 holds a NUL"},
		{"too many rows", big.String(), "100000"},
	} {
		r := importCSV(t, f.TeamID, tc.body)
		requireCode(t, r, 400, "invalid_request")
		require.Contains(t, message(r), tc.inMessage, tc.name)
	}
	require.Equal(t, before, teamMembers(t, f.TeamID), "nothing was written")

	r := importCSV(t, f.TeamID, "name,phone\n")
	require.Equal(t, 200, r.Status, string(r.Body))
	require.JSONEq(t, `{"data":{"created":0,"failed":0,"rows":[]}}`, string(r.Body), "a header alone imports nothing")
	requireCode(t, importCSV(t, "team_nope", "name,phone\nA,2025550401\n"), 404, "not_found")
	r, err := env.admin.Do(context.Background(), "POST", "/teams/"+f.TeamID+"/members/import", "name,phone\n", "Content-Type", "application/json")
	require.NoError(t, err)
	requireCode(t, r, 415, "unsupported_media_type")
}

// runCLI runs the teamtext binary against the suite's admin API.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(env.bin, args...)
	cmd.Env = append(os.Environ(), "ADMIN_URL="+env.svc.AdminURL, "ADMIN_TOKEN="+harness.AdminToken)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errOut.String()
	}
	require.NoError(t, err)
	return 0, out.String(), errOut.String()
}

func TestImportCLI(t *testing.T) {
	t.Parallel()
	f, _ := newTeam(t, harness.TeamOptions{})
	dir := t.TempDir()
	mixed := filepath.Join(dir, "mixed.csv")
	require.NoError(t, os.WriteFile(mixed, []byte("name,phone,role\nAnn,2025550501,\nBad,nope,\nCoach,2025550502,head_coach\n"), 0o600))

	code, stdout, stderr := runCLI(t, "admin", "members", "import", mixed, "--team", f.TeamID)
	require.Equal(t, 1, code, "a failed row: exit 1\n%s", stderr)
	var res struct {
		Data harness.ImportResult `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
	require.Equal(t, 2, res.Data.Created)
	require.Equal(t, 1, res.Data.Failed)
	require.Contains(t, stderr, "line 3: invalid_phone: ")
	require.Contains(t, stderr, "imported 3 rows")
	require.Contains(t, stderr, "2 created, 1 failed")
	require.Contains(t, stderr, "uploaded 100%", "plain progress lines when stderr is not a terminal")
	require.NotContains(t, stderr, "\r", "no redrawn bar when stderr is not a terminal")
	require.NotContains(t, stderr, "+12025550501", "no phone numbers on stderr")

	good := filepath.Join(dir, "good.csv")
	require.NoError(t, os.WriteFile(good, []byte("name,phone\nBea,2025550503\n"), 0o600))
	code, stdout, stderr = runCLI(t, "admin", "members", "import", good, "--team", f.TeamID)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "1 created, 0 failed")
	require.Contains(t, stdout, `"created": 1`)

	bad := filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("name,phone,shoe\nBea,2025550504,9\n"), 0o600))
	code, stdout, stderr = runCLI(t, "admin", "members", "import", bad, "--team", f.TeamID)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stdout, `"invalid_request"`)
	require.Contains(t, stderr, `unknown column "shoe"`)

	code, _, _ = runCLI(t, "admin", "members", "import", good)
	require.Equal(t, 2, code, "--team is required")
	code, _, _ = runCLI(t, "admin", "members", "import", "--team", f.TeamID)
	require.Equal(t, 2, code, "FILE is required")
	code, _, _ = runCLI(t, "admin", "members", "import", filepath.Join(dir, "missing.csv"), "--team", f.TeamID)
	require.Equal(t, 2, code, "an unreadable file is a usage error")
}

// phones5000 returns n distinct valid numbers (five area codes, exchange 234).
func phones5000(n int) []string {
	areas := []string{"202", "212", "310", "415", "617"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-234-%04d", areas[i%len(areas)], i/len(areas))
	}
	return out
}

func rosterCSV(n int) string {
	var b strings.Builder
	b.WriteString("name,phone,email,role\n")
	for i, p := range phones5000(n) {
		fmt.Fprintf(&b, "Member %d,%s,m%d@example.com,athlete\n", i, p, i)
	}
	return b.String()
}

// timedImport imports rosterCSV(rows) into the team in one request and
// requires every row created; it returns the result, how long the request
// took and the file's size in bytes.
func timedImport(t *testing.T, teamID string, rows int) (harness.ImportResult, time.Duration, int) {
	t.Helper()
	body := rosterCSV(rows)
	start := time.Now()
	r := importCSV(t, teamID, body)
	took := time.Since(start)
	require.Equal(t, 200, r.Status, string(r.Body))
	var res harness.ImportResult
	require.NoError(t, r.Data(&res))
	require.Equal(t, rows, res.Created)
	require.Equal(t, 0, res.Failed)
	return res, took, len(body)
}

// TestImport5000Rows: 5,000 rows are one request, well within the admin
// server's 60 s write timeout. Not parallel on purpose: it is a timing claim
// about the import, so it runs before the parallel tests start (go test
// runs sequential top-level tests first) instead of competing for the two
// cores with broadcasts and fan-outs, and it does not slow them down either.
func TestImport5000Rows(t *testing.T) {
	f, _ := newTeam(t, harness.TeamOptions{})
	lastJob := countRows(t, `SELECT coalesce(max(id), 0)::int FROM river_job`)
	res, took, size := timedImport(t, f.TeamID, 5000)
	require.Equal(t, 5001, res.Rows[len(res.Rows)-1].Line)
	require.Equal(t, 5001, eventCount(t, f.TeamID, "member.joined"), "one per new member, plus the fixture's coach")
	// The import queued the refresh of the planner's statistics, and the
	// service's workers ran it, first time.
	waitFor(t, 30*time.Second, func() bool {
		return countRows(t, `SELECT count(*) FROM river_job WHERE kind = 'roster.analyze_members' AND id > $1 AND state = 'completed'`, lastJob) == 1
	})
	require.Zero(t, countRows(t, `SELECT count(*) FROM river_job WHERE kind = 'roster.analyze_members' AND id > $1 AND cardinality(errors) > 0`, lastJob))
	// Every row created also means the import finished within its 45 s
	// budget (import_timeout otherwise), well under the 60 s write timeout.
	t.Logf("5,000-row import: %s (%d bytes)", took.Round(time.Millisecond), size)
}

// TestImport50000Rows is TestImport5000Rows at ten times the rows: the
// import's cost is linear, so they too are one request with every row
// created, its line and its member.joined. Not parallel, for the same reason.
func TestImport50000Rows(t *testing.T) {
	f, _ := newTeam(t, harness.TeamOptions{})
	res, took, size := timedImport(t, f.TeamID, 50000)
	for i, row := range res.Rows {
		require.Equal(t, i+2, row.Line)
	}
	require.Equal(t, 50001, eventCount(t, f.TeamID, "member.joined"), "one per new member, plus the fixture's coach")
	analyze(t, "roster_members, webhook_events") // the check's plan depends on it (see analyze)
	require.Equal(t, 50000, countRows(t, `SELECT count(*) FROM webhook_events e JOIN roster_members m ON m.id = e.body->'data'->'member'->>'id'
WHERE e.team_id = $1 AND e.type = 'member.joined' AND m.team_id = $1 AND m.phone = e.body->'data'->'member'->>'phone' AND m.name LIKE 'Member %'`, f.TeamID),
		"each imported member's event names them (events are written with COPY in batches this large)")
	t.Logf("50,000-row import: %s (%d bytes)", took.Round(time.Millisecond), size)
}

// BenchmarkImport5000 imports 5,000 rows into a fresh team per iteration:
// go test ./e2e/ -run '^$' -bench Import -benchtime 3x
func BenchmarkImport5000(b *testing.B) {
	body := rosterCSV(5000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f, err := harness.NewTeam(context.Background(), env.admin, harness.TeamOptions{})
		require.NoError(b, err)
		b.StartTimer()
		r := importCSV(b, f.TeamID, body)
		require.Equal(b, 200, r.Status, string(r.Body))
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(5000/perOp, "rows/s")
}

// TestImport100000Rows is the most one import may carry, in one request:
// every row gets its line and the outcome a single add would give it, also
// across the import's chunks, which are written two at a time (a row
// repeating the last row of the chunk before, one repeating the file's
// first row, an invalid number, a second person on a number already
// imported). Not parallel, for the same reason as TestImport5000Rows.
func TestImport100000Rows(t *testing.T) {
	const n = 100000
	f, _ := newTeam(t, harness.TeamOptions{})
	areas := []string{"202", "212", "310", "415", "617"}
	type row struct{ name, phone string }
	rows := make([]row, n)
	for i := range rows {
		k := i / len(areas)
		rows[i] = row{fmt.Sprintf("Member %d", i), fmt.Sprintf("%s-%03d-%04d", areas[i%len(areas)], 234+k/10000, k%10000)}
	}
	const (
		dupPrev  = 1000  // repeats row 999, the last row of the first chunk
		dupFirst = 50000 // repeats row 0
		invalid  = 2001
		sibling  = n - 1 // row 5's number, another name
	)
	rows[dupPrev], rows[dupFirst] = rows[dupPrev-1], rows[0]
	rows[invalid].phone = "555-0100"
	rows[sibling] = row{"Sibling Of Five", rows[5].phone}
	var b strings.Builder
	b.WriteString("name,phone\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%s\n", r.name, r.phone)
	}

	start := time.Now()
	r := importCSV(t, f.TeamID, b.String())
	took := time.Since(start)
	require.Equal(t, 200, r.Status, string(r.Body[:min(len(r.Body), 500)]))
	var res harness.ImportResult
	require.NoError(t, r.Data(&res))
	require.Len(t, res.Rows, n)
	require.Equal(t, n-3, res.Created)
	require.Equal(t, 3, res.Failed)
	for i, row := range res.Rows {
		require.Equal(t, i+2, row.Line)
		switch i {
		case dupPrev, dupFirst, invalid:
			require.Equal(t, "failed", row.Status, "line %d", row.Line)
		default:
			require.Equal(t, "created", row.Status, "line %d: %+v", row.Line, row.Error)
			require.NotEmpty(t, row.MemberID)
		}
	}
	require.Equal(t, "member_exists", res.Rows[dupPrev].Error.Code)
	require.Equal(t, res.Rows[dupPrev-1].MemberID, res.Rows[dupPrev].Error.ExistingMemberID, "the row before, in the chunk before")
	require.Equal(t, "member_exists", res.Rows[dupFirst].Error.Code)
	require.Equal(t, res.Rows[0].MemberID, res.Rows[dupFirst].Error.ExistingMemberID, "the first row")
	require.Equal(t, "invalid_phone", res.Rows[invalid].Error.Code)
	require.NotEqual(t, res.Rows[5].MemberID, res.Rows[sibling].MemberID)

	require.Equal(t, n-3+1, teamMembers(t, f.TeamID), "the rows created and the fixture's coach")
	require.Equal(t, n-3+1, eventCount(t, f.TeamID, "member.joined"), "one per new member, plus the fixture's coach")
	require.Equal(t, n-3, countRows(t, `SELECT count(*) FROM roster_consent_events WHERE team_id = $1 AND kind = 'consent_given' AND channel = 'import'`, f.TeamID),
		"a consent_given history row per added member")
	analyze(t, "roster_members, webhook_events") // the check's plan depends on it (see analyze)
	require.Equal(t, 0, countRows(t, `SELECT count(*) FROM (SELECT m.id FROM roster_members m
LEFT JOIN webhook_events e ON e.team_id = m.team_id AND e.type = 'member.joined' AND e.body->'data'->'member'->>'id' = m.id
WHERE m.team_id = $1 AND e.id IS NULL) x`, f.TeamID), "every imported member has their event")
	// Members are listed in file order (created_at, id), as a one-chunk import lists them.
	require.Equal(t, 0, countRows(t, `SELECT count(*) FROM (SELECT name, lag(name) OVER (ORDER BY created_at, id) AS before
FROM roster_members WHERE team_id = $1 AND name LIKE 'Member %') x
WHERE before IS NOT NULL AND substr(name, 8)::int < substr(before, 8)::int`, f.TeamID))
	t.Logf("100,000-row import: %s (%d bytes)", took.Round(time.Millisecond), b.Len())
}
