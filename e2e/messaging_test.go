package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

type sent struct {
	ID                   string `json:"id"`
	Kind                 string `json:"kind"`
	Status               string `json:"status"`
	RenderedText         string `json:"rendered_text"`
	Encoding             string `json:"encoding"`
	SegmentsPerRecipient int    `json:"segments_per_recipient"`
	Recipients           int    `json:"recipients"`
	DeliveryCounts       struct {
		Total       int `json:"total"`
		Queued      int `json:"queued"`
		Sent        int `json:"sent"`
		Delivered   int `json:"delivered"`
		Failed      int `json:"failed"`
		Unconfirmed int `json:"delivery_unconfirmed"`
	} `json:"delivery_counts"`
	ScheduledFor *time.Time `json:"scheduled_for"`
}

// messagingTeam is a team with a number and a few members.
func messagingTeam(t testing.TB, o harness.TeamOptions) (*harness.Fixture, *harness.Client) {
	t.Helper()
	if o.Extra == nil {
		o.Extra = map[string]any{}
	}
	if _, ok := o.Extra["number"]; !ok {
		o.Extra["number"] = teamNumber()
	}
	return newTeamOn(t, env.admin, env.svc, o)
}

var numberSeq atomic.Int64

// numberBase starts this process's numbers at a random place of the
// 90,000 teamNumber has, so runs do not reuse each other's; within the
// process the sequence keeps them distinct (a time read per call did not:
// two calls could land on the same number, and a team's POST got 409).
var numberBase = time.Now().UnixNano() % 90000

// teamNumber returns a distinct, valid team number (+1 202 55X XXXX, X≠5).
func teamNumber() string {
	n := (numberBase + numberSeq.Add(1)) % 90000
	ex := []int{0, 1, 2, 3, 4, 6, 7, 8, 9}[n%9]
	return fmt.Sprintf("+120255%d%04d", ex, (n/9)%10000)
}

// newTeamOn makes a team on any service.
func newTeamOn(t testing.TB, admin *harness.Client, svc *harness.Service, o harness.TeamOptions) (*harness.Fixture, *harness.Client) {
	t.Helper()
	f, err := harness.NewTeam(context.Background(), admin, o)
	require.NoError(t, err)
	return f, harness.NewClient(svc.PublicURL+"/api/v1", f.Key)
}

func outbox(t testing.TB, admin *harness.Client, teamID string) []map[string]any {
	t.Helper()
	return listAll(t, admin, "/simulator/outbox?team_id="+teamID)
}

func getMessage(t *testing.T, api *harness.Client, id string) sent {
	t.Helper()
	var m sent
	r := do(t, api, "GET", "/messages/"+id, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&m))
	return m
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	ctx := context.Background()
	var tpl struct {
		ID, Name, Body string
		MessageType    string `json:"message_type"`
	}
	r := do(t, api, "POST", "/templates", map[string]any{"name": "Practice", "body": "Practice at 5"})
	require.Equal(t, 201, r.Status, string(r.Body))
	require.NoError(t, r.Data(&tpl))
	require.Equal(t, "standard", tpl.MessageType)
	requireCode(t, do(t, api, "POST", "/templates", map[string]any{"name": "practice", "body": "x"}), 409, "template_exists")
	requireCode(t, do(t, api, "POST", "/templates", map[string]any{"name": "U", "body": "x", "message_type": "urgent_alert"}), 400, "urgent_not_allowed")
	requireCode(t, do(t, api, "POST", "/templates", map[string]any{"name": "U", "body": "x", "message_type": "spam"}), 400, "invalid_request")
	requireCode(t, do(t, api, "PATCH", "/templates/"+tpl.ID, map[string]any{"message_type": "urgent_alert"}), 400, "urgent_not_allowed")
	r = do(t, api, "PATCH", "/templates/"+tpl.ID, map[string]any{"body": "Practice at 6", "message_type": "reminder"})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, 204, do(t, api, "DELETE", "/templates/"+tpl.ID, nil).Status)
	requireCode(t, do(t, api, "GET", "/templates/"+tpl.ID, nil), 404, "not_found")
	// Reusing the deleted name restores it (same id), with the new body.
	r = do(t, api, "POST", "/templates", map[string]any{"name": "Practice", "body": "Practice moved to 7"})
	require.Equal(t, 201, r.Status)
	require.Equal(t, "true", r.Header.Get("Template-Restored"))
	var restored struct{ ID, Body string }
	require.NoError(t, r.Data(&restored))
	require.Equal(t, tpl.ID, restored.ID)
	require.Equal(t, "Practice moved to 7", restored.Body)

	// Urgent-alert templates come from the dashboard and are protected.
	var urgent struct{ ID string }
	require.NoError(t, env.admin.Expect(ctx, 201, "POST", "/teams/"+f.TeamID+"/templates", map[string]any{"name": "Storm", "body": "Lightning: clear the field", "message_type": "urgent_alert"}, &urgent))
	requireCode(t, do(t, api, "PATCH", "/templates/"+urgent.ID, map[string]any{"body": "x"}), 403, "template_protected")
	requireCode(t, do(t, api, "DELETE", "/templates/"+urgent.ID, nil), 403, "template_protected")
	requireCode(t, do(t, api, "POST", "/messages", map[string]any{"template_id": urgent.ID, "audience": "all"}), 400, "urgent_not_allowed")

	// 200 per team.
	for i := 0; i < 197; i++ {
		require.NoError(t, env.admin.Expect(ctx, 201, "POST", "/teams/"+f.TeamID+"/templates", map[string]any{"name": fmt.Sprintf("T%d", i), "body": "b"}, nil))
	}
	require.Equal(t, 201, do(t, api, "POST", "/templates", map[string]any{"name": "Last", "body": "b"}).Status)
	requireCode(t, do(t, api, "POST", "/templates", map[string]any{"name": "One more", "body": "b"}), 409, "template_limit")

	_, other := messagingTeam(t, harness.TeamOptions{})
	requireCode(t, do(t, other, "GET", "/templates/"+restored.ID, nil), 404, "not_found")
	requireCode(t, do(t, other, "PATCH", "/templates/"+restored.ID, map[string]any{"body": "x"}), 404, "not_found")
	requireCode(t, do(t, other, "DELETE", "/templates/"+restored.ID, nil), 404, "not_found")
	requireCode(t, do(t, other, "POST", "/messages", map[string]any{"template_id": restored.ID, "audience": "all"}), 404, "not_found")
}

func TestSendValidation(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550201"})
	r := do(t, api, "POST", "/custom-fields", map[string]any{"label": "Medical", "key": "medical", "private": true})
	require.Equal(t, 201, r.Status)
	g := adminGroup(t, f.TeamID, "G")
	soon := time.Now().Add(30 * time.Second).Format(time.RFC3339)
	later := time.Now().Add(2 * time.Hour).Format(time.RFC3339)
	tooFar := time.Now().Add(400 * 24 * time.Hour).Format(time.RFC3339)
	for _, tc := range []struct {
		name string
		body map[string]any
		code string
	}{
		{"no text", map[string]any{"audience": "all"}, "invalid_request"},
		{"text and template", map[string]any{"text": "x", "template_id": "tpl_x", "audience": "all"}, "invalid_request"},
		{"no audience", map[string]any{"text": "x"}, "invalid_request"},
		{"bad audience", map[string]any{"text": "x", "audience": "everyone"}, "invalid_request"},
		{"group without id", map[string]any{"text": "x", "audience": "group"}, "invalid_group"},
		{"unknown group", map[string]any{"text": "x", "audience": "group", "group_id": "grp_nope"}, "invalid_group"},
		{"group id with all", map[string]any{"text": "x", "audience": "all", "group_id": g}, "invalid_group"},
		{"merge tag", map[string]any{"text": "Hi {first_name}", "audience": "all"}, "merge_tags_unsupported"},
		{"merge tag with spaces", map[string]any{"text": "Hi { First_Name }", "audience": "all"}, "merge_tags_unsupported"},
		{"private field tag", map[string]any{"text": "Meds: {Medical}", "audience": "all"}, "private_field"},
		{"scheduled too soon", map[string]any{"text": "x", "audience": "all", "scheduled_for": soon}, "invalid_scheduled_for"},
		{"scheduled in the past", map[string]any{"text": "x", "audience": "all", "scheduled_for": "2020-01-01T00:00:00Z"}, "invalid_scheduled_for"},
		{"scheduled too far", map[string]any{"text": "x", "audience": "all", "scheduled_for": tooFar}, "invalid_scheduled_for"},
		{"scheduled without offset", map[string]any{"text": "x", "audience": "all", "scheduled_for": "2030-01-01T10:00:00"}, "invalid_scheduled_for"},
		{"repeat without schedule", map[string]any{"text": "x", "audience": "all", "repeat": map[string]any{"every": "week", "until": "2027-01-01"}}, "invalid_repeat"},
		{"repeat every day", map[string]any{"text": "x", "audience": "all", "scheduled_for": later, "repeat": map[string]any{"every": "day", "until": "2027-01-01"}}, "invalid_repeat"},
		{"repeat until too far", map[string]any{"text": "x", "audience": "all", "scheduled_for": later, "repeat": map[string]any{"every": "week", "until": time.Now().AddDate(1, 1, 0).Format("2006-01-02")}}, "invalid_repeat"},
		{"repeat until not a date", map[string]any{"text": "x", "audience": "all", "scheduled_for": later, "repeat": map[string]any{"every": "week", "until": "soon"}}, "invalid_repeat"},
		{"unknown field", map[string]any{"text": "x", "audience": "all", "priority": "high"}, "unknown_field"},
		{"urgent flag", map[string]any{"text": "x", "audience": "all", "urgent": true}, "unknown_field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/messages", "/messages/estimate"} {
				r := do(t, api, "POST", path, tc.body)
				require.Equal(t, 400, r.Status, "%s %s", path, r.Body)
				require.Equal(t, tc.code, r.ErrorCode(), "%s %s", path, r.Body)
			}
		})
	}
	require.Empty(t, outbox(t, env.admin, f.TeamID), "nothing was sent")
}

func TestSendGates(t *testing.T) {
	t.Parallel()
	// No number to send from.
	_, noNumber := newTeam(t, harness.TeamOptions{})
	addMember(t, noNumber, map[string]any{"name": "A", "phone": "2025550211"})
	requireCode(t, do(t, noNumber, "POST", "/messages", map[string]any{"text": "x", "audience": "all"}), 409, "no_sender")

	// Overdue renewal pauses sending.
	f, api := messagingTeam(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550212"})
	patchTeam(t, f.TeamID, map[string]any{"payment_state": "overdue"})
	requireCode(t, do(t, api, "POST", "/messages", map[string]any{"text": "x", "audience": "all"}), 402, "payment_required")
	requireCode(t, do(t, api, "POST", "/messages/estimate", map[string]any{"text": "x", "audience": "all"}), 402, "payment_required")
	patchTeam(t, f.TeamID, map[string]any{"payment_state": "ok"})
	require.Equal(t, 201, do(t, api, "POST", "/messages", map[string]any{"text": "x", "audience": "all"}).Status)

	// Trial credits cap a trial send.
	tf, trial := messagingTeam(t, harness.TeamOptions{Extra: map[string]any{"trial": true, "trial_credits": 2}})
	for i := 0; i < 3; i++ {
		addMember(t, trial, map[string]any{"name": fmt.Sprint("M", i), "phone": fmt.Sprintf("20255502%02d", 20+i)})
	}
	requireCode(t, do(t, trial, "POST", "/messages", map[string]any{"text": "x", "audience": "families"}), 402, "trial_limit")
	require.Empty(t, outbox(t, env.admin, tf.TeamID))

	// Nobody to text.
	_, empty := messagingTeam(t, harness.TeamOptions{})
	requireCode(t, do(t, empty, "POST", "/messages", map[string]any{"text": "x", "audience": "families"}), 409, "conflict")

	// Writes need a card; the estimate does not.
	_, noCard := messagingTeam(t, harness.TeamOptions{CardOnFile: new(bool)})
	requireCode(t, do(t, noCard, "POST", "/messages", map[string]any{"text": "x", "audience": "all"}), 403, "card_required")
	r := do(t, noCard, "POST", "/messages/estimate", map[string]any{"text": "x", "audience": "all"})
	require.Equal(t, 200, r.Status, string(r.Body))
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550230"})
	addMember(t, api, map[string]any{"name": "B", "phone": "2025550230", "role": "guardian"}) // same number: one text
	addMember(t, api, map[string]any{"name": "C", "phone": "2025550231"})
	var team struct{ Name string }
	require.NoError(t, do(t, api, "GET", "/team", nil).Data(&team))
	var e struct {
		Recipients           int    `json:"recipients"`
		SegmentsPerRecipient int    `json:"segments_per_recipient"`
		EstimatedCredits     int    `json:"estimated_credits"`
		ApprovalRequired     bool   `json:"approval_required"`
		Encoding             string `json:"encoding"`
		RenderedText         string `json:"rendered_text"`
		Prefix               string `json:"prefix"`
		OptOutLine           string `json:"opt_out_line"`
	}
	r := do(t, api, "POST", "/messages/estimate", map[string]any{"text": "Practice is at 5pm today.", "audience": "all"})
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NoError(t, r.Data(&e))
	require.Equal(t, 3, e.Recipients, "coach + two distinct numbers")
	require.Equal(t, team.Name+": ", e.Prefix)
	require.Equal(t, "Reply STOP to opt out.", e.OptOutLine)
	require.Equal(t, team.Name+": Practice is at 5pm today.\nReply STOP to opt out.", e.RenderedText)
	require.Equal(t, "GSM-7", e.Encoding)
	require.Equal(t, 1, e.SegmentsPerRecipient)
	require.Equal(t, 3, e.EstimatedCredits)

	// One emoji makes UCS-2; a long text needs more segments.
	r = do(t, api, "POST", "/messages/estimate", map[string]any{"text": strings.Repeat("Go team ", 10) + "⚽", "audience": "families"})
	require.NoError(t, r.Data(&e))
	require.Equal(t, "UCS-2", e.Encoding)
	require.Equal(t, 2, e.Recipients)
	require.Equal(t, 2, e.SegmentsPerRecipient)
	require.Equal(t, 4, e.EstimatedCredits)

	// Estimates do not count toward the send limit, and send nothing.
	for i := 0; i < 25; i++ {
		require.Equal(t, 200, do(t, api, "POST", "/messages/estimate", map[string]any{"text": "x", "audience": "all"}).Status)
	}
	require.Empty(t, outbox(t, env.admin, f.TeamID))
	r = do(t, api, "POST", "/messages", map[string]any{"text": "x", "audience": "all"})
	require.Equal(t, 201, r.Status, string(r.Body))
}

func TestSendThroughSimulator(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	a := addMember(t, api, map[string]any{"name": "A", "phone": "2025550240"})
	addMember(t, api, map[string]any{"name": "A's dad", "phone": "2025550240", "role": "guardian"})
	b := addMember(t, api, map[string]any{"name": "B", "phone": "2025550241"})
	addMember(t, api, map[string]any{"name": "C", "phone": "2025550242"})
	require.Equal(t, 200, do(t, api, "POST", "/opt-outs", map[string]any{"phone": "2025550242"}).Status)
	blocked := adminMember(t, f.TeamID, map[string]any{"name": "Blocked", "phone": "2025550243", "role": "athlete"})
	patchMember(t, f, blocked, map[string]any{"is_blocked": true})
	adminMember(t, f.TeamID, map[string]any{"name": "Pending", "phone": "2025550244", "role": "athlete", "status": "pending"})

	r := do(t, api, "POST", "/messages", map[string]any{"text": "Game on Saturday", "audience": "families"})
	require.Equal(t, 201, r.Status, string(r.Body))
	var m sent
	require.NoError(t, r.Data(&m))
	require.Equal(t, "message", m.Kind)
	require.Equal(t, "queued", m.Status)
	require.Equal(t, 2, m.Recipients, "one text per number; opted-out, blocked and pending members are never texted")

	waitFor(t, 30*time.Second, func() bool { return deliveries(t, env.pg.URL, m.ID, "delivered") == 2 })
	box := outbox(t, env.admin, f.TeamID)
	require.Len(t, box, 2)
	tos := []string{box[0]["to"].(string), box[1]["to"].(string)}
	require.ElementsMatch(t, []string{"+12025550240", "+12025550241"}, tos)
	require.Contains(t, box[0]["body"], ": Game on Saturday\nReply STOP to opt out.")
	got := getMessage(t, api, m.ID)
	require.Equal(t, "sent", got.Status)
	require.Equal(t, 2, got.DeliveryCounts.Total)

	// The report: one row per number, masked phones, member ids.
	r = do(t, api, "GET", "/messages/"+m.ID+"/deliveries", nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	var rows []struct {
		Phone     string   `json:"phone"`
		Status    string   `json:"status"`
		MemberIDs []string `json:"member_ids"`
		Provider  *string  `json:"provider_message_id"`
	}
	require.NoError(t, r.Data(&rows))
	require.Len(t, rows, 2)
	for _, row := range rows {
		require.Regexp(t, `^\*\*\*\d{4}$`, row.Phone)
		require.Equal(t, "delivered", row.Status)
		require.NotNil(t, row.Provider)
		if row.Phone == "***0240" {
			require.Len(t, row.MemberIDs, 2)
			require.Contains(t, row.MemberIDs, a.ID)
		} else {
			require.Equal(t, []string{b.ID}, row.MemberIDs)
		}
	}
	require.Equal(t, 2, eventCount(t, f.TeamID, "message.status"))
	// Delivery ids are built by the insert from one UUIDv7 per send and the
	// position: the usual form, in position order.
	require.Equal(t, 2, countRows(t, `SELECT count(*) FROM messaging_deliveries d WHERE message_id = $1
AND id ~ '^dlv_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$' AND id = left(id, 28) || lpad(to_hex(seq), 8, '0')`, m.ID))

	// GET /messages lists it with counts; another team cannot see it.
	r = do(t, api, "GET", "/messages", nil)
	require.Contains(t, string(r.Body), m.ID)
	_, other := messagingTeam(t, harness.TeamOptions{})
	requireCode(t, do(t, other, "GET", "/messages/"+m.ID, nil), 404, "not_found")
	requireCode(t, do(t, other, "GET", "/messages/"+m.ID+"/deliveries", nil), 404, "not_found")
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	_, api := messagingTeam(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550250"})
	ctx := context.Background()
	body := map[string]any{"text": "Once only", "audience": "families"}
	r1, err := api.Do(ctx, "POST", "/messages", body, "Idempotency-Key", "abc-123")
	require.NoError(t, err)
	require.Equal(t, 201, r1.Status, string(r1.Body))
	r2, err := api.Do(ctx, "POST", "/messages", body, "Idempotency-Key", "abc-123")
	require.NoError(t, err)
	require.Equal(t, 201, r2.Status)
	require.Equal(t, "true", r2.Header.Get("Idempotent-Replayed"))
	var m1, m2 sent
	require.NoError(t, r1.Data(&m1))
	require.NoError(t, r2.Data(&m2))
	require.Equal(t, m1.ID, m2.ID)
	r3, err := api.Do(ctx, "POST", "/messages", map[string]any{"text": "Something else", "audience": "families"}, "Idempotency-Key", "abc-123")
	require.NoError(t, err)
	requireCode(t, r3, 409, "conflict")
	r4, err := api.Do(ctx, "POST", "/messages", body, "Idempotency-Key", "other")
	require.NoError(t, err)
	require.Equal(t, 201, r4.Status)
	var list struct {
		Data []sent `json:"data"`
	}
	require.NoError(t, do(t, api, "GET", "/messages", nil).JSON(&list))
	require.Len(t, list.Data, 2, "the replay did not send again")
}

func TestApprovals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f, api := messagingTeam(t, harness.TeamOptions{Extra: map[string]any{"approval_required": true}})
	addMember(t, api, map[string]any{"name": "A", "phone": "2025550260"})
	var e struct {
		ApprovalRequired bool `json:"approval_required"`
	}
	require.NoError(t, do(t, api, "POST", "/messages/estimate", map[string]any{"text": "x", "audience": "families"}).Data(&e))
	require.True(t, e.ApprovalRequired)
	send := func(text string) sent {
		r := do(t, api, "POST", "/messages", map[string]any{"text": text, "audience": "families"})
		require.Equal(t, 201, r.Status, string(r.Body))
		var m sent
		require.NoError(t, r.Data(&m))
		require.Equal(t, "pending_approval", m.Status)
		return m
	}
	ok, no := send("approve me"), send("reject me")
	var queue []sent
	require.NoError(t, env.admin.Expect(ctx, 200, "GET", "/teams/"+f.TeamID+"/approvals", nil, &queue))
	require.Len(t, queue, 2)

	athlete := adminMember(t, f.TeamID, map[string]any{"name": "Assistant", "phone": "2025550261", "role": "coach"})
	r, err := env.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/approvals/"+ok.ID+"/approve", map[string]any{"member_id": athlete})
	require.NoError(t, err)
	requireCode(t, r, 403, "forbidden")
	require.NoError(t, env.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/approvals/"+ok.ID+"/approve", map[string]any{"member_id": f.CoachID}, nil))
	require.NoError(t, env.admin.Expect(ctx, 200, "POST", "/teams/"+f.TeamID+"/approvals/"+no.ID+"/reject", map[string]any{"member_id": f.CoachID}, nil))
	r, err = env.admin.Do(ctx, "POST", "/teams/"+f.TeamID+"/approvals/"+no.ID+"/approve", map[string]any{"member_id": f.CoachID})
	require.NoError(t, err)
	requireCode(t, r, 409, "conflict")

	waitFor(t, 30*time.Second, func() bool { return deliveries(t, env.pg.URL, ok.ID, "delivered") == 1 })
	require.Equal(t, "rejected", getMessage(t, api, no.ID).Status)
	box := outbox(t, env.admin, f.TeamID)
	require.Len(t, box, 1)
	require.Contains(t, box[0]["body"], "approve me")
}
