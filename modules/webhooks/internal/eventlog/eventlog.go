// Package eventlog implements events.Publisher: it stores each event once,
// in the publishing use case's transaction, marked skipped when the team is
// below Team Plus; otherwise it creates one delivery and one River job per
// enabled webhook subscribed to the event's type, in that same transaction.
package eventlog

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/riverqueue/river"
	segjson "github.com/segmentio/encoding/json"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/modules/webhooks/internal/domain"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/fault"
	"github.com/teamtext/teamtext/platform/httpapi"
	"github.com/teamtext/teamtext/platform/id"
	"github.com/teamtext/teamtext/platform/jobs"
)

// Inserter enqueues jobs in the transaction carried by ctx (*jobs.Jobs).
type Inserter interface {
	InsertMany(ctx context.Context, params []river.InsertManyParams) error
}

var _ Inserter = (*jobs.Jobs)(nil)

// Store is what publishing needs of storage (postgres.Repo), in the
// publishing transaction carried by ctx.
type Store interface {
	// InsertEvent stores an event and, unless it is skipped, a pending
	// delivery per enabled webhook it goes to, with ids taken in order
	// from ids; targets beyond len(ids) come back without a delivery.
	InsertEvent(ctx context.Context, e *domain.Event, ids []string) ([]domain.Target, error)
	// InsertEvents stores events (COPY from 64 on).
	InsertEvents(ctx context.Context, es []domain.Event) error
	// SubscriptionsOf maps team → event type → its enabled webhooks' ids, oldest first.
	SubscriptionsOf(ctx context.Context, teamIDs []string) (map[string]map[string][]string, error)
	InsertDeliveries(ctx context.Context, ds []domain.Delivery) error
}

// Log is the event log.
type Log struct {
	repo    Store
	teams   rosterapi.Teams
	billing billingapi.Accounts
	jobs    Inserter
	clock   clock.Clock
	kinds   *Kinds
}

// New returns the event log.
func New(repo Store, teams rosterapi.Teams, billing billingapi.Accounts, j Inserter, clk clock.Clock) *Log {
	return &Log{repo: repo, teams: teams, billing: billing, jobs: j, clock: clk, kinds: &Kinds{}}
}

var _ events.Publisher = (*Log)(nil)

// Published tells what publishing did.
type Published struct {
	EventID    string
	Skipped    bool
	Deliveries []Delivery
}

// Delivery names one delivery created for an event.
type Delivery struct {
	ID        string
	WebhookID string
}

// idsPerEvent is how many delivery ids Publish makes ahead of the statement
// that stores the event with its deliveries: most teams subscribe few
// webhooks to one type. A wider fan-out stores the remaining deliveries in
// one more statement.
const idsPerEvent = 4

// Publish stores ev in the caller's transaction and schedules its
// deliveries: the event and its first idsPerEvent deliveries in one
// statement, then one job per delivery in another.
func (l *Log) Publish(ctx context.Context, ev events.Event) error {
	_, err := l.publish(ctx, ev, "")
	return err
}

// PublishTo stores ev for one webhook only (webhook.test), whether or not
// it subscribes to ev's type; the webhook must be on.
func (l *Log) PublishTo(ctx context.Context, ev events.Event, webhookID string) (Published, error) {
	return l.publish(ctx, ev, webhookID)
}

func (l *Log) publish(ctx context.Context, ev events.Event, webhookID string) (Published, error) {
	states, err := l.teamStates(ctx, []events.Event{ev})
	if err != nil {
		return Published{}, fmt.Errorf("publish %s: %w", ev.Type, err)
	}
	st := states[ev.TeamID]
	e, err := stored(l.kinds, nil, st.team, st.api, createdAt(l.clock.Now().UTC()), ev)
	if err != nil {
		return Published{}, fmt.Errorf("publish %s: %w", ev.Type, err)
	}
	var ids []string
	if !e.Skipped {
		n := idsPerEvent
		if webhookID != "" {
			e.WebhookID, n = &webhookID, 1
		}
		ids = make([]string, n)
		for i := range ids {
			ids[i] = id.New("dlv")
		}
	}
	targets, err := l.repo.InsertEvent(ctx, &e, ids)
	if err != nil {
		return Published{}, fmt.Errorf("publish %s: %w", ev.Type, err)
	}
	out := Published{EventID: e.ID, Skipped: e.Skipped}
	if len(targets) == 0 {
		return out, nil
	}
	var rest []domain.Delivery // targets beyond the ids given: stored here
	params := make([]river.InsertManyParams, len(targets))
	for i, t := range targets {
		d, job := pending(t.DeliveryID, &e, t.WebhookID)
		if t.DeliveryID == "" {
			rest = append(rest, d)
		}
		params[i] = job
		out.Deliveries = append(out.Deliveries, Delivery{ID: d.ID, WebhookID: t.WebhookID})
	}
	if err := l.repo.InsertDeliveries(ctx, rest); err != nil {
		return Published{}, fmt.Errorf("publish %s: %w", ev.Type, err)
	}
	if err := l.jobs.InsertMany(ctx, params); err != nil {
		return Published{}, fmt.Errorf("publish %s: %w", ev.Type, err)
	}
	return out, nil
}

// PublishMany implements events.BatchPublisher: PublishTeams for events
// of one team.
func (l *Log) PublishMany(ctx context.Context, teamID string, evs []events.Event) error {
	for _, ev := range evs {
		if ev.TeamID != teamID {
			return fmt.Errorf("publish %d events: an event of team %s in a batch of %s", len(evs), ev.TeamID, teamID)
		}
	}
	return l.PublishTeams(ctx, evs)
}

// PublishTeams implements events.TeamsPublisher: events of any teams in a
// fixed number of statements, whatever the number of teams — the teams and
// their plans read once, the events stored in one statement, the
// subscriptions of the teams whose plan includes the API read once, and
// every delivery and its job written in one statement each. Status
// ingestion publishes the reports of many teams' broadcasts at once.
func (l *Log) PublishTeams(ctx context.Context, evs []events.Event) error {
	if len(evs) == 0 {
		return nil
	}
	states, err := l.teamStates(ctx, evs)
	if err != nil {
		return fmt.Errorf("publish %d events: %w", len(evs), err)
	}
	at := createdAt(l.clock.Now().UTC()) // the batch's events share it
	rows := make([]domain.Event, len(evs))
	var buf []byte // each body is encoded here, then copied once into its string
	for i, ev := range evs {
		st := states[ev.TeamID]
		if rows[i], err = stored(l.kinds, &buf, st.team, st.api, at, ev); err != nil {
			return fmt.Errorf("publish %s: %w", ev.Type, err)
		}
	}
	var apiTeams []string
	for id, st := range states {
		if st.api {
			apiTeams = append(apiTeams, id)
		}
	}
	if err := l.repo.InsertEvents(ctx, rows); err != nil {
		return err
	}
	if len(apiTeams) == 0 {
		return nil
	}
	subs, err := l.repo.SubscriptionsOf(ctx, apiTeams)
	if err != nil {
		return err
	}
	var ds []domain.Delivery
	var params []river.InsertManyParams
	for i := range rows {
		for _, w := range subs[rows[i].TeamID][rows[i].Type] {
			d, job := pending("", &rows[i], w)
			ds, params = append(ds, d), append(params, job)
		}
	}
	if err := l.repo.InsertDeliveries(ctx, ds); err != nil {
		return err
	}
	return l.jobs.InsertMany(ctx, params)
}

// teamInfo is what every event of a team needs: the team (for the
// envelope) and whether its plan includes the API.
type teamInfo struct {
	team rosterapi.Team
	api  bool
}

// teamStates reads the states of evs' teams, in the publishing
// transaction, in one statement to each module.
func (l *Log) teamStates(ctx context.Context, evs []events.Event) (map[string]teamInfo, error) {
	if _, err := db.MustTx(ctx); err != nil {
		return nil, err
	}
	var ids []string
	seen := map[string]bool{}
	for _, ev := range evs {
		if !seen[ev.TeamID] {
			seen[ev.TeamID] = true
			ids = append(ids, ev.TeamID)
		}
	}
	teams, err := l.teams.TeamsByID(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("teams: %w", err)
	}
	accs, err := l.billing.Statuses(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("accounts: %w", err)
	}
	out := make(map[string]teamInfo, len(ids))
	for _, id := range ids {
		t, ok := teams[id]
		if !ok {
			return nil, fmt.Errorf("team %s: %w", id, fault.NotFoundf("team not found"))
		}
		acc, ok := accs[id]
		if !ok {
			return nil, fmt.Errorf("account of %s: %w", id, fault.NotFoundf("team not found"))
		}
		out[id] = teamInfo{team: t, api: acc.Plan.IncludesAPI()}
	}
	return out, nil
}

// eventTime is an event's created_at: the time, to the microsecond, and
// as the envelope renders it.
type eventTime struct {
	at       time.Time
	rendered string
}

// createdAt is the created_at of events published at now.
func createdAt(now time.Time) eventTime {
	at := now.Truncate(time.Microsecond)
	return eventTime{at: at, rendered: at.UTC().Format(events.TimeFormat)}
}

// stored is ev's row: its envelope, with a new id and created at at,
// marshalled (in *buf when buf is not nil, to be reused); skipped unless
// the team's plan includes the API.
func stored(k *Kinds, buf *[]byte, team rosterapi.Team, api bool, at eventTime, ev events.Event) (domain.Event, error) {
	w := wire{ID: id.New("evt"), Type: ev.Type, CreatedAt: at.rendered, Team: events.Team{ID: team.ID, Code: team.Code}, Data: ev.Data}
	var b []byte
	if buf != nil {
		b = (*buf)[:0]
	}
	b, err := k.appendWire(b, w)
	if err != nil {
		return domain.Event{}, err
	}
	if buf != nil {
		*buf = b
	}
	return domain.Event{ID: w.ID, TeamID: team.ID, Type: w.Type, CreatedAt: at.at,
		Body: string(b), Skipped: !api}, nil
}

// pending is a new delivery of e to webhook w (id "": a new one), due at
// once, and the job of its first attempt: available at once, River wakes a
// worker when the transaction commits.
func pending(deliveryID string, e *domain.Event, w string) (domain.Delivery, river.InsertManyParams) {
	if deliveryID == "" {
		deliveryID = id.New("dlv")
	}
	d := domain.NewDelivery(deliveryID, e.TeamID, e.ID, w, e.CreatedAt)
	return d, river.InsertManyParams{Args: domain.DeliverArgs{TeamID: e.TeamID, DeliveryID: d.ID, Attempt: 1},
		InsertOpts: &river.InsertOpts{Queue: domain.Queue}}
}

// wire is the envelope as stored, signed and sent: created_at in
// microseconds, UTC.
type wire struct {
	ID        string      `json:"id"`
	Type      string      `json:"type"`
	CreatedAt string      `json:"created_at"`
	Team      events.Team `json:"team"`
	Data      any         `json:"data"`
}

// Marshal renders an envelope with created_at in microseconds, UTC: the
// bytes of encoding/json's Marshal (HTML escaped, map keys sorted).
func Marshal(env events.Envelope) ([]byte, error) {
	return (&Kinds{}).Append(nil, env)
}

// Kinds remembers, per Go type, whether segmentio/encoding/json encodes it
// exactly as encoding/json does (httpapi.JSONDeviation finds nothing in
// it). An import publishes one member.joined per row: encoding/json's
// reflection took 4.7 µs of the service's 46 µs of CPU per imported row
// (0.47 s of a 100,000-row import's profile); segmentio compiles an
// encoder per type once. A body whose data holds any other kind (a
// time.Duration, a MarshalJSON or MarshalText of its own, an interface
// value of such a type) is encoded by encoding/json, so every stored,
// signed and delivered body keeps encoding/json's bytes
// (TestMarshalByteIdentical).
type Kinds struct {
	alike sync.Map // reflect.Type → bool
}

// Append appends env's body (Marshal's bytes) to b.
func (k *Kinds) Append(b []byte, env events.Envelope) ([]byte, error) {
	return k.appendWire(b, wire{ID: env.ID, Type: env.Type, CreatedAt: env.CreatedAt.UTC().Format(events.TimeFormat), Team: env.Team, Data: env.Data})
}

// appendWire appends w's body to b.
func (k *Kinds) appendWire(b []byte, w wire) ([]byte, error) {
	if !k.encodeAlike(w.Data) {
		return marshalStd(b, w)
	}
	// json.Marshal's flags: HTML escaped, map keys sorted.
	out, err := segjson.Append(b, w, segjson.EscapeHTML|segjson.SortMapKeys)
	if err != nil {
		// encoding/json's result (its error, not segmentio's wording).
		return marshalStd(b, w)
	}
	return out, nil
}

// marshalStd appends w's encoding/json body to b.
func marshalStd(b []byte, w wire) ([]byte, error) {
	out, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	return append(b, out...), nil
}

// encodeAlike reports whether segmentio encodes v as encoding/json does:
// v's dynamic type, and those of the values in its generic maps and
// slices, have no kind that JSONDeviation names.
func (k *Kinds) encodeAlike(v any) bool {
	switch v := v.(type) {
	case nil, string, bool:
		return true
	case map[string]any:
		for _, e := range v {
			if !k.encodeAlike(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !k.encodeAlike(e) {
				return false
			}
		}
		return true
	}
	t := reflect.TypeOf(v)
	if ok, found := k.alike.Load(t); found {
		return ok.(bool)
	}
	ok := httpapi.JSONDeviation(t) == ""
	k.alike.Store(t, ok)
	return ok
}
