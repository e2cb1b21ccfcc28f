// Package eventlog implements events.Publisher: it stores each event once,
// in the publishing use case's transaction, marked skipped when the team is
// below Team Plus.
package eventlog

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/roster/rosterapi"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
	"github.com/teamtext/teamtext/platform/id"
)

// Log is the event log.
type Log struct {
	db      *db.DB
	teams   rosterapi.Teams
	billing billingapi.Accounts
	clock   clock.Clock
}

// New returns the event log.
func New(d *db.DB, teams rosterapi.Teams, billing billingapi.Accounts, clk clock.Clock) *Log {
	return &Log{db: d, teams: teams, billing: billing, clock: clk}
}

var _ events.Publisher = (*Log)(nil)

// Publish stores ev in the caller's transaction.
func (l *Log) Publish(ctx context.Context, ev events.Event) error {
	tx, err := db.MustTx(ctx)
	if err != nil {
		return fmt.Errorf("publish %s: %w", ev.Type, err)
	}
	team, err := l.teams.Team(ctx, ev.TeamID)
	if err != nil {
		return fmt.Errorf("publish %s: team: %w", ev.Type, err)
	}
	acc, err := l.billing.Get(ctx, ev.TeamID)
	if err != nil {
		return fmt.Errorf("publish %s: account: %w", ev.Type, err)
	}
	env := events.Envelope{
		ID:        id.New("evt"),
		Type:      ev.Type,
		CreatedAt: l.clock.Now().UTC().Truncate(time.Microsecond),
		Team:      events.Team{ID: team.ID, Code: team.Code},
		Data:      ev.Data,
	}
	body, err := Marshal(env)
	if err != nil {
		return fmt.Errorf("publish %s: %w", ev.Type, err)
	}
	_, err = tx.ExecContext(ctx,
		`INSERT INTO webhook_events (id, team_id, type, created_at, body, skipped) VALUES (?, ?, ?, ?, ?, ?)`,
		env.ID, env.Team.ID, env.Type, env.CreatedAt, string(body), !acc.Plan.IncludesAPI())
	if err != nil {
		return fmt.Errorf("publish %s: store: %w", ev.Type, err)
	}
	return nil
}

// Marshal renders an envelope with created_at in microseconds, UTC.
func Marshal(env events.Envelope) ([]byte, error) {
	type wire struct {
		ID        string      `json:"id"`
		Type      string      `json:"type"`
		CreatedAt string      `json:"created_at"`
		Team      events.Team `json:"team"`
		Data      any         `json:"data"`
	}
	return json.Marshal(wire{ID: env.ID, Type: env.Type, CreatedAt: env.CreatedAt.UTC().Format(events.TimeFormat), Team: env.Team, Data: env.Data})
}
