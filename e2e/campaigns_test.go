package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// campaignOut is what the tests read of a campaign.
type campaignOut struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Status        string     `json:"status"`
	HasUrgentStep bool       `json:"has_urgent_step"`
	StartedAt     time.Time  `json:"started_at"`
	PausedAt      *time.Time `json:"paused_at"`
	CancelledAt   *time.Time `json:"cancelled_at"`
	CompletedAt   *time.Time `json:"completed_at"`
	Steps         []struct {
		ID           string     `json:"id"`
		Position     int        `json:"position"`
		Status       string     `json:"status"`
		DueAt        time.Time  `json:"due_at"`
		SendAt       *time.Time `json:"send_at"`
		DelaySeconds *int64     `json:"delay_seconds"`
		Urgent       bool       `json:"urgent"`
		MessageID    *string    `json:"message_id"`
		SentAt       *time.Time `json:"sent_at"`
	} `json:"steps"`
}

func (c campaignOut) stepStatuses() []string {
	out := make([]string, len(c.Steps))
	for i, s := range c.Steps {
		out[i] = s.Status
	}
	return out
}

// createCampaign makes a campaign through the admin API (the dashboard).
func createCampaign(t *testing.T, admin *harness.Client, f *harness.Fixture, name string, steps ...map[string]any) campaignOut {
	t.Helper()
	var c campaignOut
	require.NoError(t, admin.Expect(context.Background(), 201, "POST", "/teams/"+f.TeamID+"/campaigns",
		map[string]any{"name": name, "audience": "families", "member_id": f.CoachID, "steps": steps}, &c))
	require.Equal(t, "scheduled", c.Status)
	return c
}

// campaignAction posts pause, resume or cancel through the API.
func campaignAction(t *testing.T, api *harness.Client, id, action string) *harness.Response {
	t.Helper()
	return do(t, api, "POST", "/campaigns/"+id+"/"+action, nil)
}

func campaignData(t *testing.T, r *harness.Response) campaignOut {
	t.Helper()
	require.Equal(t, 200, r.Status, string(r.Body))
	var c campaignOut
	require.NoError(t, r.Data(&c))
	return c
}

func getCampaign(t *testing.T, api *harness.Client, id string) campaignOut {
	t.Helper()
	return campaignData(t, do(t, api, "GET", "/campaigns/"+id, nil))
}

// requireState checks a 409 campaign_state whose message names the status.
func requireState(t *testing.T, r *harness.Response, status string) {
	t.Helper()
	requireCode(t, r, 409, "campaign_state")
	require.Contains(t, string(r.Body), "the campaign is "+status)
}

// stepJobsDue counts the campaign's step jobs that are due at now but not
// finished: zero means every step has had its chance to run. (River's
// table, read directly: polling the API would spend the key's limit.)
func stepJobsDue(t *testing.T, url, campaignID string, now time.Time) int {
	return countRowsIn(t, url, `SELECT count(*) FROM river_job WHERE kind = 'campaigns.step' AND args->>'campaign_id' = $1
AND (state IN ('available', 'running', 'retryable', 'pending') OR (state = 'scheduled' AND scheduled_at <= $2))`, campaignID, now)
}

func textsWith(t *testing.T, admin *harness.Client, teamID, text string) int {
	t.Helper()
	n := 0
	for _, e := range outbox(t, admin, teamID) {
		if strings.Contains(fmt.Sprint(e["body"]), text) {
			n++
		}
	}
	return n
}

// TestCampaignLifecycle: made in the dashboard, each step goes out at its
// time through messaging (the simulator's outbox), then the campaign is
// completed and answers 409 campaign_state to every action.
func TestCampaignLifecycle(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "camp_life")
	f, api := c.team(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550401"})
	addMember(t, api, map[string]any{"name": "B", "phone": "2025550402", "role": "guardian"})
	third := c.now(t).Add(3 * time.Hour).Truncate(time.Second)
	texts := []string{"Tryouts in 3 days", "Tryouts tomorrow", "Tryouts today"}
	camp := createCampaign(t, c.admin, f, "Tryout countdown",
		map[string]any{"delay_seconds": 60, "text": texts[0]},
		map[string]any{"delay_seconds": 3600, "text": texts[1]},
		map[string]any{"send_at": third.Format(time.RFC3339), "text": texts[2]})
	require.Equal(t, []string{"pending", "pending", "pending"}, camp.stepStatuses())
	require.True(t, camp.Steps[0].DueAt.Equal(camp.StartedAt.Add(time.Minute)))
	require.True(t, camp.Steps[2].DueAt.Equal(third))
	require.False(t, camp.HasUrgentStep)

	var page struct {
		Data       []campaignOut `json:"data"`
		Pagination struct {
			HasMore bool `json:"has_more"`
		} `json:"pagination"`
	}
	require.NoError(t, do(t, api, "GET", "/campaigns", nil).JSON(&page))
	require.Len(t, page.Data, 1)
	require.Equal(t, camp.ID, page.Data[0].ID)
	require.Len(t, page.Data[0].Steps, 3)

	for i, text := range texts {
		require.Zero(t, textsWith(t, c.admin, f.TeamID, text), "not before its time")
		c.advanceTo(t, camp.Steps[i].DueAt)
		waitFor(t, 30*time.Second, func() bool { return textsWith(t, c.admin, f.TeamID, text) == 2 })
	}
	require.Len(t, outbox(t, c.admin, f.TeamID), 6, "three steps, two families")
	got := getCampaign(t, api, camp.ID)
	require.Equal(t, "completed", got.Status)
	require.NotNil(t, got.CompletedAt)
	require.Equal(t, []string{"sent", "sent", "sent"}, got.stepStatuses())
	for _, s := range got.Steps {
		require.NotNil(t, s.MessageID)
		require.Equal(t, 2, getMessage(t, api, *s.MessageID).Recipients)
	}
	for _, a := range []string{"pause", "resume", "cancel"} {
		requireState(t, campaignAction(t, api, camp.ID, a), "completed")
	}
}

// TestCampaignPauseResume: a paused campaign sends nothing, even when its
// steps' times pass; resume skips those steps (they never go out) and the
// later ones go out at their original time.
func TestCampaignPauseResume(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "camp_pause")
	f, api := c.team(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550403"})
	camp := createCampaign(t, c.admin, f, "Season opener",
		map[string]any{"delay_seconds": 600, "text": "Practice moved"},
		map[string]any{"delay_seconds": 1200, "text": "Bring water"},
		map[string]any{"delay_seconds": 7200, "text": "Game day"})

	p := campaignData(t, campaignAction(t, api, camp.ID, "pause"))
	require.Equal(t, "paused", p.Status)
	require.NotNil(t, p.PausedAt)
	requireState(t, campaignAction(t, api, camp.ID, "pause"), "paused")

	c.advance(t, 1300*time.Second)
	now := c.now(t)
	waitFor(t, 30*time.Second, func() bool { return stepJobsDue(t, c.url, camp.ID, now) == 0 })
	require.Empty(t, outbox(t, c.admin, f.TeamID), "a paused campaign sends nothing")
	require.Zero(t, messageCount(t, c.url, f.TeamID))
	require.Equal(t, []string{"pending", "pending", "pending"}, getCampaign(t, api, camp.ID).stepStatuses())

	r := campaignData(t, campaignAction(t, api, camp.ID, "resume"))
	require.Equal(t, "scheduled", r.Status)
	require.Nil(t, r.PausedAt)
	require.Equal(t, []string{"skipped", "skipped", "pending"}, r.stepStatuses(), "steps whose time passed while paused are skipped")
	require.True(t, r.Steps[2].DueAt.Equal(camp.Steps[2].DueAt), "the later step keeps its time")

	c.advanceTo(t, camp.Steps[2].DueAt)
	waitFor(t, 30*time.Second, func() bool { return textsWith(t, c.admin, f.TeamID, "Game day") == 1 })
	waitFor(t, 30*time.Second, func() bool {
		return countRowsIn(t, c.url, `SELECT count(*) FROM campaigns WHERE id = $1 AND status = 'completed'`, camp.ID) == 1
	})
	require.Len(t, outbox(t, c.admin, f.TeamID), 1, "the skipped steps never went out")
	require.Equal(t, []string{"skipped", "skipped", "sent"}, getCampaign(t, api, camp.ID).stepStatuses())
}

// TestCampaignCancelRace: 50 trials, each a team whose campaign step is due
// and a cancel sent concurrently. When the cancel answers 200, its answer is
// final: a step it shows as sent was handed to messaging before the cancel
// committed, and a step it shows as cancelled never becomes a message or a text.
func TestCampaignCancelRace(t *testing.T) {
	t.Parallel()
	const trials = 50
	c := newClockEnv(t, "camp_race")
	// One pool for the test's polling: 50 trials poll at once.
	cfg, err := pgxpool.ParseConfig(c.url)
	require.NoError(t, err)
	cfg.MaxConns = 20
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	count := func(t *testing.T, sql string, args ...any) int {
		t.Helper()
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), sql, args...).Scan(&n))
		return n
	}

	type trial struct {
		f        *harness.Fixture
		api      *harness.Client
		campaign campaignOut
	}
	ts := make([]trial, trials)
	// An hour ahead: the clock follows the wall clock, and 50 parallel
	// set-ups may wait minutes for the package's parallel slots.
	due := c.now(t).Add(time.Hour).Truncate(time.Second)
	t.Run("setup", func(t *testing.T) {
		for i := range ts {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				f, api := newTeamOn(t, c.admin, c.svc, harness.TeamOptions{Extra: map[string]any{
					"number": fmt.Sprintf("+1202558%04d", i), "code": fmt.Sprintf("race-%d-%d", i, time.Now().UnixNano())}})
				addMember(t, api, map[string]any{"name": "A", "phone": "2025550404"})
				camp := createCampaign(t, c.admin, f, "Race",
					map[string]any{"send_at": due.Format(time.RFC3339), "text": "Race step"},
					map[string]any{"delay_seconds": 86400, "text": "Never after a cancel"})
				ts[i] = trial{f: f, api: api, campaign: camp}
			})
		}
	})
	if t.Failed() {
		return
	}

	// The steps are due. All 50 cancels go at once, from goroutines (not
	// subtests, which -parallel would queue). Even trials cancel at once,
	// racing River's scheduler, which makes due jobs available every few
	// seconds; odd trials cancel the moment their job is available (or has
	// already run), racing the worker.
	c.advanceTo(t, due)
	type answer struct {
		r   *harness.Response
		err error
	}
	answers := make([]answer, trials)
	var wg sync.WaitGroup
	for i := range ts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			if i%2 == 1 {
				tick := time.NewTicker(2 * time.Millisecond)
				defer tick.Stop()
				for deadline := time.Now().Add(30 * time.Second); ; <-tick.C {
					var n int
					if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'campaigns.step' AND args->>'step_id' = $1 AND state = 'scheduled'`,
						ts[i].campaign.Steps[0].ID).Scan(&n); err != nil || n == 0 || time.Now().After(deadline) {
						break
					}
				}
			}
			r, err := ts[i].api.Do(ctx, "POST", "/campaigns/"+ts[i].campaign.ID+"/cancel", nil)
			answers[i] = answer{r, err}
		}()
	}
	wg.Wait()

	var mu sync.Mutex
	outcomes := map[string]int{}
	t.Run("check", func(t *testing.T) {
		for i := range ts {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				tr := ts[i]
				id, stepID := tr.campaign.ID, tr.campaign.Steps[0].ID
				require.NoError(t, answers[i].err)
				ack := campaignData(t, answers[i].r)
				require.Equal(t, "cancelled", ack.Status, "the cancel is acknowledged")

				// Give the job its chance, then look at what went out.
				waitFor(t, 30*time.Second, func() bool {
					return count(t, `SELECT count(*) FROM river_job WHERE kind = 'campaigns.step' AND args->>'step_id' = $1
AND state IN ('available', 'running', 'retryable', 'pending', 'scheduled')`, stepID) == 0
				})
				after := count(t, `SELECT count(*) FROM messaging_messages WHERE team_id = $1 AND created_at > (SELECT cancelled_at FROM campaigns WHERE id = $2)`, tr.f.TeamID, id)
				require.Zero(t, after, "no message after the cancel committed")
				got := getCampaign(t, tr.api, id)
				require.Equal(t, ack.stepStatuses(), got.stepStatuses(), "what the cancel acknowledged is final: a step it shows cancelled is never sent")
				require.Equal(t, "cancelled", got.Steps[1].Status)
				switch got.Steps[0].Status {
				case "sent":
					require.False(t, got.Steps[0].SentAt.After(*got.CancelledAt))
					require.Equal(t, 1, messageCount(t, c.url, tr.f.TeamID))
					waitFor(t, 30*time.Second, func() bool { return len(outbox(t, c.admin, tr.f.TeamID)) == 1 })
				case "cancelled":
					require.Nil(t, got.Steps[0].MessageID)
					require.Zero(t, messageCount(t, c.url, tr.f.TeamID), "a cancelled step never becomes a message, so never a text")
					require.Empty(t, outbox(t, c.admin, tr.f.TeamID))
				default:
					t.Fatalf("step status %s after a cancel", got.Steps[0].Status)
				}
				mu.Lock()
				outcomes[got.Steps[0].Status]++
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		return
	}
	t.Logf("step outcomes over %d trials: %v", trials, outcomes)

	// Past every second step's time: nothing more goes out.
	c.advance(t, 25*time.Hour)
	now := c.now(t)
	waitFor(t, 60*time.Second, func() bool {
		return count(t, `SELECT count(*) FROM river_job WHERE kind = 'campaigns.step'
AND (state IN ('available', 'running', 'retryable', 'pending') OR (state = 'scheduled' AND scheduled_at <= $1))`, now) == 0
	})
	require.Equal(t, outcomes["sent"], count(t, `SELECT count(*) FROM messaging_sim_outbox`), "one text per step sent before its cancel, none other")
}

// TestCampaignUrgentResume: a campaign with an urgent-alert step is refused
// on resume through the API (403 forbidden) and resumed through the admin.
func TestCampaignUrgentResume(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	camp := createCampaign(t, env.admin, f, "Storm plan",
		map[string]any{"delay_seconds": 86400, "text": "Practice is on"},
		map[string]any{"delay_seconds": 90000, "text": "Lightning: clear the field", "urgent": true})
	require.True(t, camp.HasUrgentStep)
	require.True(t, camp.Steps[1].Urgent)

	requireState(t, campaignAction(t, api, camp.ID, "resume"), "scheduled")
	require.Equal(t, "paused", campaignData(t, campaignAction(t, api, camp.ID, "pause")).Status)
	r := campaignAction(t, api, camp.ID, "resume")
	requireCode(t, r, 403, "forbidden")
	require.Contains(t, string(r.Body), "dashboard")
	require.Equal(t, "paused", getCampaign(t, api, camp.ID).Status)

	var resumed campaignOut
	require.NoError(t, env.admin.Expect(context.Background(), 200, "POST", "/teams/"+f.TeamID+"/campaigns/"+camp.ID+"/resume", nil, &resumed))
	require.Equal(t, "scheduled", resumed.Status)
	require.Equal(t, []string{"pending", "pending"}, resumed.stepStatuses())
	ar, err := env.admin.Do(context.Background(), "POST", "/teams/"+f.TeamID+"/campaigns/"+camp.ID+"/resume", nil)
	require.NoError(t, err)
	requireState(t, ar, "scheduled")

	// Only a head coach or team director creates campaigns.
	assistant := adminMember(t, f.TeamID, map[string]any{"name": "Assistant", "phone": "2025550405", "role": "coach"})
	cr, err := env.admin.Do(context.Background(), "POST", "/teams/"+f.TeamID+"/campaigns", map[string]any{"name": "x", "audience": "all",
		"member_id": assistant, "steps": []map[string]any{{"delay_seconds": 60, "text": "x"}}})
	require.NoError(t, err)
	requireCode(t, cr, 403, "forbidden")
	cr, err = env.admin.Do(context.Background(), "POST", "/teams/"+f.TeamID+"/campaigns", map[string]any{"name": "x", "audience": "all",
		"member_id": f.CoachID, "steps": []map[string]any{{"delay_seconds": 60, "send_at": time.Now().Add(time.Hour).Format(time.RFC3339), "text": "x"}}})
	require.NoError(t, err)
	requireCode(t, cr, 400, "invalid_request")
}

// TestCampaignCrossTeam: another team's campaign ids answer 404 on every
// campaign route, public and admin.
func TestCampaignCrossTeam(t *testing.T) {
	t.Parallel()
	fa, apiA := messagingTeam(t, harness.TeamOptions{})
	fb, apiB := messagingTeam(t, harness.TeamOptions{})
	camp := createCampaign(t, env.admin, fa, "Team A only", map[string]any{"delay_seconds": 86400, "text": "x"})

	requireCode(t, do(t, apiB, "GET", "/campaigns/"+camp.ID, nil), 404, "not_found")
	for _, a := range []string{"pause", "resume", "cancel"} {
		requireCode(t, campaignAction(t, apiB, camp.ID, a), 404, "not_found")
		requireCode(t, campaignAction(t, apiA, "cmp_00000000000000000000000000000000", a), 404, "not_found")
	}
	for _, route := range []struct{ method, path string }{
		{"GET", "/teams/" + fb.TeamID + "/campaigns/" + camp.ID},
		{"POST", "/teams/" + fb.TeamID + "/campaigns/" + camp.ID + "/resume"},
		{"GET", "/teams/team_unknown/campaigns"},
	} {
		r, err := env.admin.Do(context.Background(), route.method, route.path, nil)
		require.NoError(t, err)
		requireCode(t, r, 404, "not_found")
	}
	var page struct {
		Data []campaignOut `json:"data"`
	}
	require.NoError(t, do(t, apiB, "GET", "/campaigns", nil).JSON(&page))
	require.Empty(t, page.Data)
	require.Equal(t, "scheduled", getCampaign(t, apiA, camp.ID).Status, "untouched by team B")

	var list struct {
		Data []campaignOut `json:"data"`
	}
	r, err := env.admin.Do(context.Background(), "GET", "/teams/"+fa.TeamID+"/campaigns", nil)
	require.NoError(t, err)
	require.NoError(t, r.JSON(&list))
	require.Len(t, list.Data, 1)
}

// TestCampaignStates: the campaign rows of the state table and their 409s;
// writes need a card on file.
func TestCampaignStates(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	camp := createCampaign(t, env.admin, f, "States",
		map[string]any{"delay_seconds": 86400, "text": "one"}, map[string]any{"delay_seconds": 90000, "text": "two"})

	requireState(t, campaignAction(t, api, camp.ID, "resume"), "scheduled")
	require.Equal(t, "paused", campaignData(t, campaignAction(t, api, camp.ID, "pause")).Status)
	requireState(t, campaignAction(t, api, camp.ID, "pause"), "paused")
	cancelled := campaignData(t, campaignAction(t, api, camp.ID, "cancel"))
	require.Equal(t, "cancelled", cancelled.Status, "a paused campaign can be cancelled")
	require.NotNil(t, cancelled.CancelledAt)
	require.Equal(t, []string{"cancelled", "cancelled"}, cancelled.stepStatuses())
	for _, a := range []string{"pause", "resume", "cancel"} {
		requireState(t, campaignAction(t, api, camp.ID, a), "cancelled")
	}
	ar, err := env.admin.Do(context.Background(), "POST", "/teams/"+f.TeamID+"/campaigns/"+camp.ID+"/resume", nil)
	require.NoError(t, err)
	requireState(t, ar, "cancelled")

	other := createCampaign(t, env.admin, f, "Scheduled cancel", map[string]any{"delay_seconds": 86400, "text": "x"})
	require.Equal(t, "cancelled", campaignData(t, campaignAction(t, api, other.ID, "cancel")).Status, "a scheduled campaign can be cancelled")

	third := createCampaign(t, env.admin, f, "No card", map[string]any{"delay_seconds": 86400, "text": "x"})
	patchTeam(t, f.TeamID, map[string]any{"card_on_file": false})
	requireCode(t, campaignAction(t, api, third.ID, "pause"), 403, "card_required")
	require.Equal(t, 200, do(t, api, "GET", "/campaigns/"+third.ID, nil).Status, "reads need no card")
}
