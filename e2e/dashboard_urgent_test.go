package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/browser"
)

// TestDashboardUrgentAheadOfBroadcast: a head coach's urgent alert, sent
// from Compose while the team's own 3,000-text broadcast is being handed
// over at its number's pace (realistic simulator), reaches the carrier
// before the broadcast's texts that were still queued: at most two
// seconds' worth of the broadcast (the slot a pass was handing over when
// the alert was planned, and the one due as it was sent) goes between the
// alert's sending and its last text. Without the urgent
// lane the alert would wait behind the rest of the broadcast (about a
// minute at 50 a second).
func TestDashboardUrgentAheadOfBroadcast(t *testing.T) {
	t.Parallel()
	const pace = 50 // texts a second on the team's number
	p := newPacingEnv(t, "dash_urgent", 1, "SIMULATOR_PROFILE=realistic")
	a := p.team(t, 0, 0, 3000, pace)
	staffPhones := []string{teamNumber(), teamNumber(), teamNumber()}
	for _, ph := range staffPhones {
		require.NoError(t, p.admin.Expect(t.Context(), 201, "POST", "/teams/"+a.TeamID+"/members",
			map[string]any{"name": "Assistant", "phone": ph, "role": "coach"}, nil))
	}
	var team struct {
		Name string `json:"name"`
	}
	require.NoError(t, p.admin.Expect(t.Context(), 200, "GET", "/teams/"+a.TeamID, nil, &team))
	// The harness's head coach signs in, in the browser, before the
	// broadcast, so that her code is not behind it.
	base := p.nodes[0].PublicURL
	tab := chrome(t).NewTab(t)
	signInBrowserOn(t, tab, base, p.admin, staff{teamID: a.TeamID, teamName: team.Name, memberID: a.CoachID, phone: "+12025550199"})
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(base+"/app/compose"),
		chromedp.SendKeys(chromedp.ID("text"), "Lightning: everyone off the field now"),
		chromedp.SetValue(chromedp.ID("audience"), "staff"),
		chromedp.Click(chromedp.ID("urgent"))))

	m, _ := broadcast(t, a.api, "Season schedule attached")
	require.Equal(t, 3000+4, m.Recipients, "the athletes and the staff")
	waitFor(t, 30*time.Second, func() bool { return len(handOvers(t, p.url, a.number)) >= 2*pace })

	before := len(outboxOf(t, p.url, a.number))
	require.Less(t, before, 3000, "the broadcast is still going when the alert is sent")
	// Send asks the browser to confirm an urgent alert; the tab accepts.
	_, err := chromedp.RunResponse(tab, chromedp.Click(`//button[normalize-space()="Send"]`))
	require.NoError(t, err)
	loc, err := chromedp.Run(tab, chromedp.Location())
	require.NoError(t, err)
	require.Regexp(t, `/app/messages/msg_`, loc, "after Send, the alert's page")
	require.Len(t, browser.Dialogs(tab), 1, "one confirm()")

	const alert = "Lightning: everyone off the field now"
	var texts []string
	lastUrgent := -1
	waitFor(t, 90*time.Second, func() bool {
		texts, lastUrgent = outboxOf(t, p.url, a.number), -1
		n := 0
		for i, body := range texts {
			if strings.Contains(body, alert) {
				n, lastUrgent = n+1, i
			}
		}
		return n == 4 // the head coach and three coaches
	})
	between := 0
	for _, body := range texts[before:lastUrgent] {
		if !strings.Contains(body, alert) {
			between++
		}
	}
	require.LessOrEqual(t, between, 2*pace, "broadcast texts handed over between the alert's sending and its last text")
	t.Logf("alert sent after %d of the broadcast's texts; %d more went before its last text", before, between)
	waitFor(t, 30*time.Second, func() bool { return len(outboxOf(t, p.url, a.number)) > lastUrgent+pace }) // and the broadcast goes on
}

// outboxOf are the bodies a number handed to the simulator, in order.
func outboxOf(t testing.TB, dbURL, from string) []string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	require.NoError(t, err)
	defer conn.Close(t.Context())
	rows, err := conn.Query(t.Context(), `SELECT body FROM messaging_sim_outbox WHERE from_phone = $1 ORDER BY id`, from)
	require.NoError(t, err)
	bodies, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return bodies
}
