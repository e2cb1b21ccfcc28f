package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// clockEnv is a service on its own database with the test clock.
type clockEnv struct {
	url   string
	svc   *harness.Service
	admin *harness.Client
}

func newClockEnv(t *testing.T, name string) *clockEnv {
	t.Helper()
	url := freshDatabase(t, name)
	svc := startServiceOn(t, url, "CLOCK=test")
	return &clockEnv{url: url, svc: svc, admin: harness.NewClient(svc.AdminURL+"/admin/v1", harness.AdminToken)}
}

func (c *clockEnv) now(t testing.TB) time.Time {
	t.Helper()
	var n struct {
		Now time.Time `json:"now"`
	}
	require.NoError(t, c.admin.Expect(context.Background(), 200, "GET", "/clock", nil, &n))
	return n.Now
}

func (c *clockEnv) advance(t testing.TB, d time.Duration) time.Time {
	t.Helper()
	var n struct {
		Now time.Time `json:"now"`
	}
	require.NoError(t, c.admin.Expect(context.Background(), 200, "POST", "/clock/advance", map[string]any{"seconds": d.Seconds()}, &n))
	return n.Now
}

// pendingAt reports whether the team's one pending scheduled send is due at
// at after runs sends (observed in the database, not through the API).
func (c *clockEnv) pendingAt(t *testing.T, teamID string, at time.Time, runs int) bool {
	return countRowsIn(t, c.url, `SELECT count(*) FROM messaging_scheduled WHERE team_id = $1 AND status = 'pending' AND scheduled_for = $2 AND runs = $3`,
		teamID, at, runs) == 1
}

func (c *clockEnv) pending(t *testing.T, teamID string) int {
	return countRowsIn(t, c.url, `SELECT count(*) FROM messaging_scheduled WHERE team_id = $1 AND status = 'pending'`, teamID)
}

// advanceTo moves the clock just past t.
func (c *clockEnv) advanceTo(t *testing.T, at time.Time) {
	t.Helper()
	if d := at.Sub(c.now(t)); d > 0 {
		c.advance(t, d+time.Second)
	}
}

func (c *clockEnv) team(t *testing.T, o harness.TeamOptions) (*harness.Fixture, *harness.Client) {
	t.Helper()
	if o.Extra == nil {
		o.Extra = map[string]any{}
	}
	o.Extra["number"] = teamNumber()
	return newTeamOn(t, c.admin, c.svc, o)
}

type scheduledItem struct {
	ID           string    `json:"id"`
	Kind         string    `json:"kind"`
	ScheduledFor time.Time `json:"scheduled_for"`
	Repeat       *struct {
		Every string `json:"every"`
		Until string `json:"until"`
	} `json:"repeat"`
	Sends int `json:"sends"`
}

func listScheduled(t *testing.T, api *harness.Client) []scheduledItem {
	t.Helper()
	var items []scheduledItem
	r := do(t, api, "GET", "/scheduled?limit=200", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&items))
	return items
}

func listMessages(t *testing.T, api *harness.Client) []sent {
	t.Helper()
	var page struct {
		Data []sent `json:"data"`
	}
	require.NoError(t, do(t, api, "GET", "/messages?limit=200", nil).JSON(&page))
	return page.Data
}

func TestScheduledSend(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "sched_once")
	f, api := c.team(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550301"})
	at := c.now(t).Add(10 * time.Minute).Truncate(time.Second)
	r := do(t, api, "POST", "/messages", map[string]any{"text": "Reminder", "audience": "families", "scheduled_for": at.Format(time.RFC3339)})
	require.Equal(t, 201, r.Status, string(r.Body))
	var s sent
	require.NoError(t, r.Data(&s))
	require.Equal(t, "scheduled", s.Kind)
	require.Equal(t, "pending", s.Status)
	items := listScheduled(t, api)
	require.Len(t, items, 1)
	require.Nil(t, items[0].Repeat)
	require.True(t, items[0].ScheduledFor.Equal(at))

	other := do(t, api, "POST", "/messages", map[string]any{"text": "Cancelled", "audience": "families", "scheduled_for": at.Format(time.RFC3339)})
	var o sent
	require.NoError(t, other.Data(&o))
	require.Equal(t, 204, do(t, api, "DELETE", "/scheduled/"+o.ID, nil).Status)
	requireCode(t, do(t, api, "DELETE", "/scheduled/"+o.ID, nil), 404, "not_found")

	c.advanceTo(t, at)
	waitFor(t, 30*time.Second, func() bool { return len(outbox(t, c.admin, f.TeamID)) == 1 })
	box := outbox(t, c.admin, f.TeamID)
	require.Contains(t, box[0]["body"], "Reminder")
	require.Empty(t, listScheduled(t, api))
	ms := listMessages(t, api)
	require.Len(t, ms, 1, "the cancelled one was never sent")
}

// TestWeeklySeriesAcrossDST: a weekly send at 17:30 New York time keeps its
// local time when DST starts (2027-03-14), and stops after until.
func TestWeeklySeriesAcrossDST(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "sched_weekly")
	f, api := c.team(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550302"})
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	first := time.Date(2027, 3, 6, 17, 30, 0, 0, ny) // a Saturday, EST
	if first.Before(c.now(t).Add(2 * time.Minute)) {
		t.Fatalf("the test clock is past %s; pick later dates", first)
	}
	r := do(t, api, "POST", "/messages", map[string]any{"text": "Weekly practice", "audience": "families",
		"scheduled_for": first.Format(time.RFC3339), "repeat": map[string]any{"every": "week", "until": "2027-03-20"}})
	require.Equal(t, 201, r.Status, string(r.Body))
	items := listScheduled(t, api)
	require.Len(t, items, 1)
	require.Equal(t, "week", items[0].Repeat.Every)
	require.Equal(t, "2027-03-20", items[0].Repeat.Until)

	wantNext := []time.Time{
		time.Date(2027, 3, 13, 17, 30, 0, 0, ny), // still EST: 22:30Z
		time.Date(2027, 3, 20, 17, 30, 0, 0, ny), // EDT: 21:30Z
	}
	require.Equal(t, "2027-03-13T22:30:00Z", wantNext[0].UTC().Format(time.RFC3339))
	require.Equal(t, "2027-03-20T21:30:00Z", wantNext[1].UTC().Format(time.RFC3339))

	c.advanceTo(t, first)
	waitFor(t, 30*time.Second, func() bool { return c.pendingAt(t, f.TeamID, wantNext[0], 1) })
	items = listScheduled(t, api)
	require.Len(t, items, 1)
	require.True(t, items[0].ScheduledFor.Equal(wantNext[0]), "next week keeps 17:30 local: %s", items[0].ScheduledFor)
	c.advanceTo(t, wantNext[0])
	waitFor(t, 30*time.Second, func() bool { return c.pendingAt(t, f.TeamID, wantNext[1], 2) })
	c.advanceTo(t, wantNext[1])
	waitFor(t, 30*time.Second, func() bool { return c.pending(t, f.TeamID) == 0 }) // until reached
	require.Equal(t, 3, messageCount(t, c.url, f.TeamID))
	waitFor(t, 30*time.Second, func() bool { return len(outbox(t, c.admin, f.TeamID)) == 3 })
	for _, e := range outbox(t, c.admin, f.TeamID) {
		ts, err := time.Parse(time.RFC3339Nano, e["created_at"].(string))
		require.NoError(t, err)
		require.Equal(t, 17, ts.In(ny).Hour(), "sent at 17:xx New York time: %s", ts.In(ny))
	}
}

// TestWeeklyApprovalAndRevokedKey: a week waiting for approval counts as
// sent and the next week is scheduled; once the key is revoked, its
// series is not sent.
func TestWeeklyApprovalAndRevokedKey(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "sched_approval")
	f, api := c.team(t, harness.TeamOptions{Extra: map[string]any{"approval_required": true}})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550303"})
	first := c.now(t).Add(time.Hour).Truncate(time.Second)
	until := first.AddDate(0, 0, 30).Format("2006-01-02")
	r := do(t, api, "POST", "/messages", map[string]any{"text": "Weekly", "audience": "families",
		"scheduled_for": first.Format(time.RFC3339), "repeat": map[string]any{"every": "week", "until": until}})
	require.Equal(t, 201, r.Status, string(r.Body))
	c.advanceTo(t, first)
	waitFor(t, 30*time.Second, func() bool { return c.pendingAt(t, f.TeamID, first.AddDate(0, 0, 7), 1) })
	require.Equal(t, "pending_approval", listMessages(t, api)[0].Status)
	// Reject the week: the series goes on regardless.
	ms := listMessages(t, api)
	require.NoError(t, c.admin.Expect(context.Background(), 200, "POST", "/teams/"+f.TeamID+"/approvals/"+ms[0].ID+"/reject", map[string]any{"member_id": f.CoachID}, nil))
	require.Len(t, listScheduled(t, api), 1)

	// Revoke the key: its scheduled messages are not sent.
	require.NoError(t, c.admin.Expect(context.Background(), 200, "DELETE", "/teams/"+f.TeamID+"/api-keys/"+f.KeyID, nil, nil))
	var k2 struct{ Key string }
	require.NoError(t, c.admin.Expect(context.Background(), 201, "POST", "/teams/"+f.TeamID+"/api-keys", map[string]any{"member_id": f.CoachID, "name": "second"}, &k2))
	api2 := harness.NewClient(c.svc.PublicURL+"/api/v1", k2.Key)
	require.Empty(t, listScheduled(t, api2))
	c.advance(t, 8*24*time.Hour)
	require.Len(t, listMessages(t, api2), 1, "no second week")
}

func TestApprovalExpires(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "approval_expiry")
	f, api := c.team(t, harness.TeamOptions{Extra: map[string]any{"approval_required": true}})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550304"})
	r := do(t, api, "POST", "/messages", map[string]any{"text": "x", "audience": "families"})
	require.Equal(t, 201, r.Status)
	var m sent
	require.NoError(t, r.Data(&m))
	c.advance(t, 7*24*time.Hour+time.Minute)
	waitFor(t, 30*time.Second, func() bool {
		return countRowsIn(t, c.url, `SELECT count(*) FROM messaging_messages WHERE id = $1 AND status = 'expired'`, m.ID) == 1
	})
	rr, err := c.admin.Do(context.Background(), "POST", "/teams/"+f.TeamID+"/approvals/"+m.ID+"/approve", map[string]any{"member_id": f.CoachID})
	require.NoError(t, err)
	requireCode(t, rr, 409, "conflict")
	require.Empty(t, outbox(t, c.admin, f.TeamID))
}

func TestUnconfirmedAfterTimeout(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "unconfirmed")
	_, api := c.team(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550305"})
	addMember(t, api, map[string]any{"name": "B", "phone": "2025550306"})
	require.NoError(t, c.admin.Expect(context.Background(), 200, "PUT", "/simulator/outcomes",
		map[string]any{"default": "unconfirmed", "numbers": map[string]string{"+12025550306": "failed"}, "error_code": "30006"}, nil))
	r := do(t, api, "POST", "/messages", map[string]any{"text": "x", "audience": "families"})
	require.Equal(t, 201, r.Status)
	var m sent
	require.NoError(t, r.Data(&m))
	waitFor(t, 30*time.Second, func() bool {
		return deliveries(t, c.url, m.ID, "sent") == 1 && deliveries(t, c.url, m.ID, "failed") == 1
	})
	c.advance(t, 72*time.Hour+time.Minute)
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, c.url, m.ID, "delivery_unconfirmed") == 1 })
	var rows []struct {
		Phone     string  `json:"phone"`
		Status    string  `json:"status"`
		ErrorCode *string `json:"error_code"`
	}
	require.NoError(t, do(t, api, "GET", "/messages/"+m.ID+"/deliveries", nil).Data(&rows))
	for _, row := range rows {
		if row.Phone == "***0306" {
			require.Equal(t, "failed", row.Status)
			require.Equal(t, "30006", *row.ErrorCode)
		} else {
			require.Equal(t, "delivery_unconfirmed", row.Status)
		}
	}
}

func TestScheduledLimitAndSendLimit(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "sched_limit")
	_, api := c.team(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550307"})
	at := c.now(t).Add(300 * 24 * time.Hour).Format(time.RFC3339)
	body := map[string]any{"text": "later", "audience": "families", "scheduled_for": at}
	// Sends are limited to 20 a minute (scheduled ones included): the 21st gets 429.
	for i := 0; i < 20; i++ {
		require.Equal(t, 201, do(t, api, "POST", "/messages", body).Status, "send %d", i)
	}
	r := do(t, api, "POST", "/messages", body)
	requireCode(t, r, 429, "rate_limited")
	require.Contains(t, r.Header.Get("RateLimit-Policy"), `"sends-minute";q=20;w=60`)
	for batch := 1; batch < 5; batch++ {
		c.advance(t, 61*time.Second)
		for i := 0; i < 20; i++ {
			require.Equal(t, 201, do(t, api, "POST", "/messages", body).Status, "batch %d send %d", batch, i)
		}
	}
	c.advance(t, 61*time.Second)
	requireCode(t, do(t, api, "POST", "/messages", body), 409, "scheduled_limit_reached")
	require.Len(t, listScheduled(t, api), 100)
}
