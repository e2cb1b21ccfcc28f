// Package storetest is the contract suite of the stores messaging's send
// use cases declare (service.TemplateStore, ScheduledStore and
// MessageStore): run against the Postgres repository and against the
// in-memory store the service's tests use, so that the two answer alike,
// refusals included.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/service"
	"github.com/teamtext/teamtext/platform/id"
)

// Stores are the stores under the suite.
type Stores struct {
	service.TemplateStore
	service.ScheduledStore
	service.MessageStore
}

// Harness is one implementation under the suite.
type Harness struct {
	Stores
	// Tx is the transactions the use cases run the stores' writes in.
	Tx service.Transactor
}

// at is a time Postgres keeps exactly (microseconds, UTC).
var at = time.Date(2027, 1, 2, 3, 4, 5, 6000, time.UTC)

// Exercise runs the suite; newHarness builds fresh, empty stores.
func Exercise(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	setup := func(t *testing.T) (context.Context, Harness) {
		t.Helper()
		return context.Background(), newHarness(t)
	}
	inTx := func(t *testing.T, h Harness, fn func(ctx context.Context) error) {
		t.Helper()
		require.NoError(t, h.Tx.Tx(context.Background(), fn))
	}

	// Every field of a template survives the store and back; another
	// team's id and a deleted template are not found by id, and a deleted
	// one is by name. An update whose change fails writes nothing.
	t.Run("TemplateRoundTrip", func(t *testing.T) {
		t.Parallel()
		ctx, h := setup(t)
		tpl := domain.Template{ID: "tpl_1", TeamID: "team_1", Name: "Practice", Body: "See you at 5", MessageType: domain.TypeReminder,
			CreatedAt: at, UpdatedAt: at.Add(time.Second)}
		require.NoError(t, h.InsertTemplate(ctx, &tpl))
		got, err := h.Template(ctx, "team_1", "tpl_1")
		require.NoError(t, err)
		require.Equal(t, tpl, utcTemplate(*got))
		byName, err := h.TemplateByName(ctx, "team_1", "PRACTICE")
		require.NoError(t, err)
		require.Equal(t, tpl, utcTemplate(*byName), "names are matched without case")

		_, err = h.Template(ctx, "team_2", "tpl_1")
		require.ErrorIs(t, err, domain.ErrNotFound)
		_, err = h.TemplateByName(ctx, "team_2", "Practice")
		require.ErrorIs(t, err, domain.ErrNotFound)

		refused := errors.New("refused")
		_, err = h.UpdateTemplate(ctx, "team_1", "tpl_1", func(t *domain.Template) error {
			t.Name = "Changed"
			return refused
		})
		require.ErrorIs(t, err, refused, "the change's error, as it is")
		got, err = h.Template(ctx, "team_1", "tpl_1")
		require.NoError(t, err)
		require.Equal(t, tpl, utcTemplate(*got), "a refused change writes nothing")
		_, err = h.UpdateTemplate(ctx, "team_2", "tpl_1", func(*domain.Template) error { return nil })
		require.ErrorIs(t, err, domain.ErrNotFound)

		deleted := at.Add(time.Minute)
		got, err = h.UpdateTemplate(ctx, "team_1", "tpl_1", func(t *domain.Template) error {
			t.DeletedAt, t.Name = &deleted, "Old"
			return nil
		})
		require.NoError(t, err)
		tpl.DeletedAt, tpl.Name = &deleted, "Old"
		require.Equal(t, tpl, utcTemplate(*got), "the template as written")
		_, err = h.Template(ctx, "team_1", "tpl_1")
		require.ErrorIs(t, err, domain.ErrNotFound)
		_, err = h.UpdateTemplate(ctx, "team_1", "tpl_1", func(*domain.Template) error { return nil })
		require.ErrorIs(t, err, domain.ErrNotFound, "a deleted template is not updated by id")
		byName, err = h.TemplateByName(ctx, "team_1", "old")
		require.NoError(t, err, "a deleted template is found by name")
		require.Equal(t, tpl, utcTemplate(*byName))
		byName.Name, byName.DeletedAt = "Restored", nil
		require.NoError(t, h.WriteTemplate(ctx, byName))
		got, err = h.Template(ctx, "team_1", "tpl_1")
		require.NoError(t, err, "written back live")
		require.Equal(t, "Restored", got.Name)
		byName.Name, byName.DeletedAt = "Old", &deleted
		require.NoError(t, h.WriteTemplate(ctx, byName))
		n, err := h.CountTemplates(ctx, "team_1")
		require.NoError(t, err)
		require.Zero(t, n)
	})

	t.Run("TemplatesRefuseTwins", func(t *testing.T) {
		t.Parallel()
		ctx, h := setup(t)
		tpl := domain.Template{ID: "tpl_1", TeamID: "team_1", Name: "Practice", Body: "b", MessageType: domain.TypeStandard, CreatedAt: at, UpdatedAt: at}
		require.NoError(t, h.InsertTemplate(ctx, &tpl))
		twin := tpl
		twin.Name = "Game"
		require.Error(t, h.InsertTemplate(ctx, &twin), "a second template with an id")
		twin = tpl
		twin.ID, twin.Name = "tpl_2", "PRACTICE"
		require.Error(t, h.InsertTemplate(ctx, &twin), "a second template of the team with a name, in any case")
		twin.TeamID = "team_2"
		require.NoError(t, h.InsertTemplate(ctx, &twin), "another team's names are its own")
		got, err := h.Template(ctx, "team_1", "tpl_1")
		require.NoError(t, err)
		require.Equal(t, "Practice", got.Name, "the refused inserts changed nothing")
	})

	// A team's live templates by name (without case, then id), a page of
	// limit+1; deleted ones and other teams' are neither listed nor counted.
	t.Run("TemplatesList", func(t *testing.T) {
		t.Parallel()
		ctx, h := setup(t)
		deleted := at
		for _, tpl := range []domain.Template{
			{ID: "tpl_b", TeamID: "team_1", Name: "bravo"}, {ID: "tpl_c", TeamID: "team_1", Name: "Charlie"},
			{ID: "tpl_a", TeamID: "team_1", Name: "alpha"}, {ID: "tpl_d", TeamID: "team_1", Name: "delta"},
			{ID: "tpl_gone", TeamID: "team_1", Name: "aardvark", DeletedAt: &deleted}, {ID: "tpl_x", TeamID: "team_2", Name: "able"},
		} {
			tpl.Body, tpl.MessageType, tpl.CreatedAt, tpl.UpdatedAt = "b", domain.TypeStandard, at, at
			require.NoError(t, h.InsertTemplate(ctx, &tpl))
		}
		page, err := h.Templates(ctx, "team_1", 2, 0)
		require.NoError(t, err)
		require.Equal(t, []string{"tpl_a", "tpl_b", "tpl_c"}, templateIDs(page), "limit+1, by name without case")
		page, err = h.Templates(ctx, "team_1", 2, 2)
		require.NoError(t, err)
		require.Equal(t, []string{"tpl_c", "tpl_d"}, templateIDs(page))
		page, err = h.Templates(ctx, "team_1", 2, 9)
		require.NoError(t, err)
		require.Empty(t, page, "past the last")
		n, err := h.CountTemplates(ctx, "team_1")
		require.NoError(t, err)
		require.Equal(t, 4, n)
		inTx(t, h, func(ctx context.Context) error { return h.LockTemplates(ctx, "team_1") })
	})

	// Every field of a scheduled send survives, the request as JSON and
	// repeat_until as a date.
	t.Run("ScheduledRoundTrip", func(t *testing.T) {
		t.Parallel()
		ctx, h := setup(t)
		until := time.Date(2027, 2, 1, 15, 30, 0, 0, time.UTC)
		s := domain.NewScheduled("sch_1", "team_1", "key_1", "mem_1", []byte(`{"text":"hi",  "audience":"all"}`), at, &until, at)
		require.NoError(t, h.InsertScheduled(ctx, &s))
		var got *domain.Scheduled
		inTx(t, h, func(ctx context.Context) error {
			var err error
			got, err = h.Scheduled(ctx, "team_1", "sch_1")
			return err
		})
		want := s
		day := time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)
		want.RepeatUntil = &day
		require.Equal(t, utcScheduled(want), utcScheduled(*got), "repeat_until keeps its date")
		requireJSONEq(t, s.Request, got.Request)

		s.Started(at.Add(time.Hour))
		s.Stop(domain.CodeNoSender)
		updated, err := h.UpdateScheduled(ctx, "team_1", "sch_1", func(x *domain.Scheduled) error {
			x.Started(at.Add(time.Hour))
			x.Stop(domain.CodeNoSender)
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, s.Status, updated.Status, "the send as written")
		_, err = h.UpdateScheduled(ctx, "team_2", "sch_1", func(*domain.Scheduled) error { return nil })
		require.ErrorIs(t, err, domain.ErrNotFound)
		inTx(t, h, func(ctx context.Context) error {
			var err error
			got, err = h.Scheduled(ctx, "", "sch_1")
			return err
		})
		want = s
		want.RepeatUntil = &day
		require.Equal(t, utcScheduled(want), utcScheduled(*got), "found without its team")
		requireJSONEq(t, s.Request, got.Request)
		inTx(t, h, func(ctx context.Context) error {
			_, err := h.Scheduled(ctx, "team_2", "sch_1")
			require.ErrorIs(t, err, domain.ErrNotFound)
			_, err = h.Scheduled(ctx, "", "sch_none")
			require.ErrorIs(t, err, domain.ErrNotFound)
			return nil
		})
		pending, err := h.PendingScheduled(ctx, "team_1", 50, 0)
		require.NoError(t, err)
		require.Empty(t, pending, "a stopped send is not pending")
		require.Error(t, h.InsertScheduled(ctx, &s), "a second send with an id")
	})

	// A team's pending sends, soonest first (then by id), a page of
	// limit+1; counted alike.
	t.Run("PendingScheduled", func(t *testing.T) {
		t.Parallel()
		ctx, h := setup(t)
		for _, c := range []struct {
			id, team string
			in       time.Duration
			stopped  bool
		}{{"sch_c", "team_1", time.Hour, false}, {"sch_b", "team_1", time.Hour, false}, {"sch_a", "team_1", 2 * time.Hour, false},
			{"sch_0", "team_1", 0, false}, {"sch_x", "team_1", time.Minute, true}, {"sch_y", "team_2", time.Minute, false}} {
			s := domain.NewScheduled(c.id, c.team, "", "mem_1", []byte(`{}`), at.Add(c.in), nil, at)
			if c.stopped {
				s.Stop(domain.CodeNoSender)
			}
			require.NoError(t, h.InsertScheduled(ctx, &s))
		}
		page, err := h.PendingScheduled(ctx, "team_1", 2, 0)
		require.NoError(t, err)
		require.Equal(t, []string{"sch_0", "sch_b", "sch_c"}, scheduledIDs(page), "soonest first, then by id; limit+1")
		page, err = h.PendingScheduled(ctx, "team_1", 2, 3)
		require.NoError(t, err)
		require.Equal(t, []string{"sch_a"}, scheduledIDs(page))
		n, err := h.CountPendingScheduled(ctx, "team_1")
		require.NoError(t, err)
		require.Equal(t, 4, n)
	})

	// A message's fields survive; its counts are the statements'
	// (InsertQueued), never written back by UpdateMessage; its deliveries
	// list with their roster entries; failed ones read for resends.
	t.Run("MessageRoundTrip", func(t *testing.T) {
		t.Parallel()
		ctx, h := setup(t)
		decided, sent, until := at.Add(time.Second), at.Add(2*time.Second), at.Add(48*time.Hour)
		m := domain.Message{ID: "msg_1", TeamID: "team_1", KeyID: "key_1", MemberID: "mem_1", Source: "api", Audience: "group", GroupID: "grp_1",
			TemplateID: "tpl_1", ScheduledID: "sch_1", Text: "hi", Rendered: "Tigers: hi", Encoding: "GSM-7", Segments: 1, Recipients: 2,
			Status: domain.StatusQueued, Urgent: true, CreatedAt: at, DecidedAt: &decided, DecidedBy: "mem_hc", SentAt: &sent,
			SkippedUndeliverable: 3, ResendOf: "msg_0", Credits: 7, ReplyOptions: []string{"YES", "NO"}, ReplyUntil: &until}
		series := id.NewSeries("dlv")
		done := at.Add(time.Minute)
		inTx(t, h, func(ctx context.Context) error {
			if err := h.InsertMessage(ctx, &m); err != nil {
				return err
			}
			// The second text is held for quiet hours until done.
			return h.InsertQueued(ctx, "team_1", "msg_1", at, done, series, []string{"+15550000001", "+15550000002"},
				[][]string{{"mem_a", "mem_b"}, {"mem_c"}}, nil, []time.Time{{}, done})
		})
		got, err := h.Message(ctx, "team_1", "msg_1")
		require.NoError(t, err)
		want := m
		want.QueuedCount, want.EstimatedCompletion, want.HeldForQuietHours = 2, &done, 1
		require.Equal(t, want, utcMessage(*got))
		_, err = h.Message(ctx, "team_2", "msg_1")
		require.ErrorIs(t, err, domain.ErrNotFound)
		_, err = h.Message(ctx, "team_1", "msg_none")
		require.ErrorIs(t, err, domain.ErrNotFound)
		require.Error(t, h.InsertMessage(ctx, &m), "a second message with an id")

		decided = at.Add(time.Hour)
		_, err = h.UpdateMessage(ctx, "team_2", "msg_1", func(*domain.Message) error { return nil })
		require.ErrorIs(t, err, domain.ErrNotFound)
		written, err := h.UpdateMessage(ctx, "team_1", "msg_1", func(m *domain.Message) error {
			m.DecidedAt, m.DecidedBy, m.QueuedCount, m.FailedCount, m.HeldNow = &decided, "mem_co", 99, 5, 4
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, "mem_co", written.DecidedBy, "the message as written")
		again, err := h.Message(ctx, "team_1", "msg_1")
		require.NoError(t, err)
		require.Equal(t, 2, again.QueuedCount, "UpdateMessage leaves the counts to the statements")
		require.Zero(t, again.FailedCount)
		require.Zero(t, again.HeldNow, "read with the message, never kept")
		require.Equal(t, "mem_co", again.DecidedBy)
		require.True(t, again.DecidedAt.Equal(decided))

		_, err = h.Deliveries(ctx, "team_2", "msg_1", "", 50, 0)
		require.ErrorIs(t, err, domain.ErrNotFound)
		_, err = h.Deliveries(ctx, "team_1", "msg_none", "", 50, 0)
		require.ErrorIs(t, err, domain.ErrNotFound)
		empty, err := h.Deliveries(ctx, "team_1", "msg_1", "", 50, 2) // past the last: an empty page, not 404
		require.NoError(t, err)
		require.Empty(t, empty)
		ds, err := h.Deliveries(ctx, "team_1", "msg_1", "", 50, 0)
		require.NoError(t, err)
		require.Len(t, ds, 2)
		for i, d := range ds {
			require.Equal(t, series.At(uint32(i+1)), d.ID, "ids from the series, by position")
			require.Equal(t, i+1, d.Seq)
			require.Equal(t, []any{"team_1", "msg_1", domain.DeliveryQueued, "", "", "", ""},
				[]any{d.TeamID, d.MessageID, d.Status, d.CarrierStatus, d.ProviderMessageID, d.ErrorCode, d.ErrorMessage})
			require.Nil(t, d.SentAt)
			require.True(t, d.UpdatedAt.Equal(at))
		}
		require.Equal(t, []string{"mem_a", "mem_b"}, ds[0].MemberIDs)
		require.Equal(t, "+15550000002", ds[1].Phone)
		require.Nil(t, ds[0].HeldUntil)
		require.NotNil(t, ds[1].HeldUntil)
		require.True(t, ds[1].HeldUntil.Equal(done), "held until its slot")
		first, err := h.Deliveries(ctx, "team_1", "msg_1", "", 0, 0)
		require.NoError(t, err)
		require.Len(t, first, 1, "limit+1 rows")
		held, err := h.HeldQueued(ctx, "msg_1", at)
		require.NoError(t, err)
		require.Equal(t, 1, held)
		held, err = h.HeldQueued(ctx, "msg_1", done)
		require.NoError(t, err)
		require.Zero(t, held, "held past now only")
		queued, err := h.Deliveries(ctx, "team_1", "msg_1", domain.DeliveryQueued, 50, 0)
		require.NoError(t, err)
		require.Len(t, queued, 2, "the status filter keeps the deliveries in that status")
		failed, err := h.Deliveries(ctx, "team_1", "msg_1", domain.DeliveryFailed, 50, 0)
		require.NoError(t, err)
		require.Empty(t, failed, "and only those")

		list, err := h.Messages(ctx, "team_1", 50, 0)
		require.NoError(t, err)
		require.Len(t, list, 1)
		fs, err := h.FailedDeliveries(ctx, "msg_1")
		require.NoError(t, err)
		require.Empty(t, fs)
		prior, err := h.LiveResend(ctx, "team_1", "msg_0")
		require.NoError(t, err)
		require.Equal(t, "msg_1", prior)
		require.NoError(t, h.CountBroadcast(ctx, got, 2, at))
	})

	// Queued texts with their own bodies (merge tags) count alike; no
	// phones is no change at all.
	t.Run("InsertQueued", func(t *testing.T) {
		t.Parallel()
		ctx, h := setup(t)
		m := domain.Message{ID: "msg_1", TeamID: "team_1", Source: "api", Audience: "all", Text: "Hi {first_name}", Segments: 1,
			Status: domain.StatusQueued, CreatedAt: at}
		done := at.Add(time.Minute)
		inTx(t, h, func(ctx context.Context) error {
			if err := h.InsertMessage(ctx, &m); err != nil {
				return err
			}
			if err := h.InsertQueued(ctx, "team_1", "msg_1", at, done, id.NewSeries("dlv"), nil, nil, nil, nil); err != nil {
				return err
			}
			got, err := h.Message(ctx, "team_1", "msg_1")
			require.NoError(t, err)
			require.Nil(t, got.EstimatedCompletion, "no phones: nothing written")
			return h.InsertQueued(ctx, "team_1", "msg_1", at, done, id.NewSeries("dlv"), []string{"+15550000001"}, [][]string{{"mem_a"}},
				[]domain.Text{{Body: "Hi Ava", Segments: 1}}, nil)
		})
		got, err := h.Message(ctx, "team_1", "msg_1")
		require.NoError(t, err)
		require.Equal(t, []any{1, 0}, []any{got.QueuedCount, got.HeldForQuietHours})
		require.True(t, got.EstimatedCompletion.Equal(done))
	})

	// Messages newest first, approvals oldest first, each a page of
	// limit+1; an approval expires only while it waits.
	t.Run("MessagesAndApprovals", func(t *testing.T) {
		t.Parallel()
		ctx, h := setup(t)
		insertMessages(t, h, "", []sentMessage{
			{"msg_a", "team_1", domain.StatusPendingApproval}, {"msg_b", "team_1", domain.StatusQueued},
			{"msg_c", "team_1", domain.StatusPendingApproval}, {"msg_d", "team_2", domain.StatusPendingApproval},
			{"msg_e", "team_1", domain.StatusPendingApproval},
		})
		list, err := h.Messages(ctx, "team_1", 2, 0)
		require.NoError(t, err)
		require.Equal(t, []string{"msg_e", "msg_c", "msg_b"}, messageIDs(list), "newest first, limit+1")
		list, err = h.Messages(ctx, "team_1", 2, 3)
		require.NoError(t, err)
		require.Equal(t, []string{"msg_a"}, messageIDs(list))
		waiting, err := h.Approvals(ctx, "team_1", 1, 0)
		require.NoError(t, err)
		require.Equal(t, []string{"msg_a", "msg_c"}, messageIDs(waiting), "awaiting approval, oldest first, limit+1")

		expiry := at.Add(time.Hour)
		require.NoError(t, h.ExpireApproval(ctx, "msg_a", expiry))
		require.NoError(t, h.ExpireApproval(ctx, "msg_b", expiry)) // not awaiting approval: left as it is
		a, err := h.Message(ctx, "team_1", "msg_a")
		require.NoError(t, err)
		require.Equal(t, domain.StatusExpired, a.Status)
		require.True(t, a.DecidedAt.Equal(expiry))
		b, err := h.Message(ctx, "team_1", "msg_b")
		require.NoError(t, err)
		require.Equal(t, domain.StatusQueued, b.Status)
		require.Nil(t, b.DecidedAt)
		waiting, err = h.Approvals(ctx, "team_1", 50, 0)
		require.NoError(t, err)
		require.Equal(t, []string{"msg_c", "msg_e"}, messageIDs(waiting))
	})

	// The live resend of a message is its earliest resend not rejected or
	// expired, of the same team.
	t.Run("LiveResend", func(t *testing.T) {
		t.Parallel()
		ctx, h := setup(t)
		insertMessages(t, h, "msg_0", []sentMessage{
			{"msg_r1", "team_1", domain.StatusRejected}, {"msg_r2", "team_2", domain.StatusQueued},
			{"msg_r4", "team_1", domain.StatusSent}, {"msg_r3", "team_1", domain.StatusPendingApproval},
			{"msg_r5", "team_1", domain.StatusExpired},
		})
		live, err := h.LiveResend(ctx, "team_1", "msg_0")
		require.NoError(t, err)
		require.Equal(t, "msg_r4", live)
		none, err := h.LiveResend(ctx, "team_1", "msg_other")
		require.NoError(t, err)
		require.Empty(t, none)
	})

	// A poll's recipients are the roster entries recorded at dispatch; no
	// answers yet, no tallies.
	t.Run("PollRecipients", func(t *testing.T) {
		t.Parallel()
		ctx, h := setup(t)
		until := at.Add(24 * time.Hour)
		m := domain.Message{ID: "msg_poll", TeamID: "team_1", Source: "api", Audience: "all", Text: "Coming?", Segments: 1,
			Status: domain.StatusQueued, CreatedAt: at, ReplyOptions: []string{"YES", "NO"}, ReplyUntil: &until}
		inTx(t, h, func(ctx context.Context) error {
			if err := h.InsertMessage(ctx, &m); err != nil {
				return err
			}
			if err := h.InsertQueued(ctx, "team_1", "msg_poll", at, at, id.NewSeries("dlv"), []string{"+15550000001"},
				[][]string{{"mem_a", "mem_b", "mem_c"}}, nil, nil); err != nil {
				return err
			}
			return h.RecordPollRecipients(ctx, "team_1", "msg_poll", at, until, 3)
		})
		tallies, recipients, err := h.PollTallies(ctx, "msg_poll")
		require.NoError(t, err)
		require.Equal(t, map[string]int{}, tallies)
		require.Equal(t, 3, recipients)
		tallies, recipients, err = h.PollTallies(ctx, "msg_none")
		require.NoError(t, err)
		require.Equal(t, []any{map[string]int{}, 0}, []any{tallies, recipients}, "no such poll: nothing")
		rs, err := h.Responses(ctx, "msg_poll", 0, 50, 0)
		require.NoError(t, err)
		require.Empty(t, rs)
	})
}

// sentMessage is a message of the suite's lists.
type sentMessage struct{ id, team, status string }

// insertMessages inserts ms a minute apart, from at, resending resendOf
// when it is not "".
func insertMessages(t *testing.T, h Harness, resendOf string, ms []sentMessage) {
	t.Helper()
	for i, c := range ms {
		m := domain.Message{ID: c.id, TeamID: c.team, Source: "api", Audience: "all", Text: "hi", Segments: 1, Status: c.status,
			ResendOf: resendOf, CreatedAt: at.Add(time.Duration(i) * time.Minute)}
		require.NoError(t, h.InsertMessage(context.Background(), &m))
	}
}

func requireJSONEq(t *testing.T, want, got []byte) {
	t.Helper()
	var w, g any
	require.NoError(t, json.Unmarshal(want, &w))
	require.NoError(t, json.Unmarshal(got, &g))
	require.Equal(t, w, g)
}

// idsOf lists the items' ids, in order.
func idsOf[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, x := range items {
		out = append(out, id(x))
	}
	return out
}

func templateIDs(ts []domain.Template) []string {
	return idsOf(ts, func(t domain.Template) string { return t.ID })
}

func scheduledIDs(ss []domain.Scheduled) []string {
	return idsOf(ss, func(s domain.Scheduled) string { return s.ID })
}

func messageIDs(ms []domain.Message) []string {
	return idsOf(ms, func(m domain.Message) string { return m.ID })
}

func utcTemplate(t domain.Template) domain.Template {
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	t.DeletedAt = utcPtr(t.DeletedAt)
	return t
}

func utcScheduled(s domain.Scheduled) domain.Scheduled {
	s.ScheduledFor, s.CreatedAt, s.UpdatedAt = s.ScheduledFor.UTC(), s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	s.RepeatUntil = utcPtr(s.RepeatUntil)
	s.Request = nil // jsonb: compared as JSON
	return s
}

func utcMessage(m domain.Message) domain.Message {
	m.CreatedAt = m.CreatedAt.UTC()
	m.DecidedAt, m.SentAt, m.EstimatedCompletion, m.ReplyUntil = utcPtr(m.DecidedAt), utcPtr(m.SentAt), utcPtr(m.EstimatedCompletion),
		utcPtr(m.ReplyUntil)
	return m
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
