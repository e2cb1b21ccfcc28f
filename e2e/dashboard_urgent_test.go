package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
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
	// The harness's head coach signs in before the broadcast, so that her
	// code is not behind it.
	h := newHTTPSessionOn(t, p.nodes[0], p.admin)
	home := h.signIn(staff{teamID: a.TeamID, teamName: team.Name, memberID: a.CoachID, phone: "+12025550199"})

	m, _ := broadcast(t, a.api, "Season schedule attached")
	require.Equal(t, 3000+4, m.Recipients, "the athletes and the staff")
	waitFor(t, 30*time.Second, func() bool { return len(handOvers(t, p.url, a.number)) >= 2*pace })

	form := url.Values{"csrf": {csrfOf(t, home)}, "text": {"Lightning: everyone off the field now"}, "audience": {"staff"},
		"urgent": {"1"}, "action": {"send"}}
	before := len(outboxOf(t, p.url, a.number))
	require.Less(t, before, 3000, "the broadcast is still going when the alert is sent")
	resp, _ := h.post("/app/compose", form)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)

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
