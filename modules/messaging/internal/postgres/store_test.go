package postgres_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
	"github.com/teamtext/teamtext/platform/id"
)

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

// at is a time Postgres keeps exactly (microseconds, UTC).
var at = time.Date(2027, 1, 2, 3, 4, 5, 6000, time.UTC)

func inTx(t *testing.T, d *db.DB, fn func(ctx context.Context) error) {
	t.Helper()
	require.NoError(t, d.Tx(context.Background(), fn))
}

// TestTemplateRoundTrip: every field of a template survives the row and
// back; another team's id and a deleted template (unless asked for) are
// domain.ErrNotFound.
func TestTemplateRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	r := postgres.NewRepo(d, nil)
	tpl := domain.Template{ID: "tpl_1", TeamID: "team_1", Name: "Practice", Body: "See you at 5", MessageType: domain.TypeReminder,
		CreatedAt: at, UpdatedAt: at.Add(time.Second)}
	require.NoError(t, r.InsertTemplate(ctx, &tpl))
	got, err := r.Template(ctx, "team_1", "tpl_1", false, false)
	require.NoError(t, err)
	require.Equal(t, tpl, utcTemplate(*got))
	byName, err := r.TemplateByName(ctx, "team_1", "PRACTICE")
	require.NoError(t, err)
	require.Equal(t, tpl, utcTemplate(*byName))

	_, err = r.Template(ctx, "team_2", "tpl_1", false, false)
	require.ErrorIs(t, err, domain.ErrNotFound)

	deleted := at.Add(time.Minute)
	tpl.DeletedAt, tpl.Name = &deleted, "Old"
	require.NoError(t, r.UpdateTemplate(ctx, &tpl))
	_, err = r.Template(ctx, "team_1", "tpl_1", false, false)
	require.ErrorIs(t, err, domain.ErrNotFound)
	got, err = r.Template(ctx, "team_1", "tpl_1", true, false)
	require.NoError(t, err)
	require.Equal(t, tpl, utcTemplate(*got))
	n, err := r.CountTemplates(ctx, "team_1")
	require.NoError(t, err)
	require.Zero(t, n)
}

func utcTemplate(t domain.Template) domain.Template {
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	if t.DeletedAt != nil {
		u := t.DeletedAt.UTC()
		t.DeletedAt = &u
	}
	return t
}

// TestScheduledRoundTrip: every field of a scheduled send survives, the
// request as JSON and repeat_until as a date.
func TestScheduledRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	r := postgres.NewRepo(d, nil)
	until := time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)
	s := domain.NewScheduled("sch_1", "team_1", "key_1", "mem_1", []byte(`{"text":"hi","audience":"all"}`), at, &until, at)
	require.NoError(t, r.InsertScheduled(ctx, &s))
	var got *domain.Scheduled
	inTx(t, d, func(ctx context.Context) error {
		var err error
		got, err = r.Scheduled(ctx, "team_1", "sch_1")
		return err
	})
	require.Equal(t, utcScheduled(s), utcScheduled(*got))
	require.JSONEq(t, string(s.Request), string(got.Request))

	s.Started(at.Add(time.Hour))
	s.Stop("no_sender")
	require.NoError(t, r.UpdateScheduled(ctx, &s))
	inTx(t, d, func(ctx context.Context) error {
		var err error
		got, err = r.Scheduled(ctx, "", "sch_1")
		return err
	})
	require.Equal(t, utcScheduled(s), utcScheduled(*got))
	require.JSONEq(t, string(s.Request), string(got.Request))
	inTx(t, d, func(ctx context.Context) error {
		_, err := r.Scheduled(ctx, "team_2", "sch_1")
		require.ErrorIs(t, err, domain.ErrNotFound)
		return nil
	})
	pending, err := r.PendingScheduled(ctx, "team_1", 50, 0)
	require.NoError(t, err)
	require.Empty(t, pending, "a stopped send is not pending")
}

func utcScheduled(s domain.Scheduled) domain.Scheduled {
	s.ScheduledFor, s.CreatedAt, s.UpdatedAt = s.ScheduledFor.UTC(), s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	if s.RepeatUntil != nil {
		y, m, d := s.RepeatUntil.Date()
		u := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		s.RepeatUntil = &u
	}
	s.Request = nil // jsonb: compared as JSON
	return s
}

// TestSendStoreRoundTrip: a message's fields survive; its counts are the
// statements' (InsertQueued), never written back by UpdateMessage; its
// deliveries list with their roster entries; failed ones read for resends.
func TestSendStoreRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	s := postgres.NewSendStore(postgres.NewRepo(d, nil))
	m := domain.Message{ID: "msg_1", TeamID: "team_1", KeyID: "key_1", MemberID: "mem_1", Source: "api", Audience: "group", GroupID: "grp_1",
		TemplateID: "tpl_1", ScheduledID: "sch_1", Text: "hi", Rendered: "Tigers: hi", Encoding: "GSM-7", Segments: 1, Recipients: 2,
		Status: domain.StatusQueued, Urgent: true, CreatedAt: at, SkippedUndeliverable: 3, ResendOf: "msg_0"}
	done := at.Add(time.Minute)
	inTx(t, d, func(ctx context.Context) error {
		if err := s.InsertMessage(ctx, &m); err != nil {
			return err
		}
		// The second text is held for quiet hours until done.
		return s.InsertQueued(ctx, "team_1", "msg_1", at, done, id.NewSeries("dlv"), []string{"+15550000001", "+15550000002"},
			[][]string{{"mem_a", "mem_b"}, {"mem_c"}}, nil, []time.Time{{}, done})
	})
	got, err := s.Message(ctx, "team_1", "msg_1", false)
	require.NoError(t, err)
	want := m
	want.QueuedCount, want.EstimatedCompletion, want.HeldForQuietHours = 2, &done, 1
	require.Equal(t, want, utcMessage(*got))
	_, err = s.Message(ctx, "team_2", "msg_1", false)
	require.ErrorIs(t, err, domain.ErrNotFound)

	decided := at.Add(time.Hour)
	got.DecidedAt, got.DecidedBy, got.QueuedCount = &decided, "mem_hc", 99
	require.NoError(t, s.UpdateMessage(ctx, got))
	again, err := s.Message(ctx, "team_1", "msg_1", false)
	require.NoError(t, err)
	require.Equal(t, 2, again.QueuedCount, "UpdateMessage leaves the counts to the statements")
	require.Equal(t, "mem_hc", again.DecidedBy)

	_, err = s.Deliveries(ctx, "team_2", "msg_1", "", 50, 0)
	require.ErrorIs(t, err, domain.ErrNotFound)
	empty, err := s.Deliveries(ctx, "team_1", "msg_1", "", 50, 2) // past the last: an empty page, not 404
	require.NoError(t, err)
	require.Empty(t, empty)
	ds, err := s.Deliveries(ctx, "team_1", "msg_1", "", 50, 0)
	require.NoError(t, err)
	require.Len(t, ds, 2)
	require.Equal(t, []string{"mem_a", "mem_b"}, ds[0].MemberIDs)
	require.Equal(t, "+15550000002", ds[1].Phone)
	require.Equal(t, domain.DeliveryQueued, ds[1].Status)
	require.Nil(t, ds[0].HeldUntil)
	require.NotNil(t, ds[1].HeldUntil)
	require.True(t, ds[1].HeldUntil.Equal(done), "held until its slot")
	held, err := s.HeldQueued(ctx, "msg_1", at)
	require.NoError(t, err)
	require.Equal(t, 1, held)
	queued, err := s.Deliveries(ctx, "team_1", "msg_1", domain.DeliveryQueued, 50, 0)
	require.NoError(t, err)
	require.Len(t, queued, 2, "the status filter keeps the deliveries in that status")
	failed, err := s.Deliveries(ctx, "team_1", "msg_1", domain.DeliveryFailed, 50, 0)
	require.NoError(t, err)
	require.Empty(t, failed, "and only those")

	list, err := s.Messages(ctx, "team_1", 50, 0)
	require.NoError(t, err)
	require.Len(t, list, 1)
	fs, err := s.FailedDeliveries(ctx, "msg_1")
	require.NoError(t, err)
	require.Empty(t, fs)
	prior, err := s.LiveResend(ctx, "team_1", "msg_0")
	require.NoError(t, err)
	require.Equal(t, "msg_1", prior)
}

func utcMessage(m domain.Message) domain.Message {
	m.CreatedAt = m.CreatedAt.UTC()
	for _, p := range []**time.Time{&m.DecidedAt, &m.SentAt, &m.EstimatedCompletion} {
		if *p != nil {
			u := (**p).UTC()
			*p = &u
		}
	}
	return m
}
