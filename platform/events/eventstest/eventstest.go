// Package eventstest is an event publisher for tests that keeps what a
// transaction published in a table of the test's database, so a test sees
// exactly the events whose transaction committed.
package eventstest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/events"
)

// CreateTable makes test_events (seq, team_id, type, data), the table
// Table writes to.
func CreateTable(ctx context.Context, d *db.DB) error {
	_, err := d.Bun.ExecContext(ctx, `CREATE TABLE test_events (seq bigserial, team_id text, type text, data jsonb)`)
	if err != nil {
		return fmt.Errorf("create test_events: %w", err)
	}
	return nil
}

// Table publishes into test_events in the caller's transaction.
type Table struct{}

// Publish implements events.Publisher.
func (Table) Publish(ctx context.Context, ev events.Event) error {
	tx, err := db.MustTx(ctx)
	if err != nil {
		return err
	}
	b, err := json.Marshal(ev.Data)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO test_events (team_id, type, data) VALUES (?, ?, ?)`, ev.TeamID, ev.Type, string(b))
	return err
}
