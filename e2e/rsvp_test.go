package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/e2e/harness"
)

// RSVP by reply: polls, answers by text, tallies.

// pollAnswers is GET /messages/{id}/responses.
type pollAnswers struct {
	MessageID    string     `json:"message_id"`
	ReplyOptions []string   `json:"reply_options"`
	ReplyUntil   *time.Time `json:"reply_until"`
	Tallies      []struct {
		Option string `json:"option"`
		Count  int    `json:"count"`
	} `json:"tallies"`
	NoResponse int `json:"no_response"`
	Data       []struct {
		Member struct {
			ID     string `json:"id"`
			Name   string `json:"name"`
			Phone  string `json:"phone"`
			Role   string `json:"role"`
			Status string `json:"status"`
		} `json:"member"`
		Option           string    `json:"option"`
		ReceivedAt       time.Time `json:"received_at"`
		InboundMessageID string    `json:"inbound_message_id"`
	} `json:"data"`
	Pagination struct {
		Limit   int  `json:"limit"`
		Offset  int  `json:"offset"`
		HasMore bool `json:"has_more"`
	} `json:"pagination"`
}

func (p pollAnswers) tallies() map[string]int {
	out := map[string]int{}
	for _, t := range p.Tallies {
		out[t.Option] = t.Count
	}
	return out
}

// getResponses reads a poll's answers, every page (limit 200: each page
// counts in the heavy pool of 10 a minute).
func getResponses(t *testing.T, api *harness.Client, messageID string) pollAnswers {
	t.Helper()
	var all pollAnswers
	for offset := 0; ; offset += 200 {
		r := do(t, api, "GET", fmt.Sprintf("/messages/%s/responses?limit=200&offset=%d", messageID, offset), nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		var page pollAnswers
		require.NoError(t, r.JSON(&page))
		data := append(all.Data, page.Data...)
		all = page
		all.Data = data
		if !page.Pagination.HasMore {
			return all
		}
	}
}

// listAll reads every page of a list operation (limit 200); path may have
// a query of its own.
func listAll(t testing.TB, api *harness.Client, path string) []map[string]any {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var all []map[string]any
	for offset := 0; ; offset += 200 {
		r := do(t, api, "GET", fmt.Sprintf("%s%slimit=200&offset=%d", path, sep, offset), nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		var page struct {
			Data       []map[string]any `json:"data"`
			Pagination struct {
				HasMore bool `json:"has_more"`
			} `json:"pagination"`
		}
		require.NoError(t, r.JSON(&page))
		all = append(all, page.Data...)
		if !page.Pagination.HasMore {
			return all
		}
	}
}

// sendPoll sends a poll and waits until every text was handed over.
func sendPoll(t *testing.T, api *harness.Client, url string, body map[string]any, recipients int) string {
	t.Helper()
	r := do(t, api, "POST", "/messages", body)
	require.Equal(t, 201, r.Status, string(r.Body))
	var m struct {
		ID         string `json:"id"`
		Recipients int    `json:"recipients"`
	}
	require.NoError(t, r.Data(&m))
	require.Equal(t, recipients, m.Recipients)
	waitFor(t, 120*time.Second, func() bool {
		return countRowsIn(t, url, `SELECT count(*) FROM messaging_deliveries WHERE message_id = $1 AND sent_at IS NOT NULL`, m.ID) == recipients
	})
	return m.ID
}

// injectAll texts the team number through the simulator, 16 callbacks at
// a time, and waits until every text is filed.
func injectAll(t *testing.T, admin *harness.Client, url, teamID, to string, texts [][2]string, filedBefore int) {
	t.Helper()
	ctx := context.Background()
	run := time.Now().UnixNano()
	work := make(chan int)
	errs := make(chan error, len(texts))
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				req := map[string]any{"from": texts[i][0], "to": to, "body": texts[i][1], "provider_message_id": fmt.Sprintf("SMrsvp%d_%d", run, i)}
				if err := admin.Expect(ctx, 202, "POST", "/simulator/inbound", req, nil); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range texts {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	want := filedBefore + len(texts)
	waitFor(t, 120*time.Second, func() bool {
		return countRowsIn(t, url, `SELECT count(*) FROM messaging_inbound WHERE team_id = $1`, teamID) == want
	})
}

// TestRSVPPoll: a poll to 500 recipients (one number on the roster twice,
// a parent of an athlete) with 310 texts from 300 numbers: answers in
// every case and with punctuation, ten changes of mind, five texts that
// match no option and a STOP. The tallies are exact, one message.response
// reaches the integrator per answer recorded, the parent's one answer
// counts for both entries, every text is in the inbound list (and all but
// the STOP in the inbox) with response_to, and the poll closes at its
// reply_until. Another team gets 404; a plain message has no tallies.
func TestRSVPPoll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rcv := newReceiver(t)
	h := startHookService(t, "rsvp_poll", rcv, "CLOCK=test")
	f, api := newTeamOn(t, h.admin, h.svc, harness.TeamOptions{Extra: map[string]any{"number": teamNumber()}})
	var team struct {
		Number string `json:"number"`
	}
	require.NoError(t, do(t, api, "GET", "/team", nil).Data(&team))
	const block, athletes = 6, 500
	importMembers(t, h.admin, f.TeamID, block, athletes)
	phone := func(n int) string { return harness.Phone(block, n) }
	parent := addMember(t, api, map[string]any{"name": "Parent of 0", "phone": phone(0), "role": "guardian"})
	hook := whCreate(t, api, rcv.URL("/rsvp"), "message.response")
	require.Equal(t, []string{"message.response"}, hook.Events)

	// The estimate counts the reply line.
	var est struct {
		Recipients           int     `json:"recipients"`
		SegmentsPerRecipient int     `json:"segments_per_recipient"`
		EstimatedCredits     int     `json:"estimated_credits"`
		RenderedText         string  `json:"rendered_text"`
		ReplyLine            *string `json:"reply_line"`
	}
	long := strings.Repeat("x", 100) // one segment alone (a 27-character prefix), two with the reply line
	plainEst := do(t, api, "POST", "/messages/estimate", map[string]any{"text": long, "audience": "families"})
	require.Equal(t, 200, plainEst.Status, string(plainEst.Body))
	require.NoError(t, plainEst.Data(&est))
	require.Equal(t, 1, est.SegmentsPerRecipient, est.RenderedText)
	require.Nil(t, est.ReplyLine)
	require.NoError(t, api.Expect(ctx, 200, "POST", "/messages/estimate",
		map[string]any{"text": long, "audience": "families", "reply_options": []string{"yes", "No", "MAYBE"}}, &est))
	require.True(t, strings.HasSuffix(est.RenderedText, "\nReply YES, NO or MAYBE"), est.RenderedText)
	require.Equal(t, "Reply YES, NO or MAYBE", *est.ReplyLine)
	require.Equal(t, 2, est.SegmentsPerRecipient)
	require.Equal(t, athletes, est.Recipients)
	require.Equal(t, 2*athletes, est.EstimatedCredits)

	// The poll.
	id := sendPoll(t, api, h.url, map[string]any{"text": "Practice moved to Sat 9am. Coming?", "audience": "families",
		"reply_options": []string{"yes", "No", "MAYBE"}}, athletes)
	var msg struct {
		RenderedText string     `json:"rendered_text"`
		ReplyOptions []string   `json:"reply_options"`
		ReplyUntil   *time.Time `json:"reply_until"`
		CreatedAt    time.Time  `json:"created_at"`
		Credits      int        `json:"credits"`
	}
	require.NoError(t, do(t, api, "GET", "/messages/"+id, nil).Data(&msg))
	require.Equal(t, []string{"YES", "NO", "MAYBE"}, msg.ReplyOptions)
	require.NotNil(t, msg.ReplyUntil)
	require.WithinDuration(t, msg.CreatedAt.Add(7*24*time.Hour), *msg.ReplyUntil, time.Second)
	require.True(t, strings.HasSuffix(msg.RenderedText, "\nReply YES, NO or MAYBE"), msg.RenderedText)
	box := outbox(t, h.admin, f.TeamID)
	require.Len(t, box, athletes)
	require.True(t, strings.HasSuffix(fmt.Sprint(box[0]["body"]), "Reply YES, NO or MAYBE"))

	// 300 numbers answer: number n answers opts[n%3] in one of several
	// spellings; 10..19 answer NO first and change their minds to YES;
	// 20..24 send something else; 25 sends STOP.
	opts := []string{"YES", "NO", "MAYBE"}
	spell := []string{"%s", "%s!", " %s, see you", "%s.", "%s\nthanks"}
	final := map[string]string{} // member phone → recorded option
	var first, second [][2]string
	for n := range 300 {
		switch {
		case n >= 20 && n <= 24:
			first = append(first, [2]string{phone(n), "what time?"})
		case n == 25:
			first = append(first, [2]string{phone(n), "STOP"})
		case n >= 10 && n <= 19:
			first = append(first, [2]string{phone(n), "no"})
			second = append(second, [2]string{phone(n), "Yes! changed my mind"})
			final[phone(n)] = "YES"
		default:
			o := opts[n%3]
			word := o
			switch n % 4 {
			case 1:
				word = strings.ToLower(o)
			case 2:
				word = strings.ToUpper(o[:1]) + strings.ToLower(o[1:])
			}
			first = append(first, [2]string{phone(n), fmt.Sprintf(spell[n%len(spell)], word)})
			final[phone(n)] = o
		}
	}
	injectAll(t, h.admin, h.url, f.TeamID, team.Number, first, 0)
	injectAll(t, h.admin, h.url, f.TeamID, team.Number, second, len(first))

	want := map[string]int{}
	for _, o := range final {
		want[o]++
	}
	want[final[phone(0)]]++ // the parent's entry answers with athlete 0's number
	recorded := len(final) + 1
	got := getResponses(t, api, id)
	require.Equal(t, id, got.MessageID)
	require.Equal(t, []string{"YES", "NO", "MAYBE"}, got.ReplyOptions)
	require.Equal(t, want, got.tallies())
	require.Equal(t, []string{"YES", "NO", "MAYBE"}, []string{got.Tallies[0].Option, got.Tallies[1].Option, got.Tallies[2].Option})
	require.Equal(t, athletes+1-recorded, got.NoResponse)
	require.Len(t, got.Data, recorded)
	byMember := map[string]string{}
	for _, a := range got.Data {
		byMember[a.Member.ID] = a.Option
		require.Equal(t, final[a.Member.Phone], a.Option, a.Member.Phone)
		require.NotEmpty(t, a.InboundMessageID)
	}
	require.Len(t, byMember, recorded, "one answer per roster entry")
	require.Equal(t, final[phone(0)], byMember[parent.ID], "the parent answered with the athlete's number")
	for i := 1; i < len(got.Data); i++ {
		require.False(t, got.Data[i].ReceivedAt.After(got.Data[i-1].ReceivedAt), "newest first")
	}

	// One message.response per answer recorded: the first answers, the
	// parent's entry, and the ten changes of mind.
	events := recorded + len(second)
	reqs := waitRequests(t, rcv, "/rsvp", events)
	seen := map[string]bool{}
	perMember := map[string]int{}
	for _, q := range reqs {
		e := envelope(t, q)
		require.Equal(t, "message.response", e.Type)
		if seen[e.ID] {
			continue // a retried delivery
		}
		seen[e.ID] = true
		var d struct {
			MessageID string `json:"message_id"`
			Option    string `json:"option"`
			Member    struct {
				ID        string `json:"id"`
				Name      string `json:"name"`
				Phone     string `json:"phone"`
				Role      string `json:"role"`
				Status    string `json:"status"`
				CreatedAt string `json:"created_at"`
			} `json:"member"`
			ReceivedAt string `json:"received_at"`
		}
		require.NoError(t, json.Unmarshal(e.Data, &d))
		require.Equal(t, id, d.MessageID)
		require.Contains(t, opts, d.Option)
		require.NotEmpty(t, d.Member.Name)
		require.NotEmpty(t, d.Member.CreatedAt)
		_, err := time.Parse(time.RFC3339Nano, d.ReceivedAt)
		require.NoError(t, err)
		perMember[d.Member.ID]++
	}
	require.Len(t, seen, events)
	require.Equal(t, events, countRowsIn(t, h.url, `SELECT count(*) FROM webhook_events WHERE team_id = $1 AND type = 'message.response'`, f.TeamID))
	require.Len(t, perMember, recorded)

	// Every text is listed, with response_to on the answers; the inbox has
	// all but the STOP.
	inbound := listAll(t, api, "/inbound-messages")
	require.Len(t, inbound, len(first)+len(second))
	answered := 0
	for _, in := range inbound {
		body := fmt.Sprint(in["body"])
		if in["response_to"] != nil {
			answered++
			require.Equal(t, id, in["response_to"], body)
			continue
		}
		require.Contains(t, []string{"what time?", "STOP"}, body)
	}
	require.Equal(t, len(first)+len(second)-6, answered)
	inbox := listAll(t, api, "/inbox")
	require.Len(t, inbox, len(first)+len(second)-1)
	withResponse := 0
	for _, in := range inbox {
		if in["response_to"] != nil {
			withResponse++
		}
	}
	require.Equal(t, answered, withResponse)
	require.Equal(t, 1, countRowsIn(t, h.url, `SELECT count(*) FROM roster_members WHERE team_id = $1 AND phone = $2 AND status = 'opted_out'`, f.TeamID, phone(25)))

	// The poll closes at reply_until: a later YES is an ordinary text.
	h.advance(t, 7*24*time.Hour+time.Minute)
	injectAll(t, h.admin, h.url, f.TeamID, team.Number, [][2]string{{phone(299), "YES"}, {phone(298), "no"}}, len(first)+len(second))
	after := getResponses(t, api, id)
	require.Equal(t, want, after.tallies())
	require.Equal(t, 2, countRowsIn(t, h.url, `SELECT count(*) FROM messaging_inbound WHERE team_id = $1 AND received_at > $2 AND response_to IS NULL`,
		f.TeamID, *msg.ReplyUntil))

	// Another team's message is 404; a message that is not a poll has no tallies.
	_, otherAPI := newTeamOn(t, h.admin, h.svc, harness.TeamOptions{Extra: map[string]any{"number": teamNumber()}})
	requireCode(t, do(t, otherAPI, "GET", "/messages/"+id+"/responses", nil), 404, "not_found")
	plain := sendPoll(t, api, h.url, map[string]any{"text": "No poll here", "audience": "staff"}, 1)
	none := getResponses(t, api, plain)
	require.Nil(t, none.ReplyOptions)
	require.Empty(t, none.Tallies)
	require.Equal(t, 0, none.NoResponse)
	require.Empty(t, none.Data)
}

// TestRSVPParentTwice: a number on the roster twice (a parent of two
// athletes) answers once, for both entries; the athletes' own numbers
// answer for themselves; an entry added after the poll was sent is not
// counted; and the latest of the parent's answers wins.
func TestRSVPParentTwice(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	var team struct {
		Number string `json:"number"`
	}
	require.NoError(t, do(t, api, "GET", "/team", nil).Data(&team))
	const mom = "+13035550711"
	kidA := addMember(t, api, map[string]any{"name": "Ava", "phone": mom, "role": "athlete"})
	kidB := addMember(t, api, map[string]any{"name": "Ben", "phone": mom, "role": "athlete"})
	solo := addMember(t, api, map[string]any{"name": "Cal", "phone": "+13035550712", "role": "athlete"})
	id := sendPoll(t, api, env.pg.URL, map[string]any{"text": "Tournament Sunday?", "audience": "families", "reply_options": []string{"IN", "OUT"},
		"reply_until": time.Now().Add(48 * time.Hour).Format(time.RFC3339)}, 2)
	late := addMember(t, api, map[string]any{"name": "Dee", "phone": mom, "role": "guardian"})

	text(t, env.admin, env.pg.URL, mom, team.Number, "out")
	text(t, env.admin, env.pg.URL, mom, team.Number, "In!! both of them")
	text(t, env.admin, env.pg.URL, "+13035550712", team.Number, "OUT sorry")

	got := getResponses(t, api, id)
	require.Equal(t, map[string]int{"IN": 2, "OUT": 1}, got.tallies())
	require.Equal(t, 0, got.NoResponse)
	answers := map[string]string{}
	for _, a := range got.Data {
		answers[a.Member.ID] = a.Option
	}
	require.Equal(t, map[string]string{kidA.ID: "IN", kidB.ID: "IN", solo.ID: "OUT"}, answers)
	require.NotContains(t, answers, late.ID, "not a recipient of the poll")
	// mom's two texts: two answers each for two entries; Cal's one.
	require.Equal(t, 5, eventCount(t, f.TeamID, "message.response"))
}

// TestRSVPValidation: reply_options and reply_until are checked on sends
// and estimates alike, with nothing written.
func TestRSVPValidation(t *testing.T) {
	t.Parallel()
	f, api := messagingTeam(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "Eve", "phone": "+13035550721", "role": "athlete"})
	base := func(extra map[string]any) map[string]any {
		b := map[string]any{"text": "Game on?", "audience": "families"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	now := time.Now()
	bad := map[string]map[string]any{
		"empty list":           {"reply_options": []string{}},
		"one option":           {"reply_options": []string{"YES"}},
		"ten options":          {"reply_options": []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"}},
		"two words":            {"reply_options": []string{"YES", "NOT SURE"}},
		"punctuation":          {"reply_options": []string{"YES", "NO!"}},
		"duplicate":            {"reply_options": []string{"YES", "no", "Yes"}},
		"empty option":         {"reply_options": []string{"YES", ""}},
		"nul byte":             {"reply_options": []string{"YES", "N\x00"}},
		"until without":        {"reply_until": now.Add(time.Hour).Format(time.RFC3339)},
		"until past":           {"reply_options": []string{"YES", "NO"}, "reply_until": now.Add(-time.Hour).Format(time.RFC3339)},
		"until beyond 30 days": {"reply_options": []string{"YES", "NO"}, "reply_until": now.Add(31 * 24 * time.Hour).Format(time.RFC3339)},
		"until not a time":     {"reply_options": []string{"YES", "NO"}, "reply_until": "next friday"},
	}
	for name, extra := range bad {
		for _, path := range []string{"/messages/estimate", "/messages"} {
			r := do(t, api, "POST", path, base(extra))
			requireCode(t, r, 400, "invalid_request")
			if name != "nul byte" { // refused by the body guard, before the send's checks
				require.Contains(t, string(r.Body), "reply_", name)
			}
		}
	}
	require.Equal(t, 0, messageCount(t, env.pg.URL, f.TeamID), "nothing written")
	// 9 options and 30 days are fine.
	r := do(t, api, "POST", "/messages/estimate", base(map[string]any{"reply_options": []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"},
		"reply_until": now.Add(29 * 24 * time.Hour).Format(time.RFC3339)}))
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), `Reply 1, 2, 3, 4, 5, 6, 7, 8 or 9`)
}

// TestDashboardComposePoll: Compose's Reply options (words separated by
// spaces or commas) make the send a poll; the preview, without
// JavaScript, shows the text ending with the reply line and counts it;
// bad options are refused on the page.
func TestDashboardComposePoll(t *testing.T) {
	t.Parallel()
	director := newStaff(t, "team_director")
	addFamilies(t, director.teamID)
	h := newHTTPSession(t)
	h.signIn(director)
	_, page := h.get("/app/compose")
	require.Contains(t, page, `name="reply_options"`)
	csrf := csrfOf(t, page)
	form := func(action, opts string) url.Values {
		return url.Values{"csrf": {csrf}, "text": {"Team dinner Friday?"}, "audience": {"families"}, "reply_options": {opts}, "action": {action}}
	}
	resp, body := h.post("/app/compose", form("preview", "yes, no maybe"))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, "Reply STOP to opt out.\nReply YES, NO or MAYBE")
	require.Contains(t, body, `id="reply-line"`)
	resp, body = h.post("/app/compose/preview", form("preview", "yes"))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, body, "reply_options must have 2 to 9 options")
	resp, _ = h.post("/app/compose", form("send", "In,Out"))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/app/messages/")
	var m struct {
		ReplyOptions []string `json:"reply_options"`
		RenderedText string   `json:"rendered_text"`
	}
	require.NoError(t, do(t, director.api, "GET", "/messages/"+id, nil).Data(&m))
	require.Equal(t, []string{"IN", "OUT"}, m.ReplyOptions)
	require.True(t, strings.HasSuffix(m.RenderedText, "\nReply IN or OUT"), m.RenderedText)
}

// TestRSVPScheduled: a scheduled poll carries its options to its send, and
// is open, from the send, as long as reply_until was after scheduled_for;
// reply_until is checked against the scheduled time.
func TestRSVPScheduled(t *testing.T) {
	t.Parallel()
	c := newClockEnv(t, "rsvp_scheduled")
	f, api := c.team(t, harness.TeamOptions{})
	addMember(t, api, map[string]any{"name": "A", "phone": "+13035550731", "role": "athlete"})
	at := c.now(t).Add(time.Hour).Truncate(time.Second)
	body := map[string]any{"text": "Carpool Saturday?", "audience": "families", "scheduled_for": at.Format(time.RFC3339),
		"reply_options": []string{"Driving", "Riding"}}
	body["reply_until"] = at.Add(31 * 24 * time.Hour).Format(time.RFC3339)
	requireCode(t, do(t, api, "POST", "/messages", body), 400, "invalid_request")
	body["reply_until"] = at.Add(-time.Minute).Format(time.RFC3339) // in the future, but before the send
	requireCode(t, do(t, api, "POST", "/messages", body), 400, "invalid_request")
	body["reply_until"] = at.Add(48 * time.Hour).Format(time.RFC3339)
	r := do(t, api, "POST", "/messages", body)
	require.Equal(t, 201, r.Status, string(r.Body))
	var list []struct {
		ReplyOptions []string `json:"reply_options"`
	}
	require.NoError(t, do(t, api, "GET", "/scheduled", nil).Data(&list))
	require.Len(t, list, 1)
	require.Equal(t, []string{"DRIVING", "RIDING"}, list[0].ReplyOptions)

	sentAt := c.advance(t, time.Hour+time.Minute)
	waitFor(t, 30*time.Second, func() bool { return len(outbox(t, c.admin, f.TeamID)) == 1 })
	require.True(t, strings.HasSuffix(fmt.Sprint(outbox(t, c.admin, f.TeamID)[0]["body"]), "\nReply DRIVING or RIDING"))
	var ms []struct {
		ReplyOptions []string   `json:"reply_options"`
		ReplyUntil   *time.Time `json:"reply_until"`
		CreatedAt    time.Time  `json:"created_at"`
	}
	require.NoError(t, do(t, api, "GET", "/messages", nil).Data(&ms))
	require.Len(t, ms, 1)
	require.Equal(t, []string{"DRIVING", "RIDING"}, ms[0].ReplyOptions)
	require.WithinDuration(t, ms[0].CreatedAt.Add(48*time.Hour), *ms[0].ReplyUntil, time.Second)
	require.WithinDuration(t, sentAt, ms[0].CreatedAt, 2*time.Minute)
}
