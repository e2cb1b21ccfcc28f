package postgres_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/teamtext/teamtext/modules/messaging/internal/postgres"
	"github.com/teamtext/teamtext/modules/messaging/internal/service/storetest"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

var srv *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &srv)) }

// at is a time Postgres keeps exactly (microseconds, UTC).
var at = time.Date(2027, 1, 2, 3, 4, 5, 6000, time.UTC)

func inTx(t *testing.T, d *db.DB, fn func(ctx context.Context) error) {
	t.Helper()
	require.NoError(t, d.Tx(context.Background(), fn))
}

// TestStoreContract holds the repository to the suite the send use
// cases' in-memory store is held to: templates, scheduled sends, messages
// and their deliveries, as the module wires them (the Repo for all).
func TestStoreContract(t *testing.T) {
	t.Parallel()
	storetest.Exercise(t, func(t *testing.T) storetest.Harness {
		d := srv.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
		r := postgres.NewRepo(d, nil)
		return storetest.Harness{Stores: storetest.Stores{TemplateStore: r, ScheduledStore: r, MessageStore: r}, Tx: d}
	})
}
