package inbound_test

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/inbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/phone"
)

func TestReceive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("PublishesExactlyTheSpecFields", func(t *testing.T) {
		t.Parallel()
		svc, b := setup(t)
		a := text("(202) 555-0101", "Running late")
		require.NoError(t, svc.Receive(ctx, a))
		evs := b.events(t, "message.received")
		require.Len(t, evs, 1)
		keys := make([]string, 0, len(evs[0].Data))
		for k := range evs[0].Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		require.Equal(t, []string{"body", "from", "group_id", "keyword", "member", "message_id", "provider_message_id", "received_at", "to"}, keys)
		d := evs[0].Data
		require.Equal(t, parent, d["from"], "E.164")
		require.Equal(t, teamNumber, d["to"])
		require.Equal(t, a.ProviderMessageID, d["provider_message_id"])
		require.Nil(t, d["keyword"])
		require.Nil(t, d["group_id"])
		// Three entries share the number: the oldest active one, not the older opted-out entry.
		require.Equal(t, map[string]any{"id": "mem_a", "name": "Pat (Ann's parent)", "role": "guardian"}, d["member"])
		rows, err := svc.InboundMessages(ctx, b.team.ID, 10, 0)
		require.NoError(t, err)
		require.Len(t, rows, 1)
		require.Equal(t, d["message_id"], rows[0].ID)
		at, err := time.Parse(time.RFC3339Nano, d["received_at"].(string))
		require.NoError(t, err)
		require.True(t, at.Equal(rows[0].ReceivedAt))
	})

	t.Run("NotOnRosterHasNullMember", func(t *testing.T) {
		t.Parallel()
		svc, b := setup(t)
		require.NoError(t, svc.Receive(ctx, text(stranger, "Who is this?")))
		evs := b.events(t, "message.received")
		require.Len(t, evs, 1)
		require.Contains(t, evs[0].Data, "member")
		require.Nil(t, evs[0].Data["member"])
	})

	t.Run("OnlyInactiveEntriesGiveTheOldest", func(t *testing.T) {
		t.Parallel()
		svc, b := setup(t)
		for _, id := range []string{"mem_old", "mem_a", "mem_b", "mem_coach", "mem_kid"} {
			require.NoError(t, b.roster.UpdateMember(b.team.ID, id, func(m *rosterapi.Member) { m.Status = "opted_out" }))
		}
		require.NoError(t, svc.Receive(ctx, text(parent, "hi")))
		require.Equal(t, "mem_old", b.events(t, "message.received")[0].Data["member"].(map[string]any)["id"])
	})

	t.Run("CarrierRetryIsOneText", func(t *testing.T) {
		t.Parallel()
		svc, b := setup(t)
		a := text(parent, "STOP")
		require.NoError(t, svc.Receive(ctx, a))
		require.NoError(t, svc.Receive(ctx, a))
		require.Len(t, b.events(t, "message.received"), 1)
		require.Equal(t, 1, b.count(t, `SELECT count(*) FROM messaging_inbound`))
		require.Equal(t, []string{"stop " + parent}, calls(b.roster), "the keyword acts once")
	})

	t.Run("UnknownNumberIsDropped", func(t *testing.T) {
		t.Parallel()
		svc, b := setup(t)
		a := text(parent, "hello")
		a.To = "+12025550188"
		require.NoError(t, svc.Receive(ctx, a))
		require.Equal(t, 0, b.count(t, `SELECT count(*) FROM messaging_inbound`))
		require.Empty(t, b.events(t, "message.received"))
	})

	t.Run("GroupOfTheLatestBroadcast", func(t *testing.T) {
		t.Parallel()
		svc, b := setup(t)
		now := time.Now().UTC().Truncate(time.Microsecond)
		sends := postgres.NewOutboundStore(b.db, b.repo)
		msgs := map[string]outbound.Broadcast{}
		for i, m := range []struct{ id, group string }{{"msg_1", "grp_u12"}, {"msg_2", ""}, {"msg_3", "grp_u14"}} {
			msgs[m.id] = outbound.Broadcast{TeamID: b.team.ID, MessageID: m.id, GroupID: m.group, MessageCreatedAt: now.Add(time.Duration(i) * time.Second)}
		}
		// to is the hand-over of message id to phones (in phone order, as
		// the engine records them).
		to := func(id string, phones ...string) []outbound.Broadcast {
			slices.Sort(phones)
			bs := make([]outbound.Broadcast, len(phones))
			for i, p := range phones {
				bs[i] = msgs[id]
				bs[i].Phone = p
			}
			return bs
		}
		// Hand-overs run in any order: the newest message to a number wins
		// whichever is recorded last.
		require.NoError(t, sends.RecordBroadcasts(ctx, to("msg_2", parent)))
		require.NoError(t, sends.RecordBroadcasts(ctx, to("msg_1", parent, stranger)))
		require.NoError(t, sends.RecordBroadcasts(ctx, to("msg_3", stranger)))
		require.NoError(t, sends.RecordBroadcasts(ctx, to("msg_1", stranger)), "a retried older hand-over")
		require.NoError(t, svc.Receive(ctx, text(stranger, "ok")))
		require.NoError(t, svc.Receive(ctx, text(parent, "ok")))
		require.NoError(t, svc.Receive(ctx, text("+12025550177", "who?")))
		evs := b.events(t, "message.received")
		require.Equal(t, "grp_u14", evs[0].Data["group_id"])
		require.Nil(t, evs[1].Data["group_id"], "the parent's latest broadcast went to everyone")
		require.Nil(t, evs[2].Data["group_id"], "never texted")
	})
}

func TestKeywords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("StopAndStart", func(t *testing.T) {
		t.Parallel()
		svc, b := setup(t)
		require.NoError(t, svc.Receive(ctx, text(parent, " Stop. ")))
		require.NoError(t, svc.Receive(ctx, text(stranger, "UNSUBSCRIBE")))
		require.NoError(t, svc.Receive(ctx, text(parent, "unstop")))
		require.NoError(t, svc.Receive(ctx, text(parent, "stop please")))
		require.Equal(t, []string{"stop " + parent, "stop " + stranger, "start " + parent}, calls(b.roster))
		var kws []any
		evs := b.events(t, "message.received")
		for _, e := range evs {
			kws = append(kws, e.Data["keyword"])
		}
		require.Equal(t, []any{"stop", "stop", "start", nil}, kws)
		// Roster is told what its consent history keeps: the text, its id,
		// the member it came from (none for a stranger) and when.
		told := b.roster.KeywordTexts()
		require.Len(t, told, 3)
		require.Equal(t, " Stop. ", told[0].Body)
		require.Equal(t, evs[0].Data["message_id"], told[0].MessageID)
		require.Equal(t, "mem_a", told[0].MemberID, "the oldest active entry")
		require.Equal(t, b.team.ID, told[0].TeamID)
		require.False(t, told[0].At.IsZero())
		require.Empty(t, told[1].MemberID, "not on the roster")
		require.Empty(t, b.carrier.Sent(), "no text answers STOP or START")
		require.Equal(t, 0, b.count(t, `SELECT count(*) FROM messaging_replies`))
		// Keyword texts are listed but are not inbox items.
		all, err := svc.InboundMessages(ctx, b.team.ID, 10, 0)
		require.NoError(t, err)
		require.Len(t, all, 4)
		box, err := svc.List(ctx, b.team.ID, "all", 10, 0)
		require.NoError(t, err)
		require.Len(t, box, 1)
		require.Equal(t, "stop please", box[0].Body)
	})

	t.Run("HelpRepliesToThatNumber", func(t *testing.T) {
		t.Parallel()
		svc, b := setup(t)
		require.NoError(t, svc.Receive(ctx, text(stranger, "help")))
		require.Equal(t, []string{"help " + stranger}, calls(b.roster), "HELP is kept in the consent history too")
		var rp domain.Reply
		require.NoError(t, b.db.Bun.QueryRowContext(ctx, `SELECT id, kind, to_phone, body FROM messaging_replies`).Scan(&rp.ID, &rp.Kind, &rp.ToPhone, &rp.Body))
		require.Equal(t, domain.ReplyHelp, rp.Kind)
		require.Equal(t, stranger, rp.ToPhone)
		require.Equal(t, domain.DefaultHelpText("Tigers"), rp.Body)
		require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'messaging.reply' AND args->>'reply_id' = ?`, rp.ID))
		require.NoError(t, svc.SendReply(ctx, inbound.ReplyArgs{TeamID: b.team.ID, ReplyID: rp.ID}))
		require.NoError(t, svc.SendReply(ctx, inbound.ReplyArgs{TeamID: b.team.ID, ReplyID: rp.ID}), "a retried job sends nothing more")
		sent := b.carrier.Sent()
		require.Len(t, sent, 1)
		require.Equal(t, stranger, sent[0].To)
		require.Equal(t, teamNumber, sent[0].From)
		require.Equal(t, rp.ID, sent[0].DeliveryID, "the idempotency key")
		require.Equal(t, domain.DefaultHelpText("Tigers"), sent[0].Body)
		require.Zero(t, creditsUsed(t, b.billing, b.team.ID), "compliance replies are not charged")

		custom := "Tigers texts. Questions: coach@tigers.example. Msg & data rates may apply. Reply STOP to opt out."
		set, err := svc.SetHelpText(ctx, b.team.ID, &custom)
		require.NoError(t, err)
		require.False(t, set.HelpTextDefault)
		require.NoError(t, svc.Receive(ctx, text(stranger, "INFO")))
		require.Equal(t, 1, b.count(t, `SELECT count(*) FROM messaging_replies WHERE body = ?`, custom))
		empty := ""
		set, err = svc.SetHelpText(ctx, b.team.ID, &empty)
		require.NoError(t, err)
		require.True(t, set.HelpTextDefault)
		_, err = svc.SetHelpText(ctx, "team_nope", &custom)
		require.ErrorIs(t, err, fault.NotFoundf("team not found"))
	})
}

func TestHeldTexts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	require.NoError(t, svc.Receive(ctx, text(parent, "before")))
	setOverdue(t, b.billing, b.team.ID, true)
	for _, body := range []string{"first", "STOP", "third"} {
		require.NoError(t, svc.Receive(ctx, text(parent, body)))
	}
	require.Equal(t, []string{"stop " + parent}, calls(b.roster), "a held STOP still opts out at once")
	require.Len(t, b.events(t, "message.received"), 1)
	rows, err := svc.InboundMessages(ctx, b.team.ID, 10, 0)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	n, err := svc.UnreadCount(ctx, b.team.ID)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	tot, err := svc.Totals(ctx, b.team.ID, "", "")
	require.NoError(t, err)
	require.EqualValues(t, 1, tot.TextsReceived)

	// Payment succeeds: billing calls the listener in its transaction.
	setOverdue(t, b.billing, b.team.ID, false)
	require.NoError(t, b.db.Tx(ctx, func(ctx context.Context) error { return b.releaser.OnPaymentRecovered(ctx, b.team.ID) }))
	var bodies []any
	for _, e := range b.events(t, "message.received") {
		bodies = append(bodies, e.Data["body"])
	}
	require.Equal(t, []any{"before", "first", "STOP", "third"}, bodies, "released in arrival order")
	rows, err = svc.InboundMessages(ctx, b.team.ID, 10, 0)
	require.NoError(t, err)
	require.Len(t, rows, 4)
	n, err = svc.UnreadCount(ctx, b.team.ID)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	tot, err = svc.Totals(ctx, b.team.ID, "", "")
	require.NoError(t, err)
	require.EqualValues(t, 4, tot.TextsReceived)
	again, err := b.releaser.ReleaseHeld(ctx, b.team.ID)
	require.NoError(t, err)
	require.Zero(t, again)
	require.Len(t, b.events(t, "message.received"), 4)

	// A release that rolls back (billing's transaction failed) keeps them held.
	setOverdue(t, b.billing, b.team.ID, true)
	require.NoError(t, svc.Receive(ctx, text(parent, "held again")))
	err = b.db.Tx(ctx, func(ctx context.Context) error {
		if _, err := b.releaser.ReleaseHeld(ctx, b.team.ID); err != nil {
			return err
		}
		return context.Canceled
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM messaging_inbound WHERE held`))
	require.Len(t, b.events(t, "message.received"), 4)
}

func TestInbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	for _, a := range []struct{ from, body string }{{parent, "one"}, {stranger, "two"}, {parent, "HELP"}, {parent, "three"}} {
		require.NoError(t, svc.Receive(ctx, text(a.from, a.body)))
	}
	list := func(filter string) []string {
		rows, err := svc.List(ctx, b.team.ID, filter, 10, 0)
		require.NoError(t, err)
		out := make([]string, len(rows))
		for i := range rows {
			out[i] = rows[i].Body
		}
		return out
	}
	require.Equal(t, []string{"three", "two", "one"}, list("all"), "newest first, no keywords")
	rows, err := svc.List(ctx, b.team.ID, "all", 10, 0)
	require.NoError(t, err)
	two, three := rows[1], rows[0]

	read, err := svc.MarkRead(ctx, b.team.ID, two.ID)
	require.NoError(t, err)
	require.NotNil(t, read.ReadAt)
	again, err := svc.MarkRead(ctx, b.team.ID, two.ID)
	require.NoError(t, err)
	require.True(t, read.ReadAt.Equal(*again.ReadAt), "the first read_at stays")
	require.Equal(t, []string{"three", "one"}, list("unread"))
	_, err = svc.MarkRead(ctx, "team_other", two.ID)
	require.ErrorIs(t, err, fault.NotFoundf("x"))

	// Replies: staff only, to that one number.
	_, err = svc.Reply(ctx, inbound.ReplyInput{TeamID: b.team.ID, MessageID: three.ID, MemberID: "mem_kid", Body: "hi"})
	f, ok := fault.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, fault.CodeForbidden, f.Code)
	_, err = svc.Reply(ctx, inbound.ReplyInput{TeamID: b.team.ID, MessageID: three.ID, MemberID: "mem_coach", Body: " "})
	f, _ = fault.As(err)
	require.Equal(t, fault.CodeInvalidRequest, f.Code)
	item, err := svc.Reply(ctx, inbound.ReplyInput{TeamID: b.team.ID, MessageID: three.ID, MemberID: "mem_coach", Body: "See you at 5"})
	require.NoError(t, err)
	require.NotNil(t, item.RepliedAt)
	require.NotNil(t, item.ReadAt, "replying marks it read")
	require.NotNil(t, item.LatestReply)
	require.Equal(t, "Tigers: See you at 5", item.LatestReply.Body)
	require.Equal(t, "mem_coach", item.LatestReply.MemberID)
	first := *item.RepliedAt
	item, err = svc.Reply(ctx, inbound.ReplyInput{TeamID: b.team.ID, MessageID: three.ID, MemberID: "mem_coach", Body: "Field 2"})
	require.NoError(t, err)
	require.True(t, first.Equal(*item.RepliedAt), "replied_at is the first reply")
	require.Equal(t, "Tigers: Field 2", item.LatestReply.Body, "latest reply")
	require.Equal(t, []string{"three"}, list("replied"))
	require.Equal(t, []string{"one"}, list("unread"))
	require.Positive(t, creditsUsed(t, b.billing, b.team.ID), "staff replies are charged")

	n, err := svc.MarkAllRead(ctx, b.team.ID)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Empty(t, list("unread"))

	// Not inbox items: keyword texts, other teams' texts.
	all, err := svc.InboundMessages(ctx, b.team.ID, 10, 0)
	require.NoError(t, err)
	var help domain.Inbound
	for _, r := range all {
		if r.Keyword == "help" {
			help = r
		}
	}
	_, err = svc.Reply(ctx, inbound.ReplyInput{TeamID: b.team.ID, MessageID: help.ID, MemberID: "mem_coach", Body: "x"})
	require.ErrorIs(t, err, fault.NotFoundf("x"))

	// An opted-out number cannot be texted; sending paused while overdue.
	require.NoError(t, b.roster.OptOutBySMS(ctx, b.team.ID, stranger))
	_, err = svc.Reply(ctx, inbound.ReplyInput{TeamID: b.team.ID, MessageID: two.ID, MemberID: "mem_coach", Body: "x"})
	f, _ = fault.As(err)
	require.Equal(t, inbound.CodeOptedOut, f.Code)
	setOverdue(t, b.billing, b.team.ID, true)
	_, err = svc.Reply(ctx, inbound.ReplyInput{TeamID: b.team.ID, MessageID: three.ID, MemberID: "mem_coach", Body: "x"})
	f, _ = fault.As(err)
	require.Equal(t, inbound.CodePaymentRequired, f.Code)
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM messaging_replies WHERE kind = 'staff'`))
}

func TestAnalyticsCounters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, b := setup(t)
	day := func(s string, h int) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		require.NoError(t, err)
		return d.Add(time.Duration(h) * time.Hour)
	}
	// Many writers of one team and day share a few shard rows.
	sends, finals := b.repo, b.repo
	for i := 0; i < 20; i++ {
		m := &domain.Message{ID: "msg_" + strconv.Itoa(i), TeamID: b.team.ID}
		require.NoError(t, sends.CountBroadcast(ctx, m, 10, day("2026-03-01", 23)))
	}
	require.NoError(t, sends.CountBroadcast(ctx, &domain.Message{ID: "msg_x", TeamID: b.team.ID}, 5, day("2026-03-03", 1)))
	require.NoError(t, sends.CountBroadcast(ctx, &domain.Message{ID: "msg_y", TeamID: "team_2"}, 7, day("2026-03-01", 1)))
	sent := day("2026-03-01", 23)
	var ds []domain.Delivery
	for i := 0; i < 150; i++ {
		status := "delivered"
		if i%10 == 0 {
			status = "failed"
		}
		ds = append(ds, domain.Delivery{ID: "dlv_" + strconv.Itoa(i), TeamID: b.team.ID, Status: status, SentAt: &sent, UpdatedAt: day("2026-03-02", 1)})
	}
	// Never handed over: counted on the day of its status.
	ds = append(ds, domain.Delivery{ID: "dlv_direct", TeamID: b.team.ID, Status: "delivered", UpdatedAt: day("2026-03-01", 2)})
	for i := 0; i < len(ds); i += 40 { // batches, as ingestion writes them
		require.NoError(t, finals.CountFinals(ctx, ds[i:min(i+40, len(ds))]))
	}
	require.NoError(t, b.repo.CountReceived(ctx, &domain.Inbound{ID: "inb_1", TeamID: b.team.ID, ReceivedAt: day("2026-03-02", 12)}))
	// Three entries joined and one number opted out in the range.
	for i, p := range []string{"+12025550131", "+12025550132", "+12025550133"} {
		require.NoError(t, b.roster.AddMember(ctx, rosterapi.Member{ID: "mem_new" + strconv.Itoa(i), TeamID: b.team.ID, Name: "New", Phone: phone.Number(p),
			Role: rosterapi.RoleAthlete, Status: "active", CreatedAt: day("2026-03-01", 9+i)}))
	}
	b.rosterClock.Set(day("2026-03-02", 8))
	require.NoError(t, b.roster.OptOutBySMS(ctx, b.team.ID, "+12025550134"))

	tot, err := svc.Totals(ctx, b.team.ID, "2026-03-01", "2026-03-02")
	require.NoError(t, err)
	require.Equal(t, inbound.Totals{From: day("2026-03-01", 0), To: day("2026-03-02", 0), Broadcasts: 20, Deliveries: 200, Delivered: 136,
		DeliveryRate: 0.68, TextsReceived: 1, NewMembers: 3, OptOuts: 1}, *tot)
	tot, err = svc.Totals(ctx, b.team.ID, "2026-03-02", "2026-03-03")
	require.NoError(t, err)
	require.EqualValues(t, 1, tot.Broadcasts)
	require.EqualValues(t, 0, tot.Delivered, "delivered counts on the day the text was handed over")
	require.Greater(t, b.count(t, `SELECT count(*) FROM messaging_daily_stats WHERE team_id = ? AND day = '2026-03-01'`, b.team.ID), 1, "sharded")

	// The dashboard's report: the same totals, and every day of the range
	// (quiet ones as zero) summing to them; failed deliveries on their day.
	rep, err := svc.Report(ctx, b.team.ID, "2026-03-01", "2026-03-04", "America/New_York")
	require.NoError(t, err)
	tot, err = svc.Totals(ctx, b.team.ID, "2026-03-01", "2026-03-04")
	require.NoError(t, err)
	require.Equal(t, *tot, rep.Totals)
	require.Equal(t, []inbound.Day{
		{Day: day("2026-03-01", 0), Broadcasts: 20, Sent: 200, Delivered: 136, Failed: 15, Rate: 0.68},
		{Day: day("2026-03-02", 0)},
		{Day: day("2026-03-03", 0), Broadcasts: 1, Sent: 5},
		{Day: day("2026-03-04", 0)},
	}, rep.Days)
	_, err = svc.Report(ctx, b.team.ID, "2026-03-05", "2026-03-04", "UTC")
	require.Error(t, err, "from after to")
}
