// Package simulator is the built-in carrier. It records every text in an
// outbox (deduplicated on the delivery id, as carriers with idempotency
// keys do) and reports outcomes the admin chose through the same
// ingestion job a real carrier's status callback produces.
//
// It behaves as one of two profiles (SIMULATOR_PROFILE, or the admin's
// PUT /simulator/profile, which every node sees):
//
//   - instant: every text is taken and reported at once, and numbers have
//     no pace (Paced is false): the fast suites' carrier.
//   - realistic: a carrier as the world has them (see realistic.go): each
//     sending number has a queue that sends at the number's throughput,
//     excess waits and, past the queue's age limit, fails with 30001; the
//     status reports come later, by a latency distribution, sometimes twice
//     and sometimes out of order; a recipient who texted STOP to a number
//     is refused by the carrier (21610) until they text START.
//
// Outcomes (PUT /simulator/outcomes) apply under both profiles.
package simulator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
)

// Outcomes a number can be given.
const (
	Delivered   = "delivered"
	Failed      = "failed"      // error_code, default 30003
	Unconfirmed = "unconfirmed" // no final status callback at all
	// Refused (an addition to the admin contract's three) makes Send refuse
	// the text at once with a permanent error carrying the error code
	// (default 21211, an invalid number): nothing is recorded or reported.
	Refused = "refused"
	// Failures with Twilio's codes, for the realistic cases.
	Unreachable = "unreachable" // failed, 30003
	Landline    = "landline"    // failed, 30006
	Filtered    = "filtered"    // failed, 30007
)

// defaultCodes is each failing outcome's error code when the admin gave none.
var defaultCodes = map[string]string{Failed: "30003", Refused: "21211", Unreachable: "30003", Landline: "30006", Filtered: "30007"}

// ValidOutcome tells whether o is one of the outcomes above.
func ValidOutcome(o string) bool {
	_, failing := defaultCodes[o]
	return o == Delivered || o == Unconfirmed || failing
}

// Inserter inserts River jobs in the transaction carried by ctx.
type Inserter interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// PaceOf gives sending numbers' throughputs in segments per second, as the
// carrier provisioned them (the realistic profile's queue rates), for
// every number of froms, in one look-up.
type PaceOf func(ctx context.Context, froms []string) (map[string]float64, error)

// Simulator implements carrier.Carrier and carrier.BatchSender.
type Simulator struct {
	db             *db.DB
	jobs           Inserter
	clock          clock.Clock
	paceOf         PaceOf
	defaultProfile string
}

// New returns the simulator. defaultProfile is SIMULATOR_PROFILE ("" is
// instant); paceOf gives the realistic profile its queues' rates.
func New(d *db.DB, j Inserter, clk clock.Clock, defaultProfile string, paceOf PaceOf) *Simulator {
	if defaultProfile == "" {
		defaultProfile = ProfileInstant
	}
	return &Simulator{db: d, jobs: j, clock: clk, paceOf: paceOf, defaultProfile: defaultProfile}
}

// Name is "simulator".
func (s *Simulator) Name() string { return "simulator" }

// Paced reports whether the current profile paces numbers (realistic does).
func (s *Simulator) Paced(ctx context.Context) (bool, error) {
	set, err := s.settings(ctx)
	if err != nil {
		return false, err
	}
	return set.Profile.Name == ProfileRealistic, nil
}

// Send records the text once per delivery id and schedules its outcome.
func (s *Simulator) Send(ctx context.Context, m carrier.Message) (carrier.Receipt, error) {
	rs, err := s.SendMany(ctx, []carrier.Message{m})
	if err != nil {
		return carrier.Receipt{}, err
	}
	return rs[0].Receipt, rs[0].Err
}

var _ carrier.BatchSender = (*Simulator)(nil)

// providerID is the simulated carrier's id for a delivery: the same for a
// retried delivery id, as for a carrier that deduplicates on it.
func providerID(deliveryID string) string {
	sum := sha256.Sum256([]byte(deliveryID))
	return "SM" + hex.EncodeToString(sum[:16])
}

// SendMany takes a batch in one transaction: texts the outcomes or a STOP
// refuse fail at once; every other text is recorded once per delivery id
// (one statement), and its reports are scheduled by the profile. Texts
// recorded before (a retry after a crash) get their receipt again but no
// second text and no second report.
func (s *Simulator) SendMany(ctx context.Context, ms []carrier.Message) ([]carrier.Result, error) {
	out := make([]carrier.Result, len(ms))
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		set, err := s.settings(ctx)
		if err != nil {
			return err
		}
		realistic := set.Profile.Name == ProfileRealistic
		var stopped map[[2]string]bool
		if realistic {
			if stopped, err = s.stops(ctx, ms); err != nil {
				return err
			}
		}
		now := s.clock.Now().UTC()
		var take []carrier.Message
		for i, m := range ms {
			switch {
			case set.Outcomes.of(m.To) == Refused:
				out[i] = carrier.Result{Err: &carrier.PermanentError{Code: set.Outcomes.code(Refused), Message: "simulated refusal of the number"}}
			case stopped[[2]string{m.To, m.From}]:
				out[i] = carrier.Result{Err: &carrier.PermanentError{Code: "21610", Message: "the recipient unsubscribed (replied STOP)"}}
			default:
				out[i] = carrier.Result{Receipt: carrier.Receipt{ProviderMessageID: providerID(m.DeliveryID), Status: "queued", At: now}}
				take = append(take, m)
			}
		}
		if len(take) == 0 {
			return nil
		}
		fresh, err := s.record(ctx, take, now)
		if err != nil {
			return err
		}
		if realistic {
			return s.queue(ctx, set, fresh, now)
		}
		return s.reportNow(ctx, set.Outcomes, fresh, now)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// record writes the texts not recorded before to the outbox, in the
// batch's order, and returns them (each once).
func (s *Simulator) record(ctx context.Context, ms []carrier.Message, now time.Time) ([]carrier.Message, error) {
	n := len(ms)
	keys, teams, tos, froms, bodies, pids, segs := make([]string, n), make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]int32, n)
	for i, m := range ms {
		keys[i], teams[i], tos[i], froms[i], bodies[i] = m.DeliveryID, m.TeamID, m.To, m.From, m.Body
		pids[i], segs[i] = providerID(m.DeliveryID), int32(max(m.Segments, 1))
	}
	fresh := map[string]bool{}
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `INSERT INTO messaging_sim_outbox (idempotency_key, team_id, to_phone, from_phone, body, provider_message_id, segments, created_at)
SELECT k, t, tp, fp, b, p, g, $8 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[])
  WITH ORDINALITY AS v(k, t, tp, fp, b, p, g, n)
ORDER BY n
ON CONFLICT (idempotency_key) DO NOTHING RETURNING idempotency_key`, keys, teams, tos, froms, bodies, pids, segs, now)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			fresh[k] = true
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("simulator outbox: %w", err)
	}
	var out []carrier.Message
	for _, m := range ms {
		if fresh[m.DeliveryID] {
			delete(fresh, m.DeliveryID) // repeated in this batch: once
			out = append(out, m)
		}
	}
	return out, nil
}

// reportNow reports every text's outcome at once, in one ingestion job
// (the instant profile): a text's final status only, and none for an
// unconfirmed one.
func (s *Simulator) reportNow(ctx context.Context, oc Outcomes, ms []carrier.Message, now time.Time) error {
	var reports []carrier.StatusArgs
	for _, m := range ms {
		if a, ok := oc.final(m, now); ok {
			reports = append(reports, a)
		}
	}
	var err error
	switch len(reports) {
	case 0:
	case 1: // what a real carrier's callback produces
		_, err = s.jobs.Insert(ctx, reports[0], nil)
	default:
		_, err = s.jobs.Insert(ctx, carrier.StatusBatchArgs{Statuses: reports}, nil)
	}
	return err
}

// final is the status report that ends a text to m.To, if its outcome has one.
func (o Outcomes) final(m carrier.Message, at time.Time) (carrier.StatusArgs, bool) {
	outcome := o.of(m.To)
	a := carrier.StatusArgs{DeliveryID: m.DeliveryID, ProviderMessageID: providerID(m.DeliveryID), At: at}
	switch outcome {
	case Delivered:
		a.Status, a.CarrierStatus = "delivered", "delivered"
	case Unconfirmed:
		return a, false
	default:
		a.Status, a.CarrierStatus, a.ErrorCode, a.ErrorMessage = "failed", "undelivered", o.code(outcome), "simulated carrier failure ("+outcome+")"
	}
	return a, true
}

// Outcomes is the admin's setting: the outcome of texts to each number.
type Outcomes struct {
	Default   string            `json:"default" enum:"delivered,failed,unconfirmed,refused,unreachable,landline,filtered" doc:"Outcome of texts to numbers not listed."`
	Numbers   map[string]string `json:"numbers,omitempty" doc:"E.164 number to outcome (delivered, failed, unconfirmed, refused, unreachable, landline or filtered). Optional."`
	ErrorCode string            `json:"error_code,omitempty" doc:"Carrier error code reported for every failing outcome. Optional: by default each has its own (failed and unreachable 30003, landline 30006, filtered 30007, refused 21211)."`
}

// of is the outcome of a text to number.
func (o Outcomes) of(number string) string {
	if v, ok := o.Numbers[number]; ok {
		return v
	}
	return o.Default
}

// code is the error code a failing outcome reports.
func (o Outcomes) code(outcome string) string {
	if o.ErrorCode != "" {
		return o.ErrorCode
	}
	return defaultCodes[outcome]
}

// settings is the simulator's one row: outcomes and profile.
type settings struct {
	Outcomes Outcomes
	Profile  Profile
}

func (s *Simulator) settings(ctx context.Context) (settings, error) {
	var set settings
	var numbers, params []byte
	var profile *string
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		return q.QueryRow(ctx, `SELECT default_outcome, numbers, error_code, profile, profile_params FROM messaging_sim_outcomes WHERE id = 1`).
			Scan(&set.Outcomes.Default, &numbers, &set.Outcomes.ErrorCode, &profile, &params)
	})
	if err != nil {
		return settings{}, fmt.Errorf("simulator settings: %w", err)
	}
	if err := json.Unmarshal(numbers, &set.Outcomes.Numbers); err != nil {
		return settings{}, fmt.Errorf("simulator outcomes: %w", err)
	}
	if err := json.Unmarshal(params, &set.Profile); err != nil {
		return settings{}, fmt.Errorf("simulator profile: %w", err)
	}
	set.Profile.Name = s.defaultProfile
	if profile != nil {
		set.Profile.Name = *profile
	}
	set.Profile = set.Profile.withDefaults()
	return set, nil
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
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `UPDATE messaging_sim_outcomes SET default_outcome = $1, numbers = $2, error_code = $3 WHERE id = 1`,
			o.Default, string(b), o.ErrorCode)
		return err
	})
}

// OutboxEntry is one text the simulator received.
type OutboxEntry struct {
	To                string     `json:"to"`
	From              string     `json:"from"`
	Body              string     `json:"body"`
	ProviderMessageID string     `json:"provider_message_id"`
	DeliveryID        string     `json:"delivery_id"`
	Segments          int        `json:"segments" doc:"SMS segments the text took at the carrier."`
	CreatedAt         time.Time  `json:"created_at" doc:"When the text was handed to the carrier."`
	DepartsAt         *time.Time `json:"departs_at" doc:"Realistic profile: when the carrier's queue for the sending number sent it on (null: instant profile, or refused by the queue)."`
}

const (
	outboxColumns = `SELECT to_phone, from_phone, body, provider_message_id, idempotency_key, segments, created_at, departs_at FROM messaging_sim_outbox`
	outboxAll     = outboxColumns + ` ORDER BY id LIMIT $1 OFFSET $2`
	outboxTeam    = outboxColumns + ` WHERE team_id = $3 ORDER BY id LIMIT $1 OFFSET $2`
)

// Outbox lists texts, oldest first, optionally for one team, limit+1 rows.
func (s *Simulator) Outbox(ctx context.Context, teamID string, limit, offset int) ([]OutboxEntry, error) {
	var out []OutboxEntry
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		query, args := outboxAll, []any{limit + 1, offset}
		if teamID != "" {
			query, args = outboxTeam, append(args, teamID)
		}
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e OutboxEntry
			if err := rows.Scan(&e.To, &e.From, &e.Body, &e.ProviderMessageID, &e.DeliveryID, &e.Segments, &e.CreatedAt, &e.DepartsAt); err != nil {
				return err
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("simulator outbox: %w", err)
	}
	return out, nil
}
