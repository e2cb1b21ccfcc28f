// Package messaging owns templates, sends and estimates, approvals,
// scheduled and weekly sends, the sending numbers and the delivery engine
// that paces texts on them, the carrier port and its adapters, deliveries
// and status ingestion, inbound texts and keywords, the inbox and analytics.
package messaging

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/teamtext/teamtext/modules/messaging/internal/accounts"
	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/platform/config"
	"github.com/teamtext/teamtext/platform/db"
)

// Migrations is messaging's schema history, applied by `teamtext migrate`.
func Migrations() db.MigrationSet { return postgres.Migrations() }

// CarrierRoutes are the carriers' HTTP endpoints outside /api/v1 (status
// callbacks and incoming texts of every account), keyed by ServeMux
// pattern. The app mounts them on the public mux.
type CarrierRoutes map[string]http.Handler

// RotateSecrets reseals every carrier account's credentials under
// cfg.SecretsKey, opening those sealed under cfg.SecretsKeyPrevious, and
// reports progress after each account (`teamtext secrets rotate`). It
// returns how many it resealed.
func RotateSecrets(ctx context.Context, d *db.DB, cfg config.Config, log *slog.Logger, progress func(done, total int)) (int, error) {
	return accounts.Reseal(ctx, postgres.NewRepo(d, log), cfg, log, progress)
}
