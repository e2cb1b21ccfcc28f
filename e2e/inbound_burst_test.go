package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// TestInboundBurst: 2,000 texts from 250 numbers (200 members
// and 50 strangers, 8 texts each, the callbacks of one number one after
// another, 16 numbers at a time), every fifth callback posted twice by the
// carrier, and a STOP among them. Each text is filed exactly once, each
// number's texts are stored and announced in the order they came, every
// stored text has its one message.received, and the STOP opted its number
// out with its consent-history row. A second team's texts in the same
// burst stay its own.
func TestInboundBurst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const numbers, perNumber, members, workers = 250, 8, 200, 16
	f, api := messagingTeam(t, harness.TeamOptions{})
	importMembers(t, env.admin, f.TeamID, 5, members)
	other, otherAPI := messagingTeam(t, harness.TeamOptions{})
	var team, otherTeam struct {
		Number string `json:"number"`
	}
	require.NoError(t, do(t, api, "GET", "/team", nil).Data(&team))
	require.NoError(t, do(t, otherAPI, "GET", "/team", nil).Data(&otherTeam))
	from := func(n int) string { return harness.Phone(5, n) } // n ≥ members: not on the roster
	stopper, stopAt := from(7), 4                             // a member's fifth text is STOP
	body := func(n, k int) string {
		if from(n) == stopper && k == stopAt {
			return "STOP"
		}
		return fmt.Sprintf("reply %d", k)
	}
	run := time.Now().UnixNano()
	pid := func(n, k int) string { return fmt.Sprintf("SMburst%d_%d_%d", run, n, k) }

	errs := make(chan error, workers)
	var done sync.WaitGroup
	for w := range workers {
		done.Add(1)
		go func() {
			defer done.Done()
			for n := w; n < numbers; n += workers {
				for k := range perNumber {
					to := team.Number
					if n%50 == 3 && k == 2 { // a few texts to the other team, from the same numbers
						to = otherTeam.Number
					}
					req := map[string]any{"from": from(n), "to": to, "body": body(n, k), "provider_message_id": pid(n, k)}
					times := 1
					if (n*perNumber+k)%5 == 0 {
						times = 2 // the carrier retries its callback
					}
					for range times {
						if err := env.admin.Expect(ctx, 202, "POST", "/simulator/inbound", req, nil); err != nil {
							errs <- err
							return
						}
					}
				}
			}
		}()
	}
	done.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	total := numbers * perNumber
	toOther := 0
	for n := 0; n < numbers; n++ {
		if n%50 == 3 {
			toOther++
		}
	}
	waitFor(t, 90*time.Second, func() bool {
		return countRows(t, `SELECT count(*) FROM messaging_inbound WHERE provider_message_id LIKE $1`, fmt.Sprintf("SMburst%d_%%", run)) == total &&
			countRows(t, `SELECT count(*) FROM messaging_inbound_pending WHERE provider_message_id LIKE $1`, fmt.Sprintf("SMburst%d_%%", run)) == 0
	})

	// The backlog's metrics are served (other tests' texts may be staged meanwhile).
	require.GreaterOrEqual(t, metricValue(t, env.svc, "teamtext_inbound_pending_texts"), 0.0)
	require.Less(t, metricValue(t, env.svc, "teamtext_inbound_pending_oldest_seconds"), 60.0)

	// Exactly once each: one text per provider id, one event per text.
	require.Equal(t, 0, countRows(t, `SELECT count(*) FROM (SELECT provider_message_id FROM messaging_inbound WHERE provider_message_id LIKE $1
GROUP BY 1 HAVING count(*) > 1) x`, fmt.Sprintf("SMburst%d_%%", run)))
	evs := receivedData(t, env.pg.URL, f.TeamID)
	require.Len(t, evs, total-toOther)
	require.Len(t, receivedData(t, env.pg.URL, other.TeamID), toOther, "the other team's texts are its own")
	conn := connect(t, env.pg.URL)
	rows, err := conn.Query(ctx, `SELECT id, team_id, provider_message_id FROM messaging_inbound WHERE provider_message_id LIKE $1`, fmt.Sprintf("SMburst%d_%%", run))
	require.NoError(t, err)
	stored := map[string]string{} // message id → provider id
	var id, teamID, provider string
	_, err = pgx.ForEachRow(rows, []any{&id, &teamID, &provider}, func() error {
		if teamID == f.TeamID {
			stored[id] = provider
		}
		return nil
	})
	require.NoError(t, err)
	seen := map[string]bool{}
	byNumber := map[string][]string{}
	for _, e := range evs {
		mid := e["message_id"].(string)
		require.Equal(t, stored[mid], e["provider_message_id"], "each event is of a stored text")
		require.False(t, seen[mid], "one message.received per text")
		seen[mid] = true
		byNumber[e["from"].(string)] = append(byNumber[e["from"].(string)], e["body"].(string))
		if n := e["member"]; n != nil {
			require.Equal(t, "Athlete", n.(map[string]any)["name"].(string)[:7])
		}
	}
	// Each number's texts announced in the order they came.
	for n := 0; n < numbers; n++ {
		var want []string
		for k := range perNumber {
			if n%50 == 3 && k == 2 {
				continue
			}
			want = append(want, body(n, k))
		}
		require.Equal(t, want, byNumber[from(n)], "texts of %s in order", from(n))
	}
	// And stored in that order (ids are time-ordered, made as each batch is filed).
	brows, err := conn.Query(ctx, `SELECT body FROM messaging_inbound WHERE team_id = $1 AND from_phone = $2 ORDER BY id`, f.TeamID, stopper)
	require.NoError(t, err)
	var b string
	var storedOrder []string
	_, err = pgx.ForEachRow(brows, []any{&b}, func() error { storedOrder = append(storedOrder, b); return nil })
	require.NoError(t, err)
	require.Equal(t, byNumber[stopper], storedOrder)

	// The STOP: opted out, with its consent-history row naming its text.
	require.Equal(t, 1, countRows(t, `SELECT count(*) FROM roster_opt_outs WHERE team_id = $1 AND phone = $2`, f.TeamID, stopper))
	require.Equal(t, 1, countRows(t, `SELECT count(*) FROM roster_consent_events c JOIN messaging_inbound i ON i.id = c.message_id
WHERE c.team_id = $1 AND c.phone = $2 AND i.keyword = 'stop'`, f.TeamID, stopper))
	require.Equal(t, 0, countRows(t, `SELECT count(*) FROM roster_opt_outs WHERE team_id = $1`, other.TeamID))
}
