package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/teamtext/teamtext/modules/messaging/internal/carrier"
	"github.com/teamtext/teamtext/platform/db"
)

// Profiles.
const (
	ProfileInstant   = "instant"
	ProfileRealistic = "realistic"
)

// ValidProfile tells whether p names a profile.
func ValidProfile(p string) bool { return p == ProfileInstant || p == ProfileRealistic }

// Profile is how the simulator behaves; the numbers tune the realistic one.
type Profile struct {
	Name               string  `json:"name" enum:"instant,realistic"`
	ReportLatencyMinMS int     `json:"report_latency_min_ms" doc:"Realistic: shortest time from a text leaving the carrier's queue to its final status report."`
	ReportLatencyMaxMS int     `json:"report_latency_max_ms" doc:"Realistic: longest such time; latencies are spread evenly between the two."`
	DuplicateRate      float64 `json:"duplicate_rate" doc:"Realistic: share of final reports the carrier posts twice."`
	ReorderRate        float64 `json:"reorder_rate" doc:"Realistic: share of texts whose 'sent' report arrives after their final report."`
	MaxQueueSeconds    int     `json:"max_queue_seconds" doc:"Realistic: longest a text may wait in a number's carrier queue; past it the text fails with 30001 (queue overflow), as Twilio's do."`
}

// Defaults of the realistic profile's numbers.
const (
	DefaultReportLatencyMin = 200 * time.Millisecond
	DefaultReportLatencyMax = 2 * time.Second
	DefaultDuplicateRate    = 0.05
	DefaultReorderRate      = 0.1
	DefaultMaxQueue         = 4 * time.Hour
)

// withDefaults fills the numbers never set.
func (p Profile) withDefaults() Profile {
	if p.ReportLatencyMaxMS == 0 && p.ReportLatencyMinMS == 0 {
		p.ReportLatencyMinMS, p.ReportLatencyMaxMS = int(DefaultReportLatencyMin/time.Millisecond), int(DefaultReportLatencyMax/time.Millisecond)
	}
	if p.MaxQueueSeconds == 0 {
		p.MaxQueueSeconds = int(DefaultMaxQueue / time.Second)
	}
	return p
}

// ProfileInput is a profile as the admin sets it; fields left out keep
// their defaults.
type ProfileInput struct {
	Name               string   `json:"name" enum:"instant,realistic"`
	ReportLatencyMinMS *int     `json:"report_latency_min_ms,omitempty" minimum:"0" maximum:"3600000" doc:"Default 200."`
	ReportLatencyMaxMS *int     `json:"report_latency_max_ms,omitempty" minimum:"0" maximum:"3600000" doc:"Default 2000; at least report_latency_min_ms."`
	DuplicateRate      *float64 `json:"duplicate_rate,omitempty" minimum:"0" maximum:"1" doc:"Default 0.05."`
	ReorderRate        *float64 `json:"reorder_rate,omitempty" minimum:"0" maximum:"1" doc:"Default 0.1."`
	MaxQueueSeconds    *int     `json:"max_queue_seconds,omitempty" minimum:"1" maximum:"86400" doc:"Default 14400 (4 hours)."`
}

// Profile returns the input with defaults filled in; ok is false when the
// latencies are the wrong way round.
func (in ProfileInput) Profile() (Profile, bool) {
	p := Profile{Name: in.Name, ReportLatencyMinMS: int(DefaultReportLatencyMin / time.Millisecond),
		ReportLatencyMaxMS: int(DefaultReportLatencyMax / time.Millisecond), DuplicateRate: DefaultDuplicateRate,
		ReorderRate: DefaultReorderRate, MaxQueueSeconds: int(DefaultMaxQueue / time.Second)}
	if in.ReportLatencyMinMS != nil {
		p.ReportLatencyMinMS = *in.ReportLatencyMinMS
		p.ReportLatencyMaxMS = max(p.ReportLatencyMaxMS, p.ReportLatencyMinMS)
	}
	if in.ReportLatencyMaxMS != nil {
		p.ReportLatencyMaxMS = *in.ReportLatencyMaxMS
	}
	if in.DuplicateRate != nil {
		p.DuplicateRate = *in.DuplicateRate
	}
	if in.ReorderRate != nil {
		p.ReorderRate = *in.ReorderRate
	}
	if in.MaxQueueSeconds != nil {
		p.MaxQueueSeconds = *in.MaxQueueSeconds
	}
	return p, p.ReportLatencyMaxMS >= p.ReportLatencyMinMS
}

// SetProfile switches every node's simulator to p.
func (s *Simulator) SetProfile(ctx context.Context, p Profile) error {
	params, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		_, err := q.Exec(ctx, `UPDATE messaging_sim_outcomes SET profile = $1, profile_params = $2 WHERE id = 1`, p.Name, params)
		return err
	})
}

// CurrentProfile is the profile in force.
func (s *Simulator) CurrentProfile(ctx context.Context) (Profile, error) {
	set, err := s.settings(ctx)
	return set.Profile, err
}

// queue runs the realistic profile's carrier for texts just taken: each
// goes through its sending number's queue, which sends at the number's
// throughput; a text that would wait longer than the queue's limit fails
// with 30001. Its reports are scheduled for the report pump: "sent" when
// it leaves the queue, the final one after a latency, some twice, some
// out of order. The randomness is seeded by the delivery id, so a run
// repeats.
func (s *Simulator) queue(ctx context.Context, set settings, ms []carrier.Message, now time.Time) error {
	p := set.Profile
	free, err := s.lockQueues(ctx, ms, now)
	if err != nil {
		return err
	}
	froms := make([]string, 0, len(free))
	for from := range free {
		froms = append(froms, from)
	}
	paces, err := s.paceOf(ctx, froms)
	if err != nil {
		return err
	}
	maxQueue := time.Duration(p.MaxQueueSeconds) * time.Second
	var reports []scheduled
	keys, departs := make([]string, 0, len(ms)), make([]time.Time, 0, len(ms))
	for _, m := range ms {
		rng := rand.New(rand.NewPCG(seed(m.DeliveryID), 0))
		depart := later(free[m.From], now)
		if depart.Sub(now) > maxQueue {
			at := now.Add(maxQueue)
			reports = append(reports, scheduled{at, carrier.StatusArgs{DeliveryID: m.DeliveryID, ProviderMessageID: providerID(m.DeliveryID),
				Status: "failed", CarrierStatus: "failed", ErrorCode: "30001", ErrorMessage: "queue overflow", At: at}})
			continue
		}
		free[m.From] = depart.Add(time.Duration(float64(max(m.Segments, 1)) / paces[m.From] * float64(time.Second)))
		keys, departs = append(keys, m.DeliveryID), append(departs, depart)
		spread := time.Duration(p.ReportLatencyMaxMS-p.ReportLatencyMinMS) * time.Millisecond
		finalAt := depart.Add(time.Duration(p.ReportLatencyMinMS)*time.Millisecond + time.Duration(rng.Float64()*float64(spread)))
		sentAt := depart
		if rng.Float64() < p.ReorderRate {
			sentAt = finalAt.Add(time.Duration(100+rng.IntN(900)) * time.Millisecond)
		}
		reports = append(reports, scheduled{sentAt, carrier.StatusArgs{DeliveryID: m.DeliveryID, ProviderMessageID: providerID(m.DeliveryID),
			Status: "sent", CarrierStatus: "sent", At: sentAt}})
		if a, ok := set.Outcomes.final(m, finalAt); ok {
			reports = append(reports, scheduled{finalAt, a})
			if rng.Float64() < p.DuplicateRate {
				again := finalAt.Add(time.Duration(100+rng.IntN(900)) * time.Millisecond)
				dup := a
				dup.At = again
				reports = append(reports, scheduled{again, dup})
			}
		}
	}
	if err := s.saveQueues(ctx, free, keys, departs); err != nil {
		return err
	}
	return s.schedule(ctx, reports)
}

type scheduled struct {
	due time.Time
	a   carrier.StatusArgs
}

func seed(id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return h.Sum64()
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// lockQueues returns, locked, when each sending number's queue is free.
func (s *Simulator) lockQueues(ctx context.Context, ms []carrier.Message, now time.Time) (map[string]time.Time, error) {
	seen := map[string]bool{}
	var froms []string
	for _, m := range ms {
		if !seen[m.From] {
			seen[m.From] = true
			froms = append(froms, m.From)
		}
	}
	free := map[string]time.Time{}
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		if _, err := q.Exec(ctx, `INSERT INTO messaging_sim_queues (from_phone, free_at) SELECT f, $2 FROM unnest($1::text[]) AS f
ORDER BY f ON CONFLICT DO NOTHING`, froms, now); err != nil {
			return err
		}
		rows, err := q.Query(ctx, `SELECT from_phone, free_at FROM messaging_sim_queues WHERE from_phone = ANY($1) ORDER BY from_phone FOR UPDATE`, froms)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var f string
			var at time.Time
			if err := rows.Scan(&f, &at); err != nil {
				return err
			}
			free[f] = at
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("simulator queues: %w", err)
	}
	return free, nil
}

// saveQueues writes the queues' new free instants and the texts' departures.
func (s *Simulator) saveQueues(ctx context.Context, free map[string]time.Time, keys []string, departs []time.Time) error {
	froms, ats := make([]string, 0, len(free)), make([]time.Time, 0, len(free))
	for f, at := range free {
		froms, ats = append(froms, f), append(ats, at)
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		if _, err := q.Exec(ctx, `UPDATE messaging_sim_queues AS q SET free_at = v.at FROM unnest($1::text[], $2::timestamptz[]) AS v(f, at)
WHERE q.from_phone = v.f`, froms, ats); err != nil {
			return fmt.Errorf("simulator queues: %w", err)
		}
		if _, err := q.Exec(ctx, `UPDATE messaging_sim_outbox AS o SET departs_at = v.at FROM unnest($1::text[], $2::timestamptz[]) AS v(k, at)
WHERE o.idempotency_key = v.k`, keys, departs); err != nil {
			return fmt.Errorf("simulator departures: %w", err)
		}
		return nil
	})
}

// schedule stores reports for the report pump to post when due.
func (s *Simulator) schedule(ctx context.Context, rs []scheduled) error {
	if len(rs) == 0 {
		return nil
	}
	due, docs := make([]time.Time, len(rs)), make([][]byte, len(rs))
	for i, r := range rs {
		b, err := json.Marshal(r.a)
		if err != nil {
			return err
		}
		due[i], docs[i] = r.due, b
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		if _, err := q.Exec(ctx, `INSERT INTO messaging_sim_reports (due_at, report) SELECT * FROM unnest($1::timestamptz[], $2::jsonb[])`, due, docs); err != nil {
			return fmt.Errorf("simulator reports: %w", err)
		}
		return nil
	})
}

// ReportsArgs is the simulated carrier's report pump: it posts the status
// reports that are due, then snoozes until the next one (at most a second).
type ReportsArgs struct{}

// Kind names the job.
func (ReportsArgs) Kind() string { return "messaging.sim_reports" }

// InsertOpts keeps one report pump alive, in the status queue.
func (ReportsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: carrier.StatusQueue, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable, rivertype.JobStateRunning,
		rivertype.JobStateScheduled,
	}}}
}

// EnsureReportPump inserts the report pump if it is missing.
func (s *Simulator) EnsureReportPump(ctx context.Context) error {
	return s.db.Tx(ctx, func(ctx context.Context) error {
		_, err := s.jobs.Insert(ctx, ReportsArgs{}, nil)
		return err
	})
}

// reportsPerPost bounds one post.
const reportsPerPost = 1000

// PostDue posts the reports that are due as one ingestion job, as a
// carrier's callbacks arrive, and says when to look again.
func (s *Simulator) PostDue(ctx context.Context) (time.Time, error) {
	now := s.clock.Now().UTC()
	var posted int
	err := s.db.Tx(ctx, func(ctx context.Context) error {
		var as []carrier.StatusArgs
		err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
			rows, err := q.Query(ctx, `DELETE FROM messaging_sim_reports WHERE id IN (
  SELECT id FROM messaging_sim_reports WHERE due_at <= $1 ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
RETURNING report`, now, reportsPerPost)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var a carrier.StatusArgs
				if err := rows.Scan(&a); err != nil {
					return err
				}
				as = append(as, a)
			}
			return rows.Err()
		})
		if err != nil || len(as) == 0 {
			return err
		}
		posted = len(as)
		_, err = s.jobs.Insert(ctx, carrier.StatusBatchArgs{Statuses: as}, nil)
		return err
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("simulator reports: %w", err)
	}
	if posted == reportsPerPost {
		return now, nil
	}
	var next *time.Time
	err = s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		return q.QueryRow(ctx, `SELECT min(due_at) FROM messaging_sim_reports`).Scan(&next)
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("simulator reports: %w", err)
	}
	if next == nil || next.After(now.Add(time.Second)) {
		return now.Add(time.Second), nil
	}
	return later(*next, now), nil
}

// stops returns the (recipient, sending number) pairs among ms whose
// recipient texted STOP to that number.
func (s *Simulator) stops(ctx context.Context, ms []carrier.Message) (map[[2]string]bool, error) {
	tos, froms := make([]string, len(ms)), make([]string, len(ms))
	for i, m := range ms {
		tos[i], froms[i] = m.To, m.From
	}
	out := map[[2]string]bool{}
	err := s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		rows, err := q.Query(ctx, `SELECT s.from_phone, s.to_phone FROM messaging_sim_stops s
JOIN unnest($1::text[], $2::text[]) AS v(recipient, sender) ON s.from_phone = v.recipient AND s.to_phone = v.sender`, tos, froms)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k [2]string
			if err := rows.Scan(&k[0], &k[1]); err != nil {
				return err
			}
			out[k] = true
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("simulator stops: %w", err)
	}
	return out, nil
}

// The carrier's own opt-out keywords (Twilio's defaults): a text that is
// exactly one of them, in any case, opts the sender out of, or back in to,
// texts from the number it was sent to.
var (
	stopWords  = map[string]bool{"STOP": true, "STOPALL": true, "UNSUBSCRIBE": true, "CANCEL": true, "END": true, "QUIT": true}
	startWords = map[string]bool{"START": true, "YES": true, "UNSTOP": true}
)

// NoteInbound lets the simulated carrier see a text someone sent to a team
// number, as a carrier with opt-out handling does: after STOP it refuses
// that number's texts to them (21610) until START.
func (s *Simulator) NoteInbound(ctx context.Context, from, to, body string) error {
	word := strings.ToUpper(strings.TrimSpace(body))
	var query string
	switch {
	case stopWords[word]:
		query = `INSERT INTO messaging_sim_stops (from_phone, to_phone) VALUES ($1, $2) ON CONFLICT DO NOTHING`
	case startWords[word]:
		query = `DELETE FROM messaging_sim_stops WHERE from_phone = $1 AND to_phone = $2`
	default:
		return nil
	}
	return s.db.WithPgx(ctx, func(q db.PgxQuerier) error {
		if _, err := q.Exec(ctx, query, from, to); err != nil {
			return fmt.Errorf("simulator stop list: %w", err)
		}
		return nil
	})
}
