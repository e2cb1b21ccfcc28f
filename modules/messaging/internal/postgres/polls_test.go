package postgres_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/id"
)

// TestPollStore: a poll's options survive the row; a number's open poll is
// found only once its text was handed over, only while open, only for its
// team, and the latest by dispatch wins; answers are kept one per entry,
// the latest winning whatever order they arrive in; tallies, recipients and
// the page of answers; response_to on the texts.
func TestPollStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	r := postgres.NewRepo(d, nil)
	s := r
	const p1, p2 = "+15550000001", "+15550000002"
	until := at.Add(7 * 24 * time.Hour)
	poll := func(msgID string, sent time.Time) domain.Message {
		return domain.Message{ID: msgID, TeamID: "team_1", Source: "api", Audience: "families", Text: "Coming?", Rendered: "T: Coming?",
			Encoding: "GSM-7", Segments: 1, Recipients: 2, Status: domain.StatusQueued, CreatedAt: sent,
			ReplyOptions: []string{"YES", "NO", "MAYBE"}, ReplyUntil: &until}
	}
	m := poll("msg_p", at)
	inTx(t, d, func(ctx context.Context) error {
		if err := s.InsertMessage(ctx, &m); err != nil {
			return err
		}
		if err := s.InsertQueued(ctx, "team_1", m.ID, at, at, id.NewSeries("dlv"), []string{p1, p2}, [][]string{{"mem_a", "mem_b"}, {"mem_c"}}, nil, nil); err != nil {
			return err
		}
		return s.RecordPollRecipients(ctx, "team_1", m.ID, at, until, 3)
	})
	got, err := s.Message(ctx, "team_1", m.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"YES", "NO", "MAYBE"}, got.ReplyOptions)
	require.True(t, got.ReplyUntil.Equal(until))

	lookup := func(team, phone string, when time.Time) *domain.OpenPoll {
		ps, err := r.OpenPolls(ctx, []string{team}, []string{phone}, []time.Time{when})
		require.NoError(t, err)
		require.Len(t, ps, 1)
		return ps[0]
	}
	require.Nil(t, lookup("team_1", p1, at.Add(time.Minute)), "not handed over yet")
	handOver := func(msgID string, when time.Time) {
		require.NoError(t, d.WithPgx(ctx, func(q db.PgxQuerier) error {
			_, err := q.Exec(ctx, `UPDATE messaging_deliveries SET status = 'sent', sent_at = $2 WHERE message_id = $1`, msgID, when)
			return err
		}))
	}
	handOver(m.ID, at.Add(time.Second))
	open := lookup("team_1", p1, at.Add(time.Minute))
	require.NotNil(t, open)
	require.Equal(t, domain.OpenPoll{MessageID: m.ID, Options: []string{"YES", "NO", "MAYBE"}, MemberIDs: []string{"mem_a", "mem_b"}}, *open)
	require.Nil(t, lookup("team_1", p1, at), "a text from before the hand-over")
	require.Nil(t, lookup("team_1", p1, until), "closed at reply_until")
	require.Nil(t, lookup("team_2", p1, at.Add(time.Minute)), "another team's number")
	require.Nil(t, lookup("team_1", "+15550000009", at.Add(time.Minute)), "a number the poll did not reach")

	// A later poll to p1 only: p1's latest; p2 keeps the first.
	later := poll("msg_q", at.Add(time.Hour))
	inTx(t, d, func(ctx context.Context) error {
		if err := s.InsertMessage(ctx, &later); err != nil {
			return err
		}
		if err := s.InsertQueued(ctx, "team_1", later.ID, at.Add(time.Hour), at.Add(time.Hour), id.NewSeries("dlv"), []string{p1}, [][]string{{"mem_a"}}, nil, nil); err != nil {
			return err
		}
		return s.RecordPollRecipients(ctx, "team_1", later.ID, at.Add(time.Hour), until, 1)
	})
	handOver(later.ID, at.Add(time.Hour+time.Second))
	ps, err := r.OpenPolls(ctx, []string{"team_1", "team_1", "team_1"}, []string{p1, p2, p1}, []time.Time{at.Add(2 * time.Hour), at.Add(2 * time.Hour), at.Add(time.Minute)})
	require.NoError(t, err)
	require.Equal(t, "msg_q", ps[0].MessageID)
	require.Equal(t, "msg_p", ps[1].MessageID)
	require.Equal(t, "msg_p", ps[2].MessageID, "a text from before the later poll's hand-over answers the earlier one")

	// Answers: the latest wins, whatever order they are recorded in.
	member := func(id string) domain.ResponseMember {
		return domain.ResponseMember{ID: id, Name: "Name " + id, Phone: p1, Role: "athlete", Status: "active", CreatedAt: at}
	}
	answer := func(memberID, option, inbound string, when time.Time) domain.Response {
		return domain.Response{MessageID: m.ID, TeamID: "team_1", Member: member(memberID), Option: option, InboundID: inbound, ReceivedAt: when}
	}
	record := func(rs ...domain.Response) (out []int) {
		inTx(t, d, func(ctx context.Context) (err error) {
			out, err = r.RecordResponses(ctx, rs)
			return err
		})
		return out
	}
	t1, t0, t2 := at.Add(10*time.Minute), at.Add(5*time.Minute), at.Add(20*time.Minute)
	require.ElementsMatch(t, []int{0, 1}, record(answer("mem_a", "YES", "inb_2", t1), answer("mem_b", "YES", "inb_2", t1)))
	require.Empty(t, record(answer("mem_a", "NO", "inb_1", t0)), "an older answer arriving late changes nothing")
	require.Equal(t, []int{0}, record(answer("mem_a", "MAYBE", "inb_3", t2)))
	tallies, recipients, err := s.PollTallies(ctx, m.ID)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"YES": 1, "MAYBE": 1}, tallies)
	require.Equal(t, 3, recipients)
	page, err := s.Responses(ctx, m.ID, 2, 1, 0)
	require.NoError(t, err)
	require.Len(t, page, 2, "limit+1 rows")
	require.Equal(t, "MAYBE", page[0].Option, "newest first")
	require.Equal(t, member("mem_a"), utcMember(page[0].Member))
	require.Equal(t, "inb_3", page[0].InboundID)
	none, _, err := s.PollTallies(ctx, "msg_q")
	require.NoError(t, err)
	require.Empty(t, none)

	texts := []domain.Inbound{{ID: "inb_9", TeamID: "team_1", ProviderMessageID: "SM9", FromPhone: p1, ToPhone: "+12025550100", Body: "yes",
		ReceivedAt: t2, CreatedAt: t2}}
	inTx(t, d, func(ctx context.Context) error {
		if _, err := r.InsertInbounds(ctx, texts); err != nil {
			return err
		}
		return r.SetResponseTo(ctx, []string{"inb_9"}, []string{m.ID})
	})
	listed, err := r.InboundMessages(ctx, "team_1", 10, 0)
	require.NoError(t, err)
	require.Equal(t, m.ID, listed[0].ResponseTo)
}

func utcMember(m domain.ResponseMember) domain.ResponseMember {
	m.CreatedAt = m.CreatedAt.UTC()
	return m
}

// TestPollTalliesAndPagesAtScale: the tallies the answers' triggers keep
// equal a count of the answers after inserts, changes of mind, older
// answers arriving late and a deletion; and every page of the answers,
// read from whichever end of the list is nearer, is the page a plain
// newest-first OFFSET scan gives (ties in received_at included).
func TestPollTalliesAndPagesAtScale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
	r := postgres.NewRepo(d, nil)
	until := at.Add(7 * 24 * time.Hour)
	m := domain.Message{ID: "msg_big", TeamID: "team_1", Source: "api", Audience: "families", Text: "Coming?", Rendered: "T: Coming?",
		Encoding: "GSM-7", Segments: 1, Recipients: 1, Status: domain.StatusQueued, CreatedAt: at,
		ReplyOptions: []string{"YES", "NO", "MAYBE"}, ReplyUntil: &until}
	inTx(t, d, func(ctx context.Context) error { return r.InsertMessage(ctx, &m) })
	opts := []string{"YES", "NO", "MAYBE"}
	const members = 67
	answers := func(round int, when func(i int) time.Time, option func(i int) string, which func(i int) bool) []domain.Response {
		var rs []domain.Response
		for i := range members {
			if !which(i) {
				continue
			}
			id := fmt.Sprintf("mem_%03d", i)
			rs = append(rs, domain.Response{MessageID: m.ID, TeamID: "team_1", Option: option(i), InboundID: fmt.Sprintf("inb_%d_%03d", round, i),
				ReceivedAt: when(i), Member: domain.ResponseMember{ID: id, Name: id, Phone: "+15550000001", Role: "athlete", Status: "active", CreatedAt: at}})
		}
		return rs
	}
	record := func(rs []domain.Response) {
		inTx(t, d, func(ctx context.Context) error {
			_, err := r.RecordResponses(ctx, rs)
			return err
		})
	}
	counted := func() map[string]int {
		out := map[string]int{}
		require.NoError(t, d.WithPgx(ctx, func(q db.PgxQuerier) error {
			rows, err := q.Query(ctx, `SELECT option, count(*)::int FROM messaging_responses WHERE message_id = $1 GROUP BY option`, m.ID)
			if err != nil {
				return err
			}
			var o string
			var n int
			_, err = pgx.ForEachRow(rows, []any{&o, &n}, func() error { out[o] = n; return nil })
			return err
		}))
		return out
	}
	check := func(step string) {
		t.Helper()
		tallies, _, err := r.PollTallies(ctx, m.ID)
		require.NoError(t, err)
		require.Equal(t, counted(), tallies, step)
	}
	// Every third answer shares its received_at with the next one.
	record(answers(1, func(i int) time.Time { return at.Add(time.Duration(i/3) * time.Second) }, func(i int) string { return opts[i%3] },
		func(int) bool { return true }))
	check("first answers")
	// Half change their minds; a third send an older answer, which loses.
	record(answers(2, func(i int) time.Time { return at.Add(time.Hour + time.Duration(i%5)*time.Second) }, func(i int) string { return opts[(i+1)%3] },
		func(i int) bool { return i%2 == 0 }))
	check("changes of mind")
	record(answers(3, func(int) time.Time { return at.Add(-time.Hour) }, func(int) string { return "NO" }, func(i int) bool { return i%3 == 0 }))
	check("older answers arriving late")
	require.NoError(t, d.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `DELETE FROM messaging_responses WHERE message_id = $1 AND member_id IN ('mem_001', 'mem_002')`, m.ID)
		return err
	}))
	check("a deletion")
	total := 0
	for _, n := range counted() {
		total += n
	}
	require.Equal(t, members-2, total)

	var want []string
	require.NoError(t, d.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT member_id FROM messaging_responses WHERE message_id = $1 ORDER BY received_at DESC, member_id`, m.ID)
		if err != nil {
			return err
		}
		want, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	}))
	for _, limit := range []int{1, 2, 10, 50, 100} {
		for offset := 0; offset <= total+2; offset++ {
			page, err := r.Responses(ctx, m.ID, total, limit, offset)
			require.NoError(t, err)
			var got []string
			for _, x := range page {
				got = append(got, x.Member.ID)
			}
			exp := want[min(offset, total):min(offset+limit+1, total)]
			if len(exp) == 0 {
				exp = nil
			}
			require.Equal(t, exp, got, "limit %d offset %d", limit, offset)
		}
	}

	// A database upgraded with answers in it: the migration counts them
	// (and run again, counts them the same).
	migration, err := os.ReadFile("migrations/20261210090001_poll_tallies.tx.up.sql")
	require.NoError(t, err)
	require.NoError(t, d.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `DROP TABLE messaging_poll_tallies CASCADE`)
		return err
	}))
	for range 2 {
		inTx(t, d, func(ctx context.Context) error {
			return d.WithPgx(ctx, func(q db.PgxQuerier) error {
				_, err := q.Exec(ctx, string(migration))
				return err
			})
		})
		check("after the migration")
	}
	record(answers(4, func(int) time.Time { return at.Add(2 * time.Hour) }, func(int) string { return "MAYBE" }, func(i int) bool { return i < 10 }))
	check("answers after the migration")
}
