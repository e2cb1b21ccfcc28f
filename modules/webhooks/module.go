// Package webhooks owns webhook subscriptions, the event log, signed
// delivery with retries, auto-disable, the SSRF guard and e-mail notices.
// It implements platform/events.Publisher for every other module.
package webhooks

import (
	"github.com/teamtext/teamtext/platform/db"
	"go.uber.org/fx"

	"github.com/teamtext/teamtext/modules/webhooks/internal/eventlog"
	"github.com/teamtext/teamtext/modules/webhooks/internal/postgres"
	"github.com/teamtext/teamtext/platform/events"
)

// Migrations is the webhooks module's schema history, applied by `teamtext migrate`.
func Migrations() db.MigrationSet { return postgres.Migrations() }

// Module wires webhooks.
var Module = fx.Module("webhooks",
	fx.Provide(
		fx.Annotate(eventlog.New, fx.As(new(events.Publisher))),
	),
)
