// Package simulator is the built-in carrier: it records every text in an
// outbox (deduplicated on the delivery id, as carriers with idempotency
// keys do), and reports outcomes the admin chose through the same
// ingestion job a real carrier's status callback produces. "unconfirmed"
// means no callback at all.
package simulator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Outcomes a number can be given.
const (
	Delivered   = "delivered"
	Failed      = "failed"
	Unconfirmed = "unconfirmed"
	// Refused (an addition to the admin contract's three) makes Send refuse
	// the text at once with a permanent error carrying the error code, as a
	// carrier refuses an invalid number: nothing is recorded or reported.
	Refused = "refused"
)

// ValidOutcome tells whether o is one of the outcomes above.
func ValidOutcome(o string) bool {
	return o == Delivered || o == Failed || o == Unconfirmed || o == Refused
}

// Simulator implements carrier.Carrier.
type Simulator struct {
	db    *db.DB
	jobs  *jobs.Jobs
	clock clock.Clock
}

// New returns the simulator.
func New(d *db.DB, j *jobs.Jobs, clk clock.Clock) *Simulator {
	return &Simulator{db: d, jobs: j, clock: clk}
}

// Name is "simulator".
func (s *Simulator) Name() string { return "simulator" }

// Send records the text once per delivery id and schedules its outcome.
func (s *Simulator) Send(ctx context.Context, m carrier.Message) (carrier.Receipt, error) {
	rs, err := s.SendMany(ctx, []carrier.Message{m})
	if err != nil {
		return carrier.Receipt{}, err
	}
	return rs[0].Receipt, rs[0].Err
}

var _ carrier.BatchSender = (*Simulator)(nil)

// SendMany records a batch in one transaction: every text once per
// delivery id (one statement), and one ingestion job reporting the
// outcomes of the texts recorded now. Texts recorded before (a retry after
// a crash) get their receipt again but no second text and no second report.
func (s *Simulator) SendMany(ctx context.Context, ms []carrier.Message) ([]carrier.Result, error) {
	out := make([]carrier.Result, len(ms))
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		tx, err := db.MustTx(ctx)
		if err != nil {
			return err
		}
		oc, err := s.outcomes(ctx)
		if err != nil {
			return err
		}
		var keys, teams, tos, froms, bodies, pids []string
		for i, m := range ms {
			if oc.of(m.To) == Refused {
				out[i] = carrier.Result{Err: &carrier.PermanentError{Code: oc.ErrorCode, Message: "simulated refusal of the number"}}
				continue
			}
			sum := sha256.Sum256([]byte(m.DeliveryID))
			pid := "SM" + hex.EncodeToString(sum[:16])
			keys, teams, tos, froms = append(keys, m.DeliveryID), append(teams, m.TeamID), append(tos, m.To), append(froms, m.From)
			bodies, pids = append(bodies, m.Body), append(pids, pid)
			out[i] = carrier.Result{Receipt: carrier.Receipt{ProviderMessageID: pid, Status: "queued"}}
		}
		if len(keys) == 0 {
			return nil
		}
		now := s.clock.Now().UTC()
		rows, err := tx.QueryContext(ctx, `INSERT INTO messaging_sim_outbox (idempotency_key, team_id, to_phone, from_phone, body, provider_message_id, created_at)
SELECT k, t, tp, fp, b, p, ? FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS v(k, t, tp, fp, b, p, n)
ORDER BY n
ON CONFLICT (idempotency_key) DO NOTHING RETURNING idempotency_key`, now,
			pgdialect.Array(keys), pgdialect.Array(teams), pgdialect.Array(tos), pgdialect.Array(froms), pgdialect.Array(bodies), pgdialect.Array(pids))
		if err != nil {
			return fmt.Errorf("simulator outbox: %w", err)
		}
		fresh := map[string]bool{}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return fmt.Errorf("simulator outbox: %w", err)
			}
			fresh[k] = true
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("simulator outbox: %w", err)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("simulator outbox: %w", err)
		}
		var reports []carrier.StatusArgs
		for i, m := range ms {
			if !fresh[m.DeliveryID] {
				continue // refused, sent before (no second text, no second callback), or repeated in this batch
			}
			delete(fresh, m.DeliveryID)
			outcome := oc.of(m.To)
			a := carrier.StatusArgs{DeliveryID: m.DeliveryID, ProviderMessageID: out[i].Receipt.ProviderMessageID, CarrierStatus: outcome, At: now}
			switch outcome {
			case Delivered:
				a.Status = "delivered"
			case Failed:
				a.Status, a.ErrorCode, a.ErrorMessage = "failed", oc.ErrorCode, "simulated carrier failure"
			default:
				continue // unconfirmed: no callback at all
			}
			reports = append(reports, a)
		}
		switch len(reports) {
		case 0:
			return nil
		case 1: // what a real carrier's callback produces
			_, err = s.jobs.Insert(ctx, reports[0], &river.InsertOpts{})
		default:
			_, err = s.jobs.Insert(ctx, carrier.StatusBatchArgs{Statuses: reports}, &river.InsertOpts{})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Simulator) outcomes(ctx context.Context) (Outcomes, error) {
	var o Outcomes
	var numbers []byte
	err := s.db.IDB(ctx).QueryRowContext(ctx, `SELECT default_outcome, numbers, error_code FROM messaging_sim_outcomes WHERE id = 1`).
		Scan(&o.Default, &numbers, &o.ErrorCode)
	if err != nil {
		return Outcomes{}, fmt.Errorf("simulator outcomes: %w", err)
	}
	if err := json.Unmarshal(numbers, &o.Numbers); err != nil {
		return Outcomes{}, fmt.Errorf("simulator outcomes: %w", err)
	}
	return o, nil
}

// of is the outcome of a text to number.
func (o Outcomes) of(number string) string {
	if v, ok := o.Numbers[number]; ok {
		return v
	}
	return o.Default
}

// Outcomes is the admin's setting.
type Outcomes struct {
	Default   string            `json:"default" enum:"delivered,failed,unconfirmed,refused"`
	Numbers   map[string]string `json:"numbers" doc:"E.164 number to outcome (delivered, failed, unconfirmed or refused)."`
	ErrorCode string            `json:"error_code" doc:"Carrier error code reported for failed and refused texts."`
}

// SetOutcomes replaces the outcomes.
func (s *Simulator) SetOutcomes(ctx context.Context, o Outcomes) error {
	if o.Numbers == nil {
		o.Numbers = map[string]string{}
	}
	b, err := json.Marshal(o.Numbers)
	if err != nil {
		return err
	}
	_, err = s.db.IDB(ctx).ExecContext(ctx, `UPDATE messaging_sim_outcomes SET default_outcome = ?, numbers = ?, error_code = ? WHERE id = 1`,
		o.Default, string(b), o.ErrorCode)
	return err
}

// OutboxEntry is one text the simulator received.
type OutboxEntry struct {
	To                string    `json:"to"`
	From              string    `json:"from"`
	Body              string    `json:"body"`
	ProviderMessageID string    `json:"provider_message_id"`
	DeliveryID        string    `json:"delivery_id"`
	CreatedAt         time.Time `json:"created_at"`
}

// Outbox lists texts, oldest first, optionally for one team, limit+1 rows.
func (s *Simulator) Outbox(ctx context.Context, teamID string, limit, offset int) ([]OutboxEntry, error) {
	q := `SELECT to_phone, from_phone, body, provider_message_id, idempotency_key, created_at FROM messaging_sim_outbox`
	args := []any{}
	if teamID != "" {
		q += ` WHERE team_id = ?`
		args = append(args, teamID)
	}
	q += ` ORDER BY id LIMIT ? OFFSET ?`
	args = append(args, limit+1, offset)
	rows, err := s.db.IDB(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("simulator outbox: %w", err)
	}
	defer rows.Close()
	var out []OutboxEntry
	for rows.Next() {
		var e OutboxEntry
		if err := rows.Scan(&e.To, &e.From, &e.Body, &e.ProviderMessageID, &e.DeliveryID, &e.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
