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
)

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
	sum := sha256.Sum256([]byte(m.DeliveryID))
	providerID := "SM" + hex.EncodeToString(sum[:16])
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		tx, err := db.MustTx(ctx)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		res, err := tx.ExecContext(ctx, `INSERT INTO messaging_sim_outbox (idempotency_key, team_id, to_phone, from_phone, body, provider_message_id, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING`, m.DeliveryID, m.TeamID, m.To, m.From, m.Body, providerID, now)
		if err != nil {
			return fmt.Errorf("simulator outbox: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // sent before (a retry after a crash): no second text, no second callback
		}
		outcome, code, err := s.outcome(ctx, m.To)
		if err != nil {
			return err
		}
		args := carrier.StatusArgs{DeliveryID: m.DeliveryID, ProviderMessageID: providerID, CarrierStatus: outcome, At: now}
		switch outcome {
		case Delivered:
			args.Status = "delivered"
		case Failed:
			args.Status, args.ErrorCode, args.ErrorMessage = "failed", code, "simulated carrier failure"
		default:
			return nil
		}
		_, err = s.jobs.Insert(ctx, args, &river.InsertOpts{})
		return err
	})
	if err != nil {
		return carrier.Receipt{}, err
	}
	return carrier.Receipt{ProviderMessageID: providerID, Status: "queued"}, nil
}

func (s *Simulator) outcome(ctx context.Context, to string) (string, string, error) {
	var def, code string
	var numbers []byte
	err := s.db.IDB(ctx).QueryRowContext(ctx, `SELECT default_outcome, numbers, error_code FROM messaging_sim_outcomes WHERE id = 1`).Scan(&def, &numbers, &code)
	if err != nil {
		return "", "", fmt.Errorf("simulator outcomes: %w", err)
	}
	var per map[string]string
	if err := json.Unmarshal(numbers, &per); err != nil {
		return "", "", fmt.Errorf("simulator outcomes: %w", err)
	}
	if o, ok := per[to]; ok {
		return o, code, nil
	}
	return def, code, nil
}

// Outcomes is the admin's setting.
type Outcomes struct {
	Default   string            `json:"default" enum:"delivered,failed,unconfirmed"`
	Numbers   map[string]string `json:"numbers" doc:"E.164 number to outcome."`
	ErrorCode string            `json:"error_code" doc:"Carrier error code reported for failed texts."`
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
