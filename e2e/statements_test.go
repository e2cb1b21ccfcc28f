package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// statementsOf sends a request with its own request id and returns how many
// statements it sent to Postgres, from db_statements on its log line (the
// edge counts them through the pool's tracer).
func statementsOf(t *testing.T, c *harness.Client, path string) int {
	t.Helper()
	return statementsOfRequest(t, c, "GET", path, nil, 200)
}

// statementsOfRequest is statementsOf for any request and status.
func statementsOfRequest(t *testing.T, c *harness.Client, method, path string, body any, status int) int {
	t.Helper()
	id := fmt.Sprintf("stmts-%d", time.Now().UnixNano())
	r, err := c.Do(context.Background(), method, path, body, "X-Request-Id", id)
	require.NoError(t, err)
	require.Equal(t, status, r.Status, string(r.Body))
	n := -1
	waitFor(t, 10*time.Second, func() bool {
		sc := bufio.NewScanner(strings.NewReader(env.svc.Logs()))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if !strings.Contains(line, `"request_id":"`+id+`"`) {
				continue
			}
			var rec struct {
				Statements *int `json:"db_statements"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
			require.NotNil(t, rec.Statements, line)
			n = *rec.Statements
			return true
		}
		return false
	})
	return n
}

// TestStatementsPerRequest holds the hot reads to their statement budget
// (the budget: GET /team ≤ 3, a members page ≤ 2): the gate reads the key
// with its team, creator and account and checks the requests limit in one
// statement; GET /team adds the credits used, a members page the page with
// its group ids.
func TestStatementsPerRequest(t *testing.T) {
	t.Parallel()
	f, api := newTeam(t, harness.TeamOptions{})
	u14 := adminGroup(t, f.TeamID, "U14")
	var csv strings.Builder
	csv.WriteString("name,phone,groups\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&csv, "Player %d,20255504%02d,%s\n", i, i, u14)
	}
	r := importCSV(t, f.TeamID, csv.String())
	require.Equal(t, 200, r.Status, string(r.Body))

	team := statementsOf(t, api, "/team")
	require.LessOrEqual(t, team, 2, "GET /team: the gate's one and the credits used")
	page := statementsOf(t, api, "/members?limit=200")
	require.LessOrEqual(t, page, 2, "GET /members?limit=200: the gate's one and the page")
	t.Logf("statements: GET /team %d, GET /members?limit=200 %d", team, page)
}
