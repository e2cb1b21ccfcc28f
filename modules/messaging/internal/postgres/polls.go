package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamtext/teamtext/modules/messaging/internal/domain"
	"github.com/teamtext/teamtext/platform/db"
)

// Polls (RSVP by reply): the numbers a poll went to, the latest
// open poll of each number that answers, the answers and their tallies.
// Every statement takes a whole batch's arrays.

// RecordPollRecipients notes the numbers of a dispatched poll's deliveries
// (written just before, in the same transaction) and the roster entries
// they reached, in one statement.
func (r *Repo) RecordPollRecipients(ctx context.Context, teamID, messageID string, at, until time.Time, entries int) error {
	return r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `WITH ins AS (INSERT INTO messaging_poll_recipients (team_id, phone, message_id, delivery_id, sent_at, reply_until)
SELECT $1, phone, message_id, id, $3, $4 FROM messaging_deliveries WHERE message_id = $2
ON CONFLICT DO NOTHING)
UPDATE messaging_messages SET poll_recipients = $5 WHERE id = $2`, teamID, messageID, at, until, entries)
		if err != nil {
			return fmt.Errorf("record poll %s recipients: %w", messageID, err)
		}
		return nil
	})
}

// OpenPollsSQL finds, for each text ($1 teams, $2 numbers, $3 arrival
// times, by position), the latest poll (by dispatch) of the text's team
// whose text was handed over to the number before the text arrived and is
// still open at its arrival, with its options and the roster entries its
// delivery reached. Texts with none are absent.
const OpenPollsSQL = `SELECT v.ord, x.message_id, x.member_ids, x.reply_options
FROM unnest($1::text[], $2::text[], $3::timestamptz[]) WITH ORDINALITY AS v(team_id, phone, at, ord)
JOIN LATERAL (
  SELECT p.message_id, d.member_ids, m.reply_options
  FROM messaging_poll_recipients p
  JOIN messaging_deliveries d ON d.id = p.delivery_id
  JOIN messaging_messages m ON m.id = p.message_id
  WHERE p.team_id = v.team_id AND p.phone = v.phone AND p.reply_until > v.at AND p.sent_at <= v.at
    AND d.sent_at IS NOT NULL AND d.sent_at <= v.at
  ORDER BY p.sent_at DESC, p.message_id DESC
  LIMIT 1) x ON true`

// OpenPolls returns, by position, the latest open poll each text (team
// teams[i], from phones[i], arrived at ats[i]) can answer; nil where none.
func (r *Repo) OpenPolls(ctx context.Context, teams, phones []string, ats []time.Time) ([]*domain.OpenPoll, error) {
	out := make([]*domain.OpenPoll, len(teams))
	if len(teams) == 0 {
		return out, nil
	}
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		// Planned at each run (pgx's exec mode, no prepared statement): a
		// plan cached while the poll recipients were few (a team's first
		// poll, its numbers' first answers) scanned the whole table for
		// each text once the poll had 10,000 recipients, until autovacuum
		// analysed it (374 ms a batch in the inbound-answers bench).
		rows, err := q.Query(ctx, OpenPollsSQL, pgx.QueryExecModeExec, teams, phones, ats)
		if err != nil {
			return err
		}
		var ord int
		var p domain.OpenPoll
		_, err = pgx.ForEachRow(rows, []any{&ord, &p.MessageID, &p.MemberIDs, &p.Options}, func() error {
			cp := p
			out[ord-1] = &cp
			p = domain.OpenPoll{}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("open polls of %d texts: %w", len(teams), err)
	}
	return out, nil
}

// memberJSON is a response's member as stored (and as member.* events
// show it).
type memberJSON struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Phone     string    `json:"phone"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	Status    string    `json:"status"`
	IsBlocked bool      `json:"is_blocked"`
	CreatedAt time.Time `json:"created_at"`
}

// RecordResponses stores answers, one per (poll, roster entry), in one
// statement: an answer replaces the entry's earlier one only if it is
// newer (domain.Response.Newer), so an older duplicate arriving late
// changes nothing. It returns the positions of the answers it recorded.
// rs must hold one answer per (poll, entry).
func (r *Repo) RecordResponses(ctx context.Context, rs []domain.Response) ([]int, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	n := len(rs)
	msgs, members, teams, opts, inbounds, jsons := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	received := make([]time.Time, n)
	for i, x := range rs {
		m := x.Member
		b, err := json.Marshal(memberJSON{ID: m.ID, Name: m.Name, Phone: m.Phone, Email: m.Email, Role: m.Role, Status: m.Status,
			IsBlocked: m.IsBlocked, CreatedAt: m.CreatedAt.UTC()})
		if err != nil {
			return nil, err
		}
		msgs[i], members[i], teams[i], opts[i], inbounds[i], jsons[i], received[i] = x.MessageID, m.ID, x.TeamID, x.Option, x.InboundID, string(b), x.ReceivedAt
	}
	var recorded []int
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `INSERT INTO messaging_responses AS r (message_id, member_id, team_id, option, inbound_id, member, received_at)
SELECT v.msg, v.member, v.team, v.opt, v.inb, v.js::jsonb, v.at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
  WITH ORDINALITY AS v(msg, member, team, opt, inb, js, at, ord)
ORDER BY v.msg, v.member
ON CONFLICT (message_id, member_id) DO UPDATE SET option = excluded.option, inbound_id = excluded.inbound_id, member = excluded.member,
  received_at = excluded.received_at
WHERE (r.received_at, r.inbound_id) < (excluded.received_at, excluded.inbound_id)
RETURNING message_id, member_id`, msgs, members, teams, opts, inbounds, jsons, received)
		if err != nil {
			return err
		}
		pos := make(map[[2]string]int, n)
		for i := range rs {
			pos[[2]string{msgs[i], members[i]}] = i
		}
		var msg, member string
		_, err = pgx.ForEachRow(rows, []any{&msg, &member}, func() error {
			recorded = append(recorded, pos[[2]string{msg, member}])
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("record %d poll answers: %w", n, err)
	}
	return recorded, nil
}

// SetResponseTo records the poll each text answered (ids[i] answered
// polls[i]) in one statement.
func (r *Repo) SetResponseTo(ctx context.Context, ids, polls []string) error {
	if len(ids) == 0 {
		return nil
	}
	return r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		// i.id = ANY($1) lets the planner find the texts by primary key,
		// whatever it guesses of the unnest's size (a batch's statement
		// took 60 ms in the answers' benchmark without it, 24 with it).
		_, err := q.Exec(ctx, `UPDATE messaging_inbound AS i SET response_to = v.poll
FROM unnest($1::text[], $2::text[]) AS v(id, poll) WHERE i.id = v.id AND i.id = ANY($1::text[])`, ids, polls)
		if err != nil {
			return fmt.Errorf("set response_to of %d texts: %w", len(ids), err)
		}
		return nil
	})
}

// PollTallies reads a poll's answers per option (the sums of the sharded
// counts the answers' triggers keep, see migration 20261210090001) and the
// roster entries its deliveries reached, in one statement.
func (r *Repo) PollTallies(ctx context.Context, messageID string) (map[string]int, int, error) {
	tallies := map[string]int{}
	var recipients int
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT coalesce(m.poll_recipients, 0), t.option, coalesce(t.n, 0) FROM messaging_messages m
LEFT JOIN LATERAL (SELECT option, sum(count)::int AS n FROM messaging_poll_tallies WHERE message_id = m.id GROUP BY option HAVING sum(count) > 0) t ON true
WHERE m.id = $1`, messageID)
		if err != nil {
			return err
		}
		var o *string
		var n int
		_, err = pgx.ForEachRow(rows, []any{&recipients, &o, &n}, func() error {
			if o != nil {
				tallies[*o] = n
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("poll %s tallies: %w", messageID, err)
	}
	return tallies, recipients, nil
}

// Responses is a page of a poll's answers, newest first, limit+1 rows; total
// is how many answers the poll has (its tallies' sum). An offset skips
// index entries one by one, so the page's keys are read from the nearer
// end of the list index: from the newest with the offset when the page
// lies in the list's first half, else from the oldest (a backward scan)
// with the offset counted from there. Then the keys' rows.
//
// total comes from an earlier statement: answers recorded in between make
// the backward page the one a forward scan gave just before them, as a
// forward page shifts when answers arrive during a client's walk.
func (r *Repo) Responses(ctx context.Context, messageID string, total, limit, offset int) ([]domain.Response, error) {
	var out []domain.Response
	err := r.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		n := limit + 1
		keys := `SELECT member_id, received_at FROM messaging_responses WHERE message_id = $1 ORDER BY received_at DESC, member_id LIMIT $2 OFFSET $3`
		lim, off := n, offset
		if skip := total - offset - n; skip < offset {
			keys = `SELECT member_id, received_at FROM messaging_responses WHERE message_id = $1 ORDER BY received_at, member_id DESC LIMIT $2 OFFSET $3`
			lim, off = max(min(n, total-offset), 0), max(skip, 0)
		}
		rows, err := q.Query(ctx, `SELECT r.message_id, r.team_id, r.option, r.inbound_id, r.member, r.received_at
FROM (`+keys+`) k JOIN messaging_responses r ON r.message_id = $1 AND r.member_id = k.member_id
ORDER BY k.received_at DESC, k.member_id`, messageID, lim, off)
		if err != nil {
			return err
		}
		var x domain.Response
		var js []byte
		_, err = pgx.ForEachRow(rows, []any{&x.MessageID, &x.TeamID, &x.Option, &x.InboundID, &js, &x.ReceivedAt}, func() error {
			var m memberJSON
			if err := json.Unmarshal(js, &m); err != nil {
				return err
			}
			x.Member = domain.ResponseMember{ID: m.ID, Name: m.Name, Phone: m.Phone, Email: m.Email, Role: m.Role, Status: m.Status,
				IsBlocked: m.IsBlocked, CreatedAt: m.CreatedAt}
			out = append(out, x)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("poll %s responses: %w", messageID, err)
	}
	return out, nil
}
