package e2e

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness/load"
)

// BenchmarkDashboardRoster: the roster pages' and upload's figures.
//   - The roster page on a team of 10,000 members in 20 groups: the first
//     page, a search by name, and a search with a group filter, each
//     requested pageRuns times one at a time over loopback (the server's
//     time plus a loopback round trip), beside the public API's list of
//     the same group.
//   - A 100,000-row CSV imported through the browser's upload (the POST,
//     then the job, until the import's row says done) beside the same
//     size of file through the admin API's import, in the same run, as
//     rows per second.
//
// Reported as metrics, never asserted. Run: make bench-dashboard
func BenchmarkDashboardRoster(b *testing.B) {
	var t testing.TB = b
	ctx := context.Background()
	s, conn := benchCoach(t)
	const members, groups = 10_000, 20
	now := time.Now().UTC()
	tag := fmt.Sprint(now.UnixNano())
	took := execSQL(t, conn, `INSERT INTO roster_groups (id, team_id, name, created_at)
SELECT 'grp_r' || $2::text || g, $1, 'Group ' || g, $3 FROM generate_series(0, $4::int - 1) g`, s.teamID, tag, now, groups)
	took += execSQL(t, conn, `INSERT INTO roster_members (id, team_id, name, phone, email, role, status, created_at, updated_at)
SELECT 'mem_r' || $2::text || i, $1, (ARRAY['Ava','Liam','Noor','Mateo','Chloé'])[1 + i % 5] || ' ' || (ARRAY['Rivera','Okafor','Lindqvist','Haddad'])[1 + i % 4] || ' ' || i,
  '+1310556' || lpad(i::text, 4, '0'), 'fam' || i || '@example.com', (ARRAY['guardian','athlete'])[1 + i % 2], 'active', $3::timestamptz + make_interval(secs => i), $3
FROM generate_series(0, $4::int - 1) i`, s.teamID, tag, now, members)
	took += execSQL(t, conn, `INSERT INTO roster_group_members (team_id, group_id, member_id)
SELECT $4, 'grp_r' || $1::text || (i % $3::int), 'mem_r' || $1::text || i FROM generate_series(0, $2::int - 1) i`, tag, members, groups, s.teamID)
	took += execSQL(t, conn, `ANALYZE`)
	t.Logf("setup: %d members in %d groups inserted in %s", members, groups, took.Round(time.Millisecond))

	h := newHTTPSession(t)
	home := h.signIn(s)
	csrf := csrfOf(t, home)
	const pageRuns = 200
	measure := func(name string, runs int, do func() int) {
		lat := make([]time.Duration, runs)
		for i := range lat {
			start := time.Now()
			status := do()
			lat[i] = time.Since(start)
			require.Equal(t, http.StatusOK, status, name)
		}
		st := load.Summarise(lat)
		p50, p99 := st.P50, st.P99
		b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms-"+name)
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms-"+name)
		t.Logf("%-28s p50 %6.2f ms  p99 %6.2f ms  (%d requests)", name, float64(p50.Microseconds())/1000, float64(p99.Microseconds())/1000, runs)
	}
	page := func(path, want string) func() int {
		return func() int {
			resp, body := h.get(path)
			require.Contains(t, body, want, path)
			return resp.StatusCode
		}
	}
	group := "grp_r" + tag + "3"
	b.ResetTimer()
	measure("roster-10k", pageRuns, page("/app/roster", "Ava Rivera 0"))
	measure("roster-10k-search", pageRuns, page("/app/roster?q=lindqvist", "Lindqvist"))
	measure("roster-10k-search-group", pageRuns, page("/app/roster?q=haddad&group="+group, "Haddad 3"))
	measure("roster-10k-search-phone", pageRuns, page("/app/roster?q=3105560042", "Lindqvist 42"))
	measure("api-members-group", 5, func() int {
		r, err := s.api.Do(ctx, "GET", "/members?limit=50&group_id="+group, nil)
		require.NoError(t, err)
		return r.Status
	})

	// Imports: 100,000 rows each, the admin API's and the browser's.
	const rows = 100_000
	file := func(prefix string) []byte {
		var buf bytes.Buffer
		buf.WriteString("name,phone,role\n")
		for i := range rows {
			fmt.Fprintf(&buf, "Imported %d,+1%s%07d,athlete\n", i, prefix, 2_000_000+i)
		}
		return buf.Bytes()
	}
	adminTeam := newStaff(t, "head_coach")
	start := time.Now()
	r, err := env.admin.Do(ctx, "POST", "/teams/"+adminTeam.teamID+"/members/import", string(file("415")), "Content-Type", "text/csv")
	adminTook := time.Since(start)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), fmt.Sprintf(`"created":%d`, rows))

	// The admin import queued a statistics refresh (ANALYZE): let it finish
	// so that the browser's import does not share the two cores with it.
	waitFor(t, time.Minute, func() bool {
		return countRowsIn(t, env.pg.URL, `SELECT count(*) FROM river_job WHERE kind = 'roster.analyze_members'
  AND state NOT IN ('completed', 'discarded', 'cancelled')`) == 0
	})
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("csrf", csrf))
	fw, err := mw.CreateFormFile("csv_file", "roster.csv")
	require.NoError(t, err)
	_, err = fw.Write(file("628"))
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	start = time.Now()
	resp, err := h.c.Post(h.base+"/app/roster/import", mw.FormDataContentType(), &body)
	uploadTook := time.Since(start)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/app/roster/import/")
	waitFor(t, 5*time.Minute, func() bool {
		return countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_imports WHERE id = $1 AND status = 'done'`, id) == 1
	})
	browserTook := time.Since(start)
	require.Equal(t, 1, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_imports WHERE id = $1 AND created = $2`, id, rows))
	adminRate, browserRate := float64(rows)/adminTook.Seconds(), float64(rows)/browserTook.Seconds()
	b.ReportMetric(adminRate, "rows/s-admin-import")
	b.ReportMetric(browserRate, "rows/s-browser-import")
	t.Logf("import of %d rows: admin API %s (%.0f rows/s), browser upload to done %s (%.0f rows/s; the upload's answer after %s), ratio %.2f",
		rows, adminTook.Round(time.Millisecond), adminRate, browserTook.Round(time.Millisecond), browserRate, uploadTook.Round(time.Millisecond), browserRate/adminRate)
}
