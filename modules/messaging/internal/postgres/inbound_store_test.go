package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/outbound"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/db"
)

// migratedRepo is a repository on a database of its own with the platform's
// and messaging's migrations.
func migratedRepo(t *testing.T) (*db.DB, *postgres.Repo) {
	t.Helper()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	return d, postgres.NewRepo(d, nil)
}

// TestInboundRoundTrip: every field of a filed text survives the row and
// back (the member snapshot, the keyword, the group); a retried provider id
// is not stored twice; keyword, held and other teams' texts are not inbox
// items (domain.ErrNotFound); read and reply state is written as the
// domain's rules say (first read kept, first reply kept, latest replaced).
func TestInboundRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, r := migratedRepo(t)
	texts := []domain.Inbound{
		{ID: "inb_1", TeamID: "team_1", ProviderMessageID: "SM1", FromPhone: "+12025550101", ToPhone: "+12025550100", Body: "Running late",
			GroupID: "grp_1", Member: domain.InboundMember{ID: "mem_a", Name: "Pat", Role: "guardian"}, ReceivedAt: at, CreatedAt: at.Add(time.Second)},
		{ID: "inb_2", TeamID: "team_1", ProviderMessageID: "SM2", FromPhone: "+12025550109", ToPhone: "+12025550100", Body: "STOP",
			Keyword: domain.KeywordStop, ReceivedAt: at.Add(time.Minute), CreatedAt: at.Add(time.Minute)},
		{ID: "inb_3", TeamID: "team_1", ProviderMessageID: "SM3", FromPhone: "+12025550101", ToPhone: "+12025550100", Body: "held",
			ReceivedAt: at.Add(2 * time.Minute), Held: true, CreatedAt: at.Add(2 * time.Minute)},
	}
	var stored map[string]bool
	inTx(t, d, func(ctx context.Context) (err error) {
		stored, err = r.InsertInbounds(ctx, texts)
		return err
	})
	require.Equal(t, map[string]bool{"inb_1": true, "inb_2": true, "inb_3": true}, stored)
	inTx(t, d, func(ctx context.Context) (err error) {
		retry := texts[0]
		retry.ID = "inb_retry"
		stored, err = r.InsertInbounds(ctx, []domain.Inbound{retry})
		return err
	})
	require.Empty(t, stored, "a carrier retry is not stored twice")

	got, err := r.InboxItem(ctx, "team_1", "inb_1")
	require.NoError(t, err)
	require.Equal(t, texts[0], utcInbound(*got))
	all, err := r.InboundMessages(ctx, "team_1", 10, 0)
	require.NoError(t, err)
	require.Len(t, all, 2, "held texts are not listed")
	require.Equal(t, texts[1], utcInbound(all[0]), "newest first; the keyword kept")
	for _, id := range []string{"inb_2", "inb_3"} {
		_, err = r.InboxItem(ctx, "team_1", id)
		require.ErrorIs(t, err, domain.ErrNotFound, id)
	}
	_, err = r.InboxItem(ctx, "team_2", "inb_1")
	require.ErrorIs(t, err, domain.ErrNotFound)
	_, err = r.MarkRead(ctx, "team_1", "inb_2", at)
	require.ErrorIs(t, err, domain.ErrNotFound)

	read := at.Add(time.Hour)
	got, err = r.MarkRead(ctx, "team_1", "inb_1", read)
	require.NoError(t, err)
	require.Equal(t, read, got.ReadAt.UTC())
	got, err = r.MarkRead(ctx, "team_1", "inb_1", read.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, read, got.ReadAt.UTC(), "the first read is kept")

	in := texts[0]
	first := domain.NewStaffReply("rpl_1", &in, "mem_coach", "Tigers", "See you at 5", at.Add(2*time.Hour))
	second := domain.NewStaffReply("rpl_2", &in, "mem_dir", "Tigers", "Field 2", at.Add(3*time.Hour))
	inTx(t, d, func(ctx context.Context) error {
		if err := r.SetLatestReply(ctx, "team_1", "inb_1", first); err != nil {
			return err
		}
		return r.SetLatestReply(ctx, "team_1", "inb_1", second)
	})
	got, err = r.InboxItem(ctx, "team_1", "inb_1")
	require.NoError(t, err)
	want := texts[0]
	want.MarkRead(read)
	want.Replied(first)
	want.Replied(second)
	require.Equal(t, want, utcInbound(*got), "as domain.Inbound.Replied says")

	inTx(t, d, func(ctx context.Context) error { return r.LockHold(ctx, "team_1", true) })
	var held []domain.Inbound
	inTx(t, d, func(ctx context.Context) (err error) {
		held, err = r.HeldInbound(ctx, "team_1")
		if err != nil {
			return err
		}
		return r.ReleaseInbound(ctx, "team_1", []string{"inb_3"}, at.Add(time.Hour))
	})
	require.Equal(t, []domain.Inbound{texts[2]}, []domain.Inbound{utcInbound(held[0])})
	all, err = r.InboundMessages(ctx, "team_1", 10, 0)
	require.NoError(t, err)
	require.Len(t, all, 3)
	released := texts[2]
	released.Release(at.Add(time.Hour))
	require.Equal(t, released, utcInbound(all[0]), "released: visible, with its release time")
}

func utcInbound(in domain.Inbound) domain.Inbound {
	in.ReceivedAt, in.CreatedAt = in.ReceivedAt.UTC(), in.CreatedAt.UTC()
	for _, p := range []**time.Time{&in.ReleasedAt, &in.ReadAt, &in.RepliedAt} {
		if *p != nil {
			u := (*p).UTC()
			*p = &u
		}
	}
	if in.LatestReply != nil {
		lr := *in.LatestReply
		lr.SentAt = lr.SentAt.UTC()
		in.LatestReply = &lr
	}
	return in
}

// TestReplyRoundTrip: every field of a reply survives insert, load and
// update; another team's reply is domain.ErrNotFound; the HELP text is
// kept, and "" goes back to the default.
func TestReplyRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, r := migratedRepo(t)
	in := domain.Inbound{ID: "inb_1", TeamID: "team_1", ProviderMessageID: "SM1", FromPhone: "+12025550101", ToPhone: "+12025550100",
		Body: "When?", ReceivedAt: at, CreatedAt: at}
	inTx(t, d, func(ctx context.Context) error { _, err := r.InsertInbounds(ctx, []domain.Inbound{in}); return err })
	rp := domain.NewStaffReply("rpl_1", &in, "mem_coach", "Tigers", "See you at 5", at)
	require.NoError(t, r.InsertReply(ctx, rp))
	help := domain.NewHelpReply("rpl_2", &in, domain.DefaultHelpText("Tigers"), at)
	require.NoError(t, r.InsertReply(ctx, help))

	// stored reads a reply of team_1 as a send reads it, in UTC.
	stored := func(id string) domain.Reply {
		t.Helper()
		var got *domain.Reply
		inTx(t, d, func(ctx context.Context) (err error) {
			got, err = r.ReplyForSend(ctx, "team_1", id)
			return err
		})
		return utcReply(*got)
	}
	require.Equal(t, *rp, stored("rpl_1"))
	require.Equal(t, *help, stored("rpl_2"), "a HELP answer has no member")
	inTx(t, d, func(ctx context.Context) error {
		_, err := r.ReplyForSend(ctx, "team_2", "rpl_1")
		require.ErrorIs(t, err, domain.ErrNotFound)
		return nil
	})

	rp.Sent("SMr1", at.Add(time.Second))
	require.NoError(t, r.UpdateReply(ctx, rp))
	help.Fail("21610")
	require.NoError(t, r.UpdateReply(ctx, help))
	require.Equal(t, *rp, stored("rpl_1"))
	require.Equal(t, *help, stored("rpl_2"))

	text, err := r.HelpText(ctx, "team_1")
	require.NoError(t, err)
	require.Empty(t, text, "none set: the default")
	require.NoError(t, r.SetHelpText(ctx, "team_1", "Own. Reply STOP to opt out.", at))
	text, err = r.HelpText(ctx, "team_1")
	require.NoError(t, err)
	require.Equal(t, "Own. Reply STOP to opt out.", text)
	require.NoError(t, r.SetHelpText(ctx, "team_1", "", at))
	text, err = r.HelpText(ctx, "team_1")
	require.NoError(t, err)
	require.Empty(t, text)
}

func utcReply(rp domain.Reply) domain.Reply {
	rp.CreatedAt = rp.CreatedAt.UTC()
	if rp.SentAt != nil {
		u := rp.SentAt.UTC()
		rp.SentAt = &u
	}
	return rp
}

// TestStagingRoundTrip: a staged text comes back as staged, keyword texts'
// numbers first; a staged provider id is staged once; the latest group of
// a number is its latest broadcast's.
func TestStagingRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, r := migratedRepo(t)
	plain, err := domain.StageInbound("SM1", "+12025550101", "+12025550100", "hi", at)
	require.NoError(t, err)
	stop, err := domain.StageInbound("SM2", "+12025550109", "+12025550100", "STOP", at.Add(time.Second))
	require.NoError(t, err)
	plain.Lane, stop.Lane = 3, 3 // one lane for both
	for _, p := range []domain.PendingInbound{plain, stop, plain} {
		require.NoError(t, r.StageInbound(ctx, p))
	}
	var taken []domain.PendingInbound
	inTx(t, d, func(ctx context.Context) error {
		lane, err := r.LockInboundLane(ctx, domain.InboundLanes, 0)
		require.NoError(t, err)
		require.Equal(t, 3, lane)
		taken, err = r.TakeInbound(ctx, lane, 1)
		return err
	})
	require.Len(t, taken, 1, "one batch of one")
	stop.ID = taken[0].ID
	taken[0].ReceivedAt = taken[0].ReceivedAt.UTC()
	require.Equal(t, stop, taken[0], "the keyword's number first; every field back")
	inTx(t, d, func(ctx context.Context) (err error) {
		taken, err = r.TakeInbound(ctx, 3, 10)
		return err
	})
	require.Len(t, taken, 1, "the retried callback was staged once")
	plain.ID = taken[0].ID
	taken[0].ReceivedAt = taken[0].ReceivedAt.UTC()
	require.Equal(t, plain, taken[0])

	require.NoError(t, postgres.NewOutboundStore(d, r).RecordBroadcasts(ctx, []outbound.Broadcast{
		{TeamID: "team_1", Phone: "+12025550101", MessageID: "msg_1", GroupID: "grp_1", MessageCreatedAt: at}}))
	groups, err := r.LatestGroupsTo(ctx, []rosterapi.TeamPhone{{TeamID: "team_1", Phone: "+12025550101"}, {TeamID: "team_1", Phone: "+12025550109"}})
	require.NoError(t, err)
	require.Equal(t, map[rosterapi.TeamPhone]string{{TeamID: "team_1", Phone: "+12025550101"}: "grp_1"}, groups)
}
