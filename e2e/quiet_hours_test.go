package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// Quiet hours, on the test clock with the realistic simulator
// at one segment a second.

// zoneOf is the recipients' zones by area code, as libphonenumber maps them.
var quietZones = map[string]string{"212": "America/New_York", "312": "America/Chicago", "415": "America/Los_Angeles", "808": "Pacific/Honolulu"}

// quietPhone is recipient i of an area code.
func quietPhone(area string, i int) string { return fmt.Sprintf("+1%s2%06d", area, i) }

// allowed reports whether local time at in zone is inside 08:00–21:00.
func allowed(t *testing.T, at time.Time, zone string) bool {
	loc, err := time.LoadLocation(zone)
	require.NoError(t, err)
	h := at.In(loc).Hour()
	return h >= 8 && h < 21
}

// nextLocal is the next instant after now at hh:mm in zone.
func nextLocal(now time.Time, zone string, hh, mm int) time.Time {
	loc, _ := time.LoadLocation(zone)
	l := now.In(loc)
	at := time.Date(l.Year(), l.Month(), l.Day(), hh, mm, 0, 0, loc)
	if !at.After(now) {
		at = time.Date(l.Year(), l.Month(), l.Day()+1, hh, mm, 0, 0, loc)
	}
	return at
}

type outboxRow struct {
	to, body string
	at       time.Time
}

func quietOutbox(t *testing.T, url, from string) []outboxRow {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT to_phone, body, created_at FROM messaging_sim_outbox WHERE from_phone = $1 ORDER BY id`, from)
	require.NoError(t, err)
	var out []outboxRow
	for rows.Next() {
		var r outboxRow
		require.NoError(t, rows.Scan(&r.to, &r.body, &r.at))
		out = append(out, r)
	}
	return out
}

// A broadcast at 20:58:30 Eastern to 40 recipients in Eastern, Central,
// Pacific and Hawaii area codes at 1 text a second: the estimate and the
// send agree on what is held and when the last text goes; what fits
// before 21:00 Eastern goes, the Eastern rest is held (queued, with
// held_until) and goes from 08:00 at pace; the others keep going. Moving
// the clock a second at a time, every hand-over in the simulator's outbox
// is inside its recipient's window. At 23:00 Eastern an estimate holds
// the Eastern and Central texts; with quiet hours off, none.
// stepUntilHeldLeft moves the clock c on a second at a time, each time
// waiting until number's due texts were handed over, until no more than
// held of the message's deliveries are queued; within 120 steps (why).
func stepUntilHeldLeft(t *testing.T, p *pacingEnv, c *clockEnv, number, messageID string, held int, why string) {
	t.Helper()
	for step := 0; deliveries(t, p.url, messageID, "queued") > held; step++ {
		require.Less(t, step, 120, why)
		c.advance(t, time.Second)
		handed := len(quietOutbox(t, p.url, number))
		waitFor(t, 10*time.Second, func() bool {
			due := countRowsIn(t, p.url, `SELECT count(*) FROM messaging_slots s JOIN messaging_numbers n ON n.id = s.number_id
WHERE n.number = $1 AND s.due_at <= (SELECT now() + offset_us * interval '1 microsecond' FROM platform_clock WHERE id = 1)`, number)
			return due == 0 || len(quietOutbox(t, p.url, number)) > handed
		})
	}
}

// importQuietTeam imports csv (name,phone,role) into the team and turns
// its quiet hours on; it returns the test clock of p's first node.
func importQuietTeam(t *testing.T, p *pacingEnv, teamID, csv string) *clockEnv {
	t.Helper()
	ctx := context.Background()
	r, err := p.admin.Do(ctx, "POST", "/teams/"+teamID+"/members/import", csv, "Content-Type", "text/csv")
	require.NoError(t, err)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, p.admin.Expect(ctx, 200, "PATCH", "/teams/"+teamID+"/messaging-settings",
		map[string]any{"quiet_hours": map[string]any{"enabled": true}}, nil))
	return &clockEnv{url: p.url, svc: p.nodes[0], admin: p.admin}
}

func TestQuietHoursEveningBroadcast(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newPacingEnv(t, "quiet_hours", 1, "SIMULATOR_PROFILE=realistic", "CLOCK=test", "TWILIO_RATE=1")
	a := p.team(t, 0, 0, 0, 1)
	var csv strings.Builder
	csv.WriteString("name,phone,role\n")
	zoneOf := map[string]string{}
	for i := range 10 {
		for area, zone := range quietZones {
			ph := quietPhone(area, i)
			zoneOf[ph] = zone
			fmt.Fprintf(&csv, "Family %s %d,%s,guardian\n", area, i, ph)
		}
	}
	c := importQuietTeam(t, p, a.TeamID, csv.String())
	now := c.now(t)
	start := nextLocal(now, "America/New_York", 20, 58).Add(30 * time.Second)
	c.advance(t, start.Sub(now))

	var est struct {
		Recipients          int       `json:"recipients"`
		HeldForQuietHours   int       `json:"held_for_quiet_hours"`
		EstimatedCompletion time.Time `json:"estimated_completion"`
	}
	r := do(t, a.api, "POST", "/messages/estimate", map[string]any{"text": "Game moved to Sunday", "audience": "families"})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&est))
	require.Equal(t, 40, est.Recipients)
	r = do(t, a.api, "POST", "/messages", map[string]any{"text": "Game moved to Sunday", "audience": "families"})
	require.Equal(t, 201, r.Status, string(r.Body))
	var m struct {
		ID                  string    `json:"id"`
		HeldForQuietHours   int       `json:"held_for_quiet_hours"`
		EstimatedCompletion time.Time `json:"estimated_completion"`
		Progress            struct {
			Held int `json:"held"`
		} `json:"progress"`
	}
	require.NoError(t, r.Data(&m))
	require.Equal(t, est.HeldForQuietHours, m.HeldForQuietHours, "the estimate's held count is the send's")
	require.True(t, m.EstimatedCompletion.Equal(est.EstimatedCompletion), "estimate %s, send %s", est.EstimatedCompletion, m.EstimatedCompletion)
	eight := nextLocal(start, "America/New_York", 8, 0)
	// 30 slots before 20:59 Eastern (a minute.s guard before 21:00), shared in turn by the four coasts:
	// the Eastern rest is held until 08:00 and goes at pace from then.
	require.Greater(t, m.HeldForQuietHours, 0)
	require.Less(t, m.HeldForQuietHours, 10)
	require.Equal(t, m.HeldForQuietHours, m.Progress.Held)
	require.True(t, m.EstimatedCompletion.Equal(eight.Add(time.Duration(m.HeldForQuietHours-1)*time.Second)), "last text %s", m.EstimatedCompletion)
	// The dashboard shows the same: Compose's preview and the message's page.
	lead := staff{teamID: a.TeamID, phone: teamNumber()}
	var added struct {
		ID string `json:"id"`
	}
	require.NoError(t, p.admin.Expect(ctx, 201, "POST", "/teams/"+a.TeamID+"/members",
		map[string]any{"name": "Dana head_coach", "phone": lead.phone, "role": "head_coach", "dashboard_login": true}, &added))
	lead.memberID = added.ID
	h := newHTTPSessionOn(t, p.nodes[0], p.admin)
	home := h.signIn(lead)
	_, preview := h.post("/app/compose/preview", url.Values{"csrf": {csrfOf(t, home)}, "text": {"Game moved to Sunday"}, "audience": {"families"}})
	require.Contains(t, preview, `id="held"`, "the preview says texts wait for the morning")
	_, page := h.get("/app/messages/" + m.ID)
	require.Contains(t, page, "Held for quiet hours")
	require.Equal(t, m.HeldForQuietHours, countRowsIn(t, p.url, `SELECT count(*) FROM messaging_deliveries
WHERE message_id = $1 AND status = 'queued' AND held_until >= $2 AND phone LIKE '+1212%'`, m.ID, eight), "held: Eastern, from 08:00")

	// The evening, a second at a time, until only the held texts are left:
	// each hand-over inside its window.
	stepUntilHeldLeft(t, p, c, a.number, m.ID, m.HeldForQuietHours, "the evening's texts go within two minutes")
	// A second send now (20:59 Eastern) does not queue behind the texts
	// held for the morning: only its Eastern texts are held.
	r = do(t, a.api, "POST", "/messages", map[string]any{"text": "Bring snacks", "audience": "families"})
	require.Equal(t, 201, r.Status, string(r.Body))
	var second struct {
		ID                string `json:"id"`
		HeldForQuietHours int    `json:"held_for_quiet_hours"`
	}
	require.NoError(t, r.Data(&second))
	require.Equal(t, 10, second.HeldForQuietHours, "Central, Pacific and Hawaii are awake: their texts go tonight")
	stepUntilHeldLeft(t, p, c, a.number, second.ID, second.HeldForQuietHours, "the second send's awake texts go within two minutes")

	// The night: on to 07:59:58 Eastern in one move, then a second at a time.
	c.advance(t, eight.Add(-2*time.Second).Sub(c.now(t)))
	for range 25 {
		c.advance(t, time.Second)
		handed := len(quietOutbox(t, p.url, a.number))
		waitFor(t, 10*time.Second, func() bool {
			return deliveries(t, p.url, m.ID, "queued") == 0 || len(quietOutbox(t, p.url, a.number)) > handed
		})
	}
	waitFor(t, 30*time.Second, func() bool {
		return deliveries(t, p.url, m.ID, "queued") == 0 && deliveries(t, p.url, second.ID, "queued") == 0
	})
	var out, secondOut []outboxRow
	for _, o := range quietOutbox(t, p.url, a.number) {
		switch {
		case zoneOf[o.to] == "": // the staff member's sign-in code
		case strings.Contains(o.body, "Bring snacks"):
			secondOut = append(secondOut, o)
			require.True(t, allowed(t, o.at, zoneOf[o.to]), "%s handed over at %s, inside its quiet hours (%s)", o.to[:5], o.at, zoneOf[o.to])
		default:
			out = append(out, o)
		}
	}
	require.Len(t, secondOut, 40, "the second send: every text once")
	require.Len(t, out, 40, "every text once")
	var morning []time.Time
	for _, o := range out {
		require.True(t, allowed(t, o.at, zoneOf[o.to]), "%s handed over at %s, inside its quiet hours (%s)", o.to[:5], o.at, zoneOf[o.to])
		if !o.at.Before(eight) {
			morning = append(morning, o.at)
		}
	}
	require.Len(t, morning, m.HeldForQuietHours)
	for k := 1; k < len(morning); k++ {
		require.GreaterOrEqual(t, morning[k].Sub(morning[k-1]), time.Second, "the pace holds at 08:00")
	}
	require.InDelta(t, 0, morning[len(morning)-1].Sub(est.EstimatedCompletion).Seconds(), 2,
		"the estimate's completion is when the outbox got the last text, within a planning cycle")

	// At 23:00 Eastern the estimate holds the Eastern and Central texts.
	c.advance(t, nextLocal(c.now(t), "America/New_York", 23, 0).Sub(c.now(t)))
	r = do(t, a.api, "POST", "/messages/estimate", map[string]any{"text": "Practice tomorrow", "audience": "families"})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&est))
	require.Equal(t, 20, est.HeldForQuietHours, "at 23:00 Eastern only Pacific and Hawaii are awake")
	// A member's own time zone overrides their area code's.
	var ms []struct {
		ID string `json:"id"`
	}
	r = do(t, a.api, "GET", "/members?phone="+url.QueryEscape(quietPhone("212", 0)), nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&ms))
	require.Len(t, ms, 1)
	r = do(t, a.api, "PATCH", "/members/"+ms[0].ID, map[string]any{"time_zone": "America/Los_Angeles"})
	require.Equal(t, 200, r.Status, string(r.Body))
	r = do(t, a.api, "POST", "/messages/estimate", map[string]any{"text": "Practice tomorrow", "audience": "families"})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&est))
	require.Equal(t, 19, est.HeldForQuietHours, "the New York number whose member lives in Los Angeles is awake")
	// Quiet hours off: nothing is held, at any hour.
	require.NoError(t, p.admin.Expect(ctx, 200, "PATCH", "/teams/"+a.TeamID+"/messaging-settings",
		map[string]any{"quiet_hours": map[string]any{"enabled": false}}, nil))
	r = do(t, a.api, "POST", "/messages/estimate", map[string]any{"text": "Practice tomorrow", "audience": "families"})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&est))
	require.Zero(t, est.HeldForQuietHours)
	require.InDelta(t, 39, est.EstimatedCompletion.Sub(c.now(t)).Seconds(), 2, "one a second from now")
}

// Every routine source is held, and urgent alerts never are: a weekly
// series at 22:00 Eastern is held every week, a campaign step due at 03:00
// is held, and a campaign's urgent step at 23:00 goes out at once.
func TestQuietHoursSeriesAndCampaigns(t *testing.T) {
	t.Parallel()
	p := newPacingEnv(t, "quiet_sources", 1, "SIMULATOR_PROFILE=realistic", "CLOCK=test", "TWILIO_RATE=1")
	a := p.team(t, 0, 0, 0, 1)
	var csv strings.Builder
	csv.WriteString("name,phone,role\n")
	for i := range 4 {
		fmt.Fprintf(&csv, "Family %d,%s,guardian\n", i, quietPhone("212", i))
	}
	c := importQuietTeam(t, p, a.TeamID, csv.String())
	now := c.now(t)
	ten := nextLocal(now, "America/New_York", 22, 0)
	r := do(t, a.api, "POST", "/messages", map[string]any{"text": "Weekly reminder", "audience": "families",
		"scheduled_for": ten.Format(time.RFC3339), "repeat": map[string]any{"every": "week", "until": ten.AddDate(0, 0, 15).Format("2006-01-02")}})
	require.Equal(t, 201, r.Status, string(r.Body))
	eleven := ten.Add(time.Hour)
	three := nextLocal(ten, "America/New_York", 3, 0)
	createCampaign(t, p.admin, a.Fixture, "Tournament",
		map[string]any{"send_at": eleven.Format(time.RFC3339), "text": "Lightning: games suspended", "urgent": true},
		map[string]any{"send_at": three.Format(time.RFC3339), "text": "Bus leaves at 7"})

	// held is how many texts of the team's message with text were held.
	held := func(text string) int {
		var n int
		waitFor(t, 30*time.Second, func() bool {
			n = countRowsIn(t, p.url, `SELECT coalesce(max(held_for_quiet_hours), -1) FROM messaging_messages WHERE team_id = $1 AND text = $2`, a.TeamID, text)
			return n >= 0
		})
		return n
	}
	c.advance(t, ten.Add(5*time.Second).Sub(c.now(t)))
	require.Equal(t, 4, held("Weekly reminder"), "the series' 22:00 occurrence is held")
	c.advance(t, eleven.Add(5*time.Second).Sub(c.now(t)))
	require.Equal(t, 0, held("Lightning: games suspended"), "an urgent step is never held")
	waitFor(t, 30*time.Second, func() bool {
		return countRowsIn(t, p.url, `SELECT count(*) FROM messaging_sim_outbox WHERE from_phone = $1 AND body LIKE '%Lightning%'`, a.number) == 4
	})
	c.advance(t, three.Add(5*time.Second).Sub(c.now(t)))
	require.Equal(t, 4, held("Bus leaves at 7"), "a campaign step due at 03:00 is held")
	require.Zero(t, countRowsIn(t, p.url, `SELECT count(*) FROM messaging_sim_outbox WHERE from_phone = $1 AND body LIKE '%Bus leaves%'`, a.number))
	// A week later the series' next occurrence is held too.
	c.advance(t, ten.AddDate(0, 0, 7).Add(5*time.Second).Sub(c.now(t)))
	waitFor(t, 30*time.Second, func() bool {
		return countRowsIn(t, p.url, `SELECT count(*) FROM messaging_messages WHERE team_id = $1 AND text = 'Weekly reminder' AND held_for_quiet_hours = 4`, a.TeamID) == 2
	})
}
