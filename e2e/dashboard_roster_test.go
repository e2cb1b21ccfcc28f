package e2e

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The dashboard, part 2 (issue 27): the roster's pages in a real browser.

var importPath = regexp.MustCompile(`^/app/roster/import/(imp_[A-Za-z0-9]+)$`)

// A 5,000-row CSV with 100 bad rows, uploaded with the CSV file field:
// the browser lands on the import's page, which shows progress until every
// row has its outcome, then the totals and each rejected row by its CSV
// line (the header is line 1). The rejected rows download as CSV holding
// the rows as written, their line and the reason. The members are on the
// roster through the same use case as the admin import (consent import).
func TestDashboardRosterImport(t *testing.T) {
	t.Parallel()
	s := newStaff(t, "coach")
	var b strings.Builder
	w := csv.NewWriter(&b)
	require.NoError(t, w.Write([]string{"name", "phone", "role"}))
	var badLines []int
	for i := range 5000 {
		phone := fmt.Sprintf("+1202556%04d", i)
		if i%50 == 49 {
			phone = "not a phone"
			badLines = append(badLines, i+2)
		}
		require.NoError(t, w.Write([]string{fmt.Sprintf("Player %04d", i), phone, "athlete"}))
	}
	w.Flush()
	file := filepath.Join(t.TempDir(), "spring roster.csv")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o600))

	br := chrome(t)
	inBrowser, err := br.Upload(t.Context(), file)
	require.NoError(t, err)
	tab := br.NewTab(t)
	signInBrowser(t, tab, s)
	navigate(t, tab, "/app/roster")
	_, err = chromedp.RunResponse(tab, chromedp.Click(`//a[normalize-space()="Import"]`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(tab, chromedp.SetUploadFiles(`//input[@id=//label[normalize-space()="CSV file"]/@for]`, []string{inBrowser})))
	click(t, tab, "Import")
	m := importPath.FindStringSubmatch(location(t, tab))
	require.NotNil(t, m, "after Import the browser lands on the import's page, not %s", location(t, tab))
	// The page follows the job: a progress bar (or, if the job was quicker
	// than the page, the outcome) in the block its script refreshes.
	require.NotEmpty(t, textOf(t, tab, "[data-progress]"))
	waitFor(t, 60*time.Second, func() bool {
		got, err := chromedp.Run(tab, chromedp.Evaluate[string](`(document.getElementById("import-result")||{}).textContent||""`))
		require.NoError(t, err)
		return got != ""
	})
	require.Equal(t, "4900 added, 100 rejected.", textOf(t, tab, "#import-result"))
	rejected := textOf(t, tab, "#rejected tbody")
	for _, l := range badLines[:3] {
		require.Regexp(t, fmt.Sprintf(`(?m)^\s*%d\b`, l), rejected, "rejected rows are named by their CSV line")
	}

	href, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('a[href$="rejected.csv"]').href`))
	require.NoError(t, err)
	body, err := chromedp.Run(tab, chromedp.Evaluate[string](`fetch(`+strconv.Quote(href)+`).then(r => r.text())`,
		chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 101, "the header and every rejected row")
	require.Equal(t, []string{"name", "phone", "role", "line", "error"}, rows[0])
	for i, r := range rows[1:] {
		require.Equal(t, strconv.Itoa(badLines[i]), r[3])
		require.Equal(t, "not a phone", r[1], "the row as written, to fix and import again")
		require.NotEmpty(t, r[4])
	}

	require.Equal(t, 4900, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_members WHERE team_id = $1 AND name LIKE 'Player %'`, s.teamID))
	require.Equal(t, 4900, countRowsIn(t, env.pg.URL, `SELECT count(*) FROM roster_members WHERE team_id = $1 AND consent_source = 'import'`, s.teamID),
		"the admin import's use case: consent source import")
	resp, err := chromedp.RunResponse(tab, chromedp.Navigate(env.svc.PublicURL+"/app/settings/activity"))
	require.NoError(t, err)
	require.Equal(t, http.StatusForbidden, int(resp.Status), "a coach has no activity log")
	r := do(t, env.admin, "GET", "/teams/"+s.teamID+"/activity?action=imported+members", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), `"member_name":"Dana coach"`)
}
