package service_test

import (
	"os"
	"testing"
	"time"

	"github.com/teamtext/teamtext/modules/billing/billingapi"
	"github.com/teamtext/teamtext/modules/billing/billingapi/billingtest"
	"github.com/teamtext/teamtext/modules/billing/internal/postgres"
	"github.com/teamtext/teamtext/modules/billing/internal/service"
	"github.com/teamtext/teamtext/platform/clock"
	"github.com/teamtext/teamtext/platform/db"
	"github.com/teamtext/teamtext/platform/db/dbtest"
)

var server *dbtest.Server

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m, &server)) }

// TestContract holds billing on Postgres to the contract suite its
// in-memory fake (billingtest) is held to: opening and reading accounts,
// updates and payment recovery, charges and credits, the gate's
// sub-select.
func TestContract(t *testing.T) {
	t.Parallel()
	billingtest.Exercise(t, func(t *testing.T, recovered billingapi.PaymentListener) billingtest.Harness {
		d := server.Migrated(t, db.PlatformMigrations(), postgres.Migrations())
		clk := clock.NewFake(time.Time{})
		svc := service.New(service.Deps{Tx: d, Store: postgres.NewStore(d), AccessSQL: postgres.AccessSQL, Clock: clk,
			Listeners: []billingapi.PaymentListener{recovered}})
		return billingtest.Harness{Accounts: svc, Standings: svc, Clock: clk, DB: d}
	})
}
