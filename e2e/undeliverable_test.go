package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// Numbers that keep failing are suppressed, and a broadcast can
// be resent to its failed recipients.

// marked is a member's undeliverable mark as the API shows it.
type marked struct {
	ID                 string     `json:"id"`
	Status             string     `json:"status"`
	Undeliverable      bool       `json:"undeliverable"`
	UndeliverableSince *time.Time `json:"undeliverable_since"`
}

func markOf(t *testing.T, api *harness.Client, memberID string) marked {
	t.Helper()
	var m marked
	r := do(t, api, "GET", "/members/"+memberID, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&m))
	return m
}

// suppressed is what a send or an estimate says about suppressed numbers.
type suppressed struct {
	ID                   string  `json:"id"`
	Status               string  `json:"status"`
	Recipients           int     `json:"recipients"`
	Credits              int     `json:"credits"`
	EstimatedCredits     int     `json:"estimated_credits"`
	SkippedUndeliverable int     `json:"skipped_undeliverable"`
	ResendOf             *string `json:"resend_of"`
}

func sendTo(t *testing.T, api *harness.Client, text, audience string) suppressed {
	t.Helper()
	r := do(t, api, "POST", "/messages", map[string]any{"text": text, "audience": audience})
	require.Equal(t, 201, r.Status, string(r.Body))
	var s suppressed
	require.NoError(t, r.Data(&s))
	return s
}

// teamNamed is a team's name and number, as the admin API tells them.
type teamNamed struct {
	Name   string `json:"name"`
	Number string `json:"number"`
}

// adminTeam reads teamID's name and number through the admin API.
func adminTeam(t *testing.T, admin *harness.Client, teamID string) teamNamed {
	t.Helper()
	var team teamNamed
	require.NoError(t, admin.Expect(context.Background(), 200, "GET", "/teams/"+teamID, nil, &team))
	return team
}

// numberOf is the team's number, as the admin API tells it.
func numberOf(t *testing.T, admin *harness.Client, teamID string) string {
	t.Helper()
	return adminTeam(t, admin, teamID).Number
}

// undeliverableEnv is a service of its own (the simulator's outcomes and
// profile are the service's), on the test clock, with fast numbers.
func undeliverableEnv(t *testing.T, name string) *clockEnv {
	t.Helper()
	url := freshDatabase(t, name)
	svc := startServiceOn(t, url, "CLOCK=test", "TWILIO_RATE=20")
	return &clockEnv{url: url, svc: svc, admin: harness.NewClient(svc.AdminURL+"/admin/v1", harness.AdminToken)}
}

func textsTo(t *testing.T, url, teamID, to string) int {
	return countRowsIn(t, url, `SELECT count(*) FROM messaging_sim_outbox WHERE team_id = $1 AND to_phone = $2`, teamID, to)
}

// TestLandlineSuppressed: a landline fails twice in a row and is marked
// undeliverable on both roster entries with it; the next send skips it
// (estimate, send result, validate, member reads) and charges nothing for
// it; the admin's clear, an inbound text from it, and a delivered text
// each clear the mark.
func TestLandlineSuppressed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := undeliverableEnv(t, "undeliverable")
	f, api := c.team(t, harness.TeamOptions{})
	teamPhone := numberOf(t, c.admin, f.TeamID)
	const mobile, landline = "+12025550701", "+12025550702"
	addMember(t, api, map[string]any{"name": "Mobile Kid", "phone": "2025550701"})
	kid := addMember(t, api, map[string]any{"name": "Landline Kid", "phone": "2025550702"})
	sib := addMember(t, api, map[string]any{"name": "Landline Sibling", "phone": "2025550702"}) // a second entry with the number
	outcomes := func(numbers map[string]string) {
		t.Helper()
		require.NoError(t, c.admin.Expect(ctx, 200, "PUT", "/simulator/outcomes", map[string]any{"default": "delivered", "numbers": numbers}, nil))
	}
	outcomes(map[string]string{landline: "landline"})
	failTwice := func(label string) {
		t.Helper()
		m1 := sendTo(t, api, label+" one", "families")
		require.Equal(t, 2, m1.Recipients)
		waitFor(t, 30*time.Second, func() bool { return deliveries(t, c.url, m1.ID, "failed") == 1 })
		require.False(t, markOf(t, api, kid.ID).Undeliverable, "one failure does not mark the number")
		m2 := sendTo(t, api, label+" two", "families")
		require.Equal(t, 2, m2.Recipients)
		waitFor(t, 30*time.Second, func() bool { return deliveries(t, c.url, m2.ID, "failed") == 1 })
		waitFor(t, 10*time.Second, func() bool { return markOf(t, api, kid.ID).Undeliverable })
	}

	// Two landline failures in a row: both entries with the number are marked.
	failTwice("Practice")
	k, s := markOf(t, api, kid.ID), markOf(t, api, sib.ID)
	require.True(t, s.Undeliverable, "every entry with the number")
	require.NotNil(t, k.UndeliverableSince)
	require.Equal(t, k.UndeliverableSince, s.UndeliverableSince)
	require.Equal(t, "active", k.Status, "the member stays active: only texts to the number are skipped")
	var list []marked
	require.NoError(t, do(t, api, "GET", "/members?phone=2025550702", nil).Data(&list))
	require.Len(t, list, 2)
	require.True(t, list[0].Undeliverable && list[1].Undeliverable, "lists show the mark too")

	// The estimate, validate and the next send skip it, and it costs nothing.
	var est suppressed
	require.NoError(t, do(t, api, "POST", "/messages/estimate", map[string]any{"text": "Game at 6", "audience": "families"}).Data(&est))
	require.Equal(t, suppressed{Recipients: 1, EstimatedCredits: 1, SkippedUndeliverable: 1}, est)
	var checks []struct {
		Input         string `json:"input"`
		OptedOut      bool   `json:"opted_out"`
		Undeliverable bool   `json:"undeliverable"`
	}
	r := do(t, api, "POST", "/recipients/validate", map[string]any{"phones": []string{"(202) 555-0702", "2025550701", "2025550799"}})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&checks))
	require.Len(t, checks, 3)
	require.True(t, checks[0].Undeliverable)
	require.False(t, checks[0].OptedOut)
	require.False(t, checks[1].Undeliverable)
	require.False(t, checks[2].Undeliverable, "a number not on the roster")
	before := credits(t, api).CreditsUsed
	landlineTexts := textsTo(t, c.url, f.TeamID, landline)
	require.Equal(t, 2, landlineTexts)
	m3 := sendTo(t, api, "Game at 6", "families")
	require.Equal(t, 1, m3.Recipients)
	require.Equal(t, 1, m3.Credits)
	require.Equal(t, 1, m3.SkippedUndeliverable)
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, c.url, m3.ID, "delivered") == 1 })
	require.Equal(t, before+1, credits(t, api).CreditsUsed, "the skipped number is charged nothing")
	require.Equal(t, landlineTexts, textsTo(t, c.url, f.TeamID, landline), "the landline is not texted")
	got := getMessage(t, api, m3.ID)
	require.Equal(t, 1, got.DeliveryCounts.Total)
	var again suppressed
	require.NoError(t, do(t, api, "GET", "/messages/"+m3.ID, nil).Data(&again))
	require.Equal(t, 1, again.SkippedUndeliverable, "the message keeps the count")
	// Everyone suppressed: nothing to text.
	requireCode(t, do(t, api, "POST", "/messages", map[string]any{"text": "Only the landline", "audience": "group", "group_id": landlineGroup(t, c, f, kid.ID)}), 409, "conflict")

	// The admin clears the mark: both entries, and the next send texts it.
	var cleared marked
	require.NoError(t, c.admin.Expect(ctx, 200, "DELETE", "/teams/"+f.TeamID+"/members/"+sib.ID+"/undeliverable", nil, &cleared))
	require.False(t, cleared.Undeliverable)
	require.Nil(t, cleared.UndeliverableSince)
	require.False(t, markOf(t, api, kid.ID).Undeliverable)
	// Idempotent; and the CLI's verb does the same.
	cli := exec.Command(env.bin, "admin", "members", "clear-undeliverable", "--team", f.TeamID, "--member", sib.ID)
	cli.Env = append(os.Environ(), "ADMIN_URL="+c.svc.AdminURL, "ADMIN_TOKEN="+harness.AdminToken)
	out, err := cli.Output()
	require.NoError(t, err, string(out))
	var viaCLI struct {
		Data marked `json:"data"`
	}
	require.NoError(t, json.Unmarshal(out, &viaCLI), string(out))
	require.Equal(t, sib.ID, viaCLI.Data.ID)
	require.False(t, viaCLI.Data.Undeliverable)
	other, _ := c.team(t, harness.TeamOptions{})
	r, err = c.admin.Do(ctx, "DELETE", "/teams/"+other.TeamID+"/members/"+kid.ID+"/undeliverable", nil)
	require.NoError(t, err)
	requireCode(t, r, 404, "not_found")
	m4 := sendTo(t, api, "Game moved to 7", "families")
	require.Equal(t, 2, m4.Recipients, "the cleared number is texted again")
	require.Equal(t, 0, m4.SkippedUndeliverable)
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, c.url, m4.ID, "failed") == 1 })
	require.False(t, markOf(t, api, kid.ID).Undeliverable, "the streak started again at the clear: one failure so far")

	// One more failure marks it again (two in a row since the clear); a text from the number clears it.
	m5 := sendTo(t, api, "Bring water", "families")
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, c.url, m5.ID, "failed") == 1 })
	waitFor(t, 10*time.Second, func() bool { return markOf(t, api, kid.ID).Undeliverable })
	text(t, c.admin, c.url, "2025550702", teamPhone, "who is this?")
	require.False(t, markOf(t, api, kid.ID).Undeliverable, "an inbound text clears the mark")
	require.False(t, markOf(t, api, sib.ID).Undeliverable)

	// A delivered text clears it too. It can only be one already on its way
	// when the mark came (sends skip marked numbers): the realistic carrier
	// reports 10 minutes (test clock) after each text, so two failures and
	// then a delivery to the number are all out before any report arrives.
	require.NoError(t, c.admin.Expect(ctx, 200, "PUT", "/simulator/profile", map[string]any{"name": "realistic",
		"duplicate_rate": 0, "reorder_rate": 0, "report_latency_min_ms": 600000, "report_latency_max_ms": 600000}, nil))
	handedOver := func(id string) func() bool {
		return func() bool { return deliveries(t, c.url, id, "queued") == 0 }
	}
	a := sendTo(t, api, "Late report one", "families")
	waitFor(t, 30*time.Second, handedOver(a.ID))
	b := sendTo(t, api, "Late report two", "families")
	waitFor(t, 30*time.Second, handedOver(b.ID))
	c.advance(t, 5*time.Minute)   // d goes out 5 minutes after b (its report 5 minutes after b's)
	outcomes(map[string]string{}) // the next text to the number is delivered
	d := sendTo(t, api, "Late report three", "families")
	require.Equal(t, 2, d.Recipients)
	waitFor(t, 30*time.Second, handedOver(d.ID))
	c.advance(t, 5*time.Minute+50*time.Second) // a's and b's reports are due, d's is not (for 4 minutes of real time)
	waitFor(t, 30*time.Second, func() bool { return markOf(t, api, kid.ID).Undeliverable })
	require.Equal(t, 0, deliveries(t, c.url, d.ID, "delivered"), "d's reports are still to come")
	c.advance(t, 5*time.Minute) // d's reports are due: the landline's text was delivered
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, c.url, d.ID, "delivered") == 2 })
	waitFor(t, 10*time.Second, func() bool { return !markOf(t, api, kid.ID).Undeliverable })
	require.Equal(t, 0, countRowsIn(t, c.url, `SELECT count(*) FROM roster_undeliverable WHERE team_id = $1`, f.TeamID),
		"the delivery ended the streak")
}

// landlineGroup is a group holding only memberID.
func landlineGroup(t *testing.T, c *clockEnv, f *harness.Fixture, memberID string) string {
	t.Helper()
	var g struct {
		ID string `json:"id"`
	}
	require.NoError(t, c.admin.Expect(context.Background(), 201, "POST", "/teams/"+f.TeamID+"/groups", map[string]any{"name": "Landline only"}, &g))
	api := harness.NewClient(c.svc.PublicURL+"/api/v1", f.Key)
	require.Equal(t, 200, do(t, api, "POST", "/groups/"+g.ID+"/members", map[string]any{"member_id": memberID}).Status)
	return g.ID
}

// TestResendFailed: a broadcast with mixed outcomes (delivered, a landline,
// two filtered texts, one without a final word) is resent only to the
// filtered one that is still opted in, once it is finished; the resend is
// a send like any other (credits, idempotency) and is refused when there
// is nothing (more) to resend.
func TestResendFailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := undeliverableEnv(t, "resend")
	f, api := c.team(t, harness.TeamOptions{})
	teamPhone := numberOf(t, c.admin, f.TeamID)
	addMember(t, api, map[string]any{"name": "Delivered", "phone": "2025550711"})
	addMember(t, api, map[string]any{"name": "Landline", "phone": "2025550712"})
	addMember(t, api, map[string]any{"name": "Filtered", "phone": "2025550713"})
	quitter := addMember(t, api, map[string]any{"name": "Filtered Then Stop", "phone": "2025550714"})
	addMember(t, api, map[string]any{"name": "No Word", "phone": "2025550715"})
	require.NoError(t, c.admin.Expect(ctx, 200, "PUT", "/simulator/outcomes", map[string]any{"default": "delivered",
		"numbers": map[string]string{"+12025550712": "landline", "+12025550713": "filtered", "+12025550714": "filtered", "+12025550715": "unconfirmed"}}, nil))
	m := sendTo(t, api, "Tryouts Saturday", "families")
	require.Equal(t, 5, m.Recipients)
	waitFor(t, 30*time.Second, func() bool {
		return deliveries(t, c.url, m.ID, "delivered") == 1 && deliveries(t, c.url, m.ID, "failed") == 3 && deliveries(t, c.url, m.ID, "sent") == 1
	})
	resend := func(id string, body any, headers ...string) *harness.Response {
		t.Helper()
		r, err := api.Do(ctx, "POST", "/messages/"+id+"/resend", body, headers...)
		require.NoError(t, err)
		return r
	}
	only := map[string]any{"only": "failed"}
	requireCode(t, resend(m.ID, only), 409, "conflict") // one text still has no final word
	requireCode(t, resend(m.ID, map[string]any{"only": "all"}), 400, "invalid_request")
	requireCode(t, resend(m.ID, map[string]any{}), 400, "invalid_request")
	requireCode(t, resend("msg_nope", only), 404, "not_found")
	_, otherAPI := c.team(t, harness.TeamOptions{})
	r, err := otherAPI.Do(ctx, "POST", "/messages/"+m.ID+"/resend", only)
	require.NoError(t, err)
	requireCode(t, r, 404, "not_found")

	// The last one ends unconfirmed; the second filtered recipient texts STOP.
	c.advance(t, 72*time.Hour+time.Minute)
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, c.url, m.ID, "delivery_unconfirmed") == 1 })
	text(t, c.admin, c.url, "2025550714", teamPhone, "STOP")
	require.Equal(t, "opted_out", memberStatus(t, api, quitter.ID))
	require.NoError(t, c.admin.Expect(ctx, 200, "PUT", "/simulator/outcomes", map[string]any{"default": "delivered", "numbers": map[string]string{}}, nil))

	before := credits(t, api).CreditsUsed
	r = resend(m.ID, only, "Idempotency-Key", "resend-1")
	require.Equal(t, 201, r.Status, string(r.Body))
	var rs suppressed
	require.NoError(t, r.Data(&rs))
	require.NotEqual(t, m.ID, rs.ID)
	require.Equal(t, "queued", rs.Status)
	require.Equal(t, 1, rs.Recipients, "only the filtered recipient still opted in: not the delivered, the landline, the unconfirmed or the opted-out one")
	require.NotNil(t, rs.ResendOf)
	require.Equal(t, m.ID, *rs.ResendOf)
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, c.url, rs.ID, "delivered") == 1 })
	require.Equal(t, 1, countRowsIn(t, c.url, `SELECT count(*) FROM messaging_deliveries WHERE message_id = $1 AND phone = '+12025550713'`, rs.ID))
	require.Equal(t, before+1, credits(t, api).CreditsUsed, "charged like any send")
	got := getMessage(t, api, rs.ID)
	require.Contains(t, got.RenderedText, "Tryouts Saturday")

	// The same key answers the first answer; without it, a second resend is refused.
	r = resend(m.ID, only, "Idempotency-Key", "resend-1")
	require.Equal(t, 201, r.Status, string(r.Body))
	require.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
	var replay suppressed
	require.NoError(t, r.Data(&replay))
	require.Equal(t, rs.ID, replay.ID)
	requireCode(t, resend(m.ID, only), 409, "conflict")  // resent already
	requireCode(t, resend(rs.ID, only), 409, "conflict") // nothing of the resend failed
	require.Equal(t, before+1, credits(t, api).CreditsUsed)
	require.Equal(t, 2, messageCount(t, c.url, f.TeamID))
}

// TestTwilioLandlineSuppressed: with CARRIER=twilio, two status callbacks
// with Twilio's landline code (30006) for a number mark it, by Twilio's own
// code table, and the next send does not hand it to Twilio.
func TestTwilioLandlineSuppressed(t *testing.T) {
	t.Parallel()
	fake := newFakeTwilioAPI(t)
	svc, dbURL := startTwilioService(t, "twilio_landline", fake.URL, "TWILIO_RATE=20")
	admin := harness.NewClient(svc.AdminURL+"/admin/v1", harness.AdminToken)
	_, api := newTeamOn(t, admin, svc, harness.TeamOptions{Extra: map[string]any{"number": teamNumber()}})
	addMember(t, api, map[string]any{"name": "Ada", "phone": "2025550621"})
	lan := addMember(t, api, map[string]any{"name": "Lan", "phone": "2025550622"})
	const mobile, landline = "+12025550621", "+12025550622"

	var seen []string // the landline's callbacks so far: one per text
	broadcastAndFail := func(text string) {
		t.Helper()
		m := sendTo(t, api, text, "families")
		require.Equal(t, 2, m.Recipients)
		waitFor(t, 30*time.Second, func() bool {
			cb := fake.callback(landline)
			return cb != "" && !slices.Contains(seen, cb) && fake.callback(mobile) != ""
		})
		cb := fake.callback(landline)
		seen = append(seen, cb)
		postTwilioStatus(t, svc, cb, "SMx"+cb[len(cb)-6:], landline, "undelivered", "30006")
		waitFor(t, 30*time.Second, func() bool { return deliveries(t, dbURL, m.ID, "failed") == 1 })
	}
	broadcastAndFail("Practice at 6")
	require.False(t, markOf(t, api, lan.ID).Undeliverable)
	broadcastAndFail("Practice at 7")
	waitFor(t, 10*time.Second, func() bool { return markOf(t, api, lan.ID).Undeliverable })

	m := sendTo(t, api, "Practice at 8", "families")
	require.Equal(t, 1, m.Recipients)
	require.Equal(t, 1, m.SkippedUndeliverable)
	waitFor(t, 30*time.Second, func() bool { return deliveries(t, dbURL, m.ID, "queued") == 0 })
	require.Len(t, seen, 2)
	require.Equal(t, seen[1], fake.callback(landline), "Twilio was not asked to text the landline again")
}
